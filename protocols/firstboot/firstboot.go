// Package firstboot reads the first-boot settings of a Claude_Pi image:
// the cloud-init NoCloud files Raspberry Pi Imager 2.x writes to the boot
// partition for an image whose OS list entry says init_format
// "cloudinit-rpi" (user-data, network-config, meta-data), and the image's
// own firstboot.txt. It merges the two and writes the result in
// firstboot.txt's key = value form, which the image's first-boot script
// applies. Pure: the caller reads and scrubs the files.
//
// Imager's shapes were read in its source (rpi-imager 72ad1179,
// src/customization_generator.cpp generateCloudInitUserData and
// generateCloudInitNetworkConfig, src/downloadthread.cpp _customizeImage),
// not in cloud-init's documentation: this image applies what Imager
// writes, not everything cloud-init can do. What it does not apply is
// listed in Settings.Notes, never silently dropped.
package firstboot

import (
	"encoding/hex"
	"fmt"
	"strings"
)

// Settings are what a first boot applies. Empty strings mean "not set".
type Settings struct {
	Hostname string

	User         string
	PasswordHash string // crypt(3), e.g. "$y$..." (Imager) or "$6$..." (openssl passwd -6)
	Password     string // plain text (firstboot.txt only)
	SSHKeys      []string
	// SSHPasswordLogin is "yes", "no" or "" (the image decides: on when the
	// user has a password).
	SSHPasswordLogin string
	// SudoNoPassword is "yes" when sudo asks no password.
	SudoNoPassword string
	// SSH is "no" when sshd must not run, "yes" or "" (the image's default:
	// it runs).
	SSH string

	WifiCountry string
	WifiSSID    string // as text, when it is printable UTF-8
	WifiSSIDHex string // the SSID's octets in hex (Imager's, which may be any bytes)
	WifiPSK     string // a passphrase (8..63) or 64 hex digits; empty for an open network
	WifiHidden  string // "yes" when the network does not broadcast its SSID

	Timezone       string
	KeyboardLayout string
	KeyboardModel  string

	// InstanceID is Imager's meta-data instance-id (for the log).
	InstanceID string
	// Notes say what was read but not applied, and why.
	Notes []string
}

func (s *Settings) note(format string, a ...any) {
	s.Notes = append(s.Notes, fmt.Sprintf(format, a...))
}

// SeedError is a seed file that could not be read; its settings are not
// applied, and the others still are.
type SeedError struct {
	File string
	Err  error
}

func (e *SeedError) Error() string { return e.File + ": " + e.Err.Error() }
func (e *SeedError) Unwrap() error { return e.Err }

// valueErr is a key whose value is not what Imager writes.
func valueErr(n *node, key, format string, a ...any) error {
	return syntaxErr(n.line, "%s: %s", key, fmt.Sprintf(format, a...))
}

// scalar is a mapping's value under key as text: "" when absent or null,
// an error when it is a list or mapping, or holds a line break (every
// setting here is one line).
func scalar(m *node, key string) (string, error) {
	n := m.get(key)
	if n == nil || n.kind == nullNode {
		return "", nil
	}
	if n.kind != scalarNode {
		return "", valueErr(n, key, "want a value, got %v", n.kind)
	}
	if strings.ContainsAny(n.value, "\r\n\x00") {
		return "", valueErr(n, key, "a value of one line")
	}
	return n.value, nil
}

// boolean reads YAML 1.1's booleans, as cloud-init (PyYAML) does:
// "yes"/"no" and "on"/"off" count too. "" when absent.
func boolean(m *node, key string) (string, error) {
	n := m.get(key)
	if n == nil || n.kind == nullNode {
		return "", nil
	}
	if n.kind == scalarNode && !n.quoted {
		switch strings.ToLower(n.value) {
		case "true", "yes", "on":
			return "yes", nil
		case "false", "no", "off":
			return "no", nil
		}
	}
	return "", valueErr(n, key, "want true or false")
}

func mappingAt(m *node, key string) (*node, error) {
	n := m.get(key)
	if n == nil || n.kind == nullNode {
		return nil, nil
	}
	if n.kind != mapNode {
		return nil, valueErr(n, key, "want a mapping, got %v", n.kind)
	}
	return n, nil
}

// ParseMetaData reads meta-data ("instance-id: rpi-imager-<ms>").
func ParseMetaData(b []byte) (string, error) {
	doc, err := parseYAML(b)
	if err != nil {
		return "", &SeedError{"meta-data", err}
	}
	if doc.kind == nullNode {
		return "", nil
	}
	if doc.kind != mapNode {
		return "", &SeedError{"meta-data", fmt.Errorf("want a mapping, got %v", doc.kind)}
	}
	id, err := scalar(doc, "instance-id")
	if err != nil {
		return "", &SeedError{"meta-data", err}
	}
	return id, nil
}

// ParseNetworkConfig reads network-config: netplan version 2 with one
// Wi-Fi access point on wlan0 (Imager writes eth0 on DHCP beside it, which
// the image does anyway).
func ParseNetworkConfig(b []byte, s *Settings) error {
	if err := parseNetworkConfig(b, s); err != nil {
		return &SeedError{"network-config", err}
	}
	return nil
}

