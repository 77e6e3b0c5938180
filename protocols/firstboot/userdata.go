package firstboot

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// ParseUserData reads Imager's user-data (#cloud-config) into s: hostname,
// time zone, keyboard, the user with its password hash, SSH keys and sudo,
// and whether ssh takes passwords. On an error nothing of the file is
// applied.
func ParseUserData(b []byte, s *Settings) error {
	var u Settings
	if err := parseUserData(b, &u); err != nil {
		return &SeedError{"user-data", err}
	}
	s.Hostname, s.Timezone = u.Hostname, u.Timezone
	s.KeyboardLayout, s.KeyboardModel = u.KeyboardLayout, u.KeyboardModel
	s.User, s.PasswordHash, s.Password, s.SSHKeys = u.User, u.PasswordHash, "", u.SSHKeys
	s.SSHPasswordLogin, s.SudoNoPassword, s.SSH = u.SSHPasswordLogin, u.SudoNoPassword, u.SSH
	s.Notes = append(s.Notes, u.Notes...)
	return nil
}

func parseUserData(b []byte, s *Settings) error {
	first, _, _ := bytes.Cut(b, []byte("\n"))
	if string(bytes.TrimRight(first, "\r ")) != "#cloud-config" {
		return fmt.Errorf("the first line is not #cloud-config (Imager writes it; a script or MIME user-data is not applied)")
	}
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
	sshEnabled := false
	for i, key := range doc.keys {
		n := doc.vals[i]
		switch key {
		case "hostname":
			s.Hostname, err = scalar(doc, key)
		case "timezone":
			s.Timezone, err = scalar(doc, key)
		case "keyboard":
			err = parseKeyboard(doc, s)
		case "user":
			err = parseUser(doc, s)
		case "ssh_pwauth":
			s.SSHPasswordLogin, err = boolean(doc, key)
		case "runcmd":
			sshEnabled, err = parseRuncmd(n, s)
		case "manage_etc_hosts", "manage_resolv_conf":
			// Imager's true and false are what the image does anyway: it
			// writes /etc/hosts with the hostname, and resolved owns DNS.
		case "packages":
			err = parsePackages(n, s)
		case "apt":
			s.note("user-data: apt not applied (Imager's Check-Date setting; the image installs nothing at first boot)")
		case "rpi":
			s.note("user-data: rpi (I2C, SPI, serial, USB gadget) not applied: `claude-pi setup --board NAME` turns on what the HAT needs")
		case "users":
			err = valueErr(n, key, "Imager writes user:, not users:; use firstboot.txt for more than one setting of this kind")
		default:
			s.note("user-data: %s not applied (this image applies what Raspberry Pi Imager writes: image/README.md)", key)
		}
		if err != nil {
			return err
		}
	}
	// Imager writes "systemctl enable --now ssh" whenever its SSH box is
	// ticked (generateCloudInitUserData, needsRuncmdForSsh) and nothing
	// else says so: without the line, the user chose no SSH.
	if s.User != "" {
		s.SSH = "no"
		if sshEnabled {
			s.SSH = "yes"
		}
	}
	return nil
}

func parseKeyboard(doc *node, s *Settings) error {
	kb, err := mappingAt(doc, "keyboard")
	if err != nil || kb == nil {
		return err
	}
	if s.KeyboardLayout, err = scalar(kb, "layout"); err != nil {
		return err
	}
	if s.KeyboardModel, err = scalar(kb, "model"); err != nil {
		return err
	}
	for _, k := range kb.keys {
		if k != "layout" && k != "model" {
			s.note("user-data: keyboard.%s not applied", k)
		}
	}
	return nil
}

// sshKeyRE is the start of an authorized_keys line without options.
var sshKeyRE = regexp.MustCompile(`^(ssh-[a-z0-9-]+|ecdsa-sha2-nistp[0-9]+|sk-[a-z0-9@.-]+) [A-Za-z0-9+/=]+( .*)?$`)