func parseNetworkConfig(b []byte, s *Settings) error {
	doc, err := parseYAML(b)
	if err != nil {
		return err
	}
	if doc.kind == nullNode {
		return nil
	}
	if doc.kind != mapNode {
		return fmt.Errorf("want a mapping, got %v", doc.kind)
	}
	for _, k := range doc.keys {
		if k != "network" {
			s.note("network-config: %s not applied (Imager writes only network)", k)
		}
	}
	net, err := mappingAt(doc, "network")
	if err != nil || net == nil {
		return err
	}
	if v, err := scalar(net, "version"); err != nil {
		return err
	} else if v != "2" {
		return valueErr(net, "version", "%q: want 2 (netplan's format, as Imager writes it)", v)
	}
	for _, k := range net.keys {
		switch k {
		case "version", "wifis":
		case "ethernets":
			// Imager's eth0 on DHCP; the image's 20-wired.network does that.
		default:
			s.note("network-config: network.%s not applied", k)
		}
	}
	wifis, err := mappingAt(net, "wifis")
	if err != nil || wifis == nil {
		return err
	}
	if len(wifis.keys) != 1 || wifis.keys[0] != "wlan0" {
		return valueErr(wifis, "wifis", "want wlan0 only, got %s", strings.Join(wifis.keys, ", "))
	}
	wlan, err := mappingAt(wifis, "wlan0")
	if err != nil || wlan == nil {
		return err
	}
	country, err := scalar(wlan, "regulatory-domain")
	if err != nil {
		return err
	}
	aps, err := mappingAt(wlan, "access-points")
	if err != nil {
		return err
	}
	if aps == nil || len(aps.keys) == 0 {
		return valueErr(wlan, "wlan0", "no access-points")
	}
	if len(aps.keys) > 1 {
		return valueErr(aps, "access-points", "%d networks; Imager writes one, and the image sets up one", len(aps.keys))
	}
	for _, k := range wlan.keys {
		switch k {
		case "regulatory-domain", "access-points", "dhcp4", "optional":
		default:
			s.note("network-config: wlan0.%s not applied", k)
		}
	}
	ssid := aps.keys[0]
	ap := aps.vals[0]
	if ssid == "" || len(ssid) > 32 {
		return valueErr(ap, "access-points", "an SSID is 1..32 bytes, got %d", len(ssid))
	}
	var psk, hidden string
	if ap.kind == mapNode {
		if psk, err = scalar(ap, "password"); err != nil {
			return err
		}
		if hidden, err = boolean(ap, "hidden"); err != nil {
			return err
		}
		auth, err := mappingAt(ap, "auth")
		if err != nil {
			return err
		}
		if auth != nil {
			km, err := scalar(auth, "key-management")
			if err != nil {
				return err
			}
			if km != "none" || len(auth.keys) != 1 {
				return valueErr(auth, "auth", "only key-management: none (an open network) is what Imager writes")
			}
			if psk != "" {
				return valueErr(auth, "auth", "an open network with a password")
			}
		}
		for _, k := range ap.keys {
			if k != "password" && k != "hidden" && k != "auth" {
				s.note("network-config: access point %s not applied", k)
			}
		}
	} else if ap.kind != nullNode {
		return valueErr(ap, "access-points", "want a mapping under the SSID")
	}
	if err := checkPSK(psk); err != nil {
		return valueErr(ap, "password", "%v", err)
	}
	s.WifiSSIDHex = hex.EncodeToString([]byte(ssid))
	s.WifiSSID = ""
	if printable(ssid) {
		s.WifiSSID = ssid
	}
	s.WifiPSK, s.WifiHidden = psk, ""
	if hidden == "yes" {
		s.WifiHidden = "yes"
	}
	s.WifiCountry = strings.ToUpper(country)
	return nil
}

// checkPSK: WPA takes a passphrase of 8..63 characters or a 256-bit key in
// hex; Imager writes the key (PBKDF2 of the passphrase and SSID).
func checkPSK(psk string) error {
	if psk == "" || len(psk) >= 8 && len(psk) <= 63 {
		return nil
	}
	if len(psk) == 64 {
		if _, err := hex.DecodeString(psk); err == nil {
			return nil
		}
	}
	return fmt.Errorf("want a passphrase of 8..63 characters or 64 hex digits, got %d characters", len(psk))
}

// printable: UTF-8 with no control characters and no quote or backslash,
// so it can be written as firstboot.txt text and in wpa_supplicant's
// quoted form; any other SSID goes by WifiSSIDHex only.
func printable(s string) bool {
	if !isValidText(s) {
		return false
	}
	return !strings.ContainsAny(s, "\t\r\n\"\\") && strings.TrimSpace(s) == s
}

// Seed is the NoCloud files Imager writes to the boot partition; nil
// means the file is absent.
type Seed struct {
	UserData, NetworkConfig, MetaData []byte
}

// Present: Imager customised this card. It writes meta-data whenever it
// writes either of the others.
func (seed Seed) Present() bool {
	return seed.UserData != nil || seed.NetworkConfig != nil || seed.MetaData != nil
}

// ParseSeed reads Imager's files. A file with an error is left out whole
// (its error is returned, each a *SeedError) and the others still count.
func ParseSeed(seed Seed) (Settings, []error) {
	var s Settings
	var errs []error
	if seed.MetaData != nil {
		id, err := ParseMetaData(seed.MetaData)
		if err != nil {
			errs = append(errs, err)
		}
		s.InstanceID = id
	}
	if seed.UserData != nil {
		if err := ParseUserData(seed.UserData, &s); err != nil {
			errs = append(errs, err)
		}
	}
	if seed.NetworkConfig != nil {
		var w Settings
		if err := ParseNetworkConfig(seed.NetworkConfig, &w); err != nil {
			errs = append(errs, err)
		} else {
			s.WifiCountry, s.WifiSSID, s.WifiSSIDHex, s.WifiPSK, s.WifiHidden = w.WifiCountry, w.WifiSSID, w.WifiSSIDHex, w.WifiPSK, w.WifiHidden
			s.Notes = append(s.Notes, w.Notes...)
		}
	}
	return s, errs
}