func parseUser(doc *node, s *Settings) error {
	u, err := mappingAt(doc, "user")
	if err != nil || u == nil {
		return err
	}
	if s.User, err = scalar(u, "name"); err != nil {
		return err
	}
	if s.User == "" {
		return valueErr(u, "user", "no name")
	}
	hash, err := scalar(u, "passwd")
	if err != nil {
		return err
	}
	locked, err := boolean(u, "lock_passwd")
	if err != nil {
		return err
	}
	switch {
	case hash != "" && locked == "yes":
		s.note("user-data: user.passwd not applied: lock_passwd is true")
	case hash != "" && !strings.HasPrefix(hash, "$"):
		return valueErr(u.get("passwd"), "passwd", "not a crypt(3) hash")
	default:
		s.PasswordHash = hash
	}
	if keys := u.get("ssh_authorized_keys"); keys != nil && keys.kind != nullNode {
		if keys.kind != seqNode {
			return valueErr(keys, "ssh_authorized_keys", "want a list, got %v", keys.kind)
		}
		for _, k := range keys.items {
			if k.kind != scalarNode || strings.ContainsAny(k.value, "\r\n") {
				return valueErr(k, "ssh_authorized_keys", "want one key a line")
			}
			if !sshKeyRE.MatchString(k.value) {
				s.note("user-data: line %d: not an SSH public key (want e.g. ssh-ed25519 AAAA... you@laptop); skipped", k.line)
				continue
			}
			s.SSHKeys = append(s.SSHKeys, k.value)
		}
	}
	if sudo := u.get("sudo"); sudo != nil && sudo.kind != nullNode {
		v, _ := scalar(u, "sudo")
		switch {
		case strings.ReplaceAll(v, " ", "") == "ALL=(ALL)NOPASSWD:ALL":
			s.SudoNoPassword = "yes"
		case sudo.kind == scalarNode && !sudo.quoted && (v == "false" || v == "False"):
		default:
			return valueErr(sudo, "sudo", "want null or ALL=(ALL) NOPASSWD:ALL, as Imager writes")
		}
	}
	for _, k := range u.keys {
		switch k {
		case "name", "passwd", "lock_passwd", "ssh_authorized_keys", "sudo":
		case "shell":
			if sh, _ := scalar(u, k); sh != "/bin/bash" {
				s.note("user-data: user.shell %s not applied: the user gets /bin/bash", sh)
			}
		default:
			s.note("user-data: user.%s not applied", k)
		}
	}
	return nil
}

func parsePackages(n *node, s *Settings) error {
	if n.kind != seqNode {
		return valueErr(n, "packages", "want a list, got %v", n.kind)
	}
	for _, p := range n.items {
		if p.kind == scalarNode && p.value == "avahi-daemon" {
			// Imager's, for name.local: the image's resolved answers mDNS.
			continue
		}
		s.note("user-data: line %d: package not installed (the image installs nothing at first boot)", p.line)
	}
	return nil
}

// parseRuncmd recognises the commands Imager writes and runs none: the
// image already enables ssh; Imager's sudoers line means sudo without a
// password; its rfkill lines unblock Wi-Fi, which Debian does not block.
// Anything else (Raspberry Pi Connect's enrolment, a hand-added line) is
// reported, not run: a root shell from a FAT file is not something this
// image hands out.
func parseRuncmd(n *node, s *Settings) (sshEnabled bool, err error) {
	if n.kind != seqNode {
		return false, valueErr(n, "runcmd", "want a list, got %v", n.kind)
	}
	connect := false
	for _, item := range n.items {
		var words []string
		switch item.kind {
		case seqNode:
			for _, w := range item.items {
				words = append(words, w.value)
			}
		case scalarNode:
			words = strings.Fields(item.value)
		default:
			return false, valueErr(item, "runcmd", "want a command")
		}
		cmd := strings.Join(words, " ")
		switch {
		case cmd == "systemctl enable --now ssh":
			sshEnabled = true
		case strings.HasPrefix(cmd, "sh -c echo '") && strings.HasSuffix(cmd, "-nopasswd") && strings.Contains(cmd, "NOPASSWD:ALL' >/etc/sudoers.d/010_"):
			s.SudoNoPassword = "yes"
		case strings.HasPrefix(cmd, "chmod 0440 /etc/sudoers.d/010_"):
		case cmd == "rfkill unblock wifi", strings.HasPrefix(cmd, "sh -c for f in /var/lib/systemd/rfkill/"):
		case strings.Contains(cmd, "connect") || strings.Contains(cmd, "linger") || strings.Contains(cmd, ".config/systemd") || cmd == "sleep 2":
			connect = true
		default:
			s.note("user-data: line %d: runcmd %q not run (the image runs no commands from the boot partition)", item.line, clip(cmd))
		}
	}
	if connect {
		s.note("user-data: Raspberry Pi Connect not set up: it is not in this image")
	}
	return sshEnabled, nil
}
