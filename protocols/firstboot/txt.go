package firstboot

import (
	"fmt"
	"strings"
)

// The keys of firstboot.txt, in the order Format writes them. The image's
// first-boot script reads the same form (key = value, the last one wins,
// ssh_key repeats, one pair of quotes taken off).
var txtKeys = []struct {
	key   string
	field func(*Settings) *string
}{
	{"hostname", func(s *Settings) *string { return &s.Hostname }},
	{"user", func(s *Settings) *string { return &s.User }},
	{"password_hash", func(s *Settings) *string { return &s.PasswordHash }},
	{"password", func(s *Settings) *string { return &s.Password }},
	{"ssh_password_login", func(s *Settings) *string { return &s.SSHPasswordLogin }},
	{"sudo_nopasswd", func(s *Settings) *string { return &s.SudoNoPassword }},
	{"ssh", func(s *Settings) *string { return &s.SSH }},
	{"wifi_country", func(s *Settings) *string { return &s.WifiCountry }},
	{"wifi_ssid", func(s *Settings) *string { return &s.WifiSSID }},
	{"wifi_ssid_hex", func(s *Settings) *string { return &s.WifiSSIDHex }},
	{"wifi_psk", func(s *Settings) *string { return &s.WifiPSK }},
	{"wifi_hidden", func(s *Settings) *string { return &s.WifiHidden }},
	{"timezone", func(s *Settings) *string { return &s.Timezone }},
	{"keyboard_layout", func(s *Settings) *string { return &s.KeyboardLayout }},
	{"keyboard_model", func(s *Settings) *string { return &s.KeyboardModel }},
}

// ParseTxt reads firstboot.txt. It never fails: a line it cannot read is
// a note, as in the shell script that read it alone before.
func ParseTxt(b []byte) Settings {
	var s Settings
	text := strings.ToValidUTF8(string(b), "\uFFFD")
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(strings.ReplaceAll(line, "\r", ""))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		key = strings.TrimSpace(key)
		if !ok {
			s.note("firstboot.txt: line %d: want key = value", i+1)
			continue
		}
		value = unquote(strings.TrimSpace(value))
		if strings.ContainsAny(value, "\x00") {
			s.note("firstboot.txt: line %d: %s holds a NUL; skipped", i+1, key)
			continue
		}
		if key == "ssh_key" {
			if value != "" {
				s.SSHKeys = append(s.SSHKeys, value)
			}
			continue
		}
		found := false
		for _, k := range txtKeys {
			if k.key == key {
				*k.field(&s) = value
				found = true
			}
		}
		if !found {
			s.note("firstboot.txt: line %d: unknown key %q (see the comments in the file)", i+1, clip(key))
		}
	}
	return s
}

// unquote takes off one pair of quotes around the whole value.
func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		return v[1 : len(v)-1]
	}
	return v
}

// Source says where a group of settings came from.
type Source string

const (
	FromNone   Source = ""
	FromImager Source = "Raspberry Pi Imager"
	FromTxt    Source = "firstboot.txt"
)

// Merge is the settings a first boot applies when both Imager's files and
// firstboot.txt are on the card. Imager's win, group by group: whatever
// Imager set (the hostname; the user with its password, keys and sudo;
// the Wi-Fi network; the time zone; the keyboard) replaces the whole of
// that group in firstboot.txt, which fills in the groups Imager left out.
// Why Imager's: it is what the user chose last, in the tool built for it,
// while firstboot.txt ships with defaults (hostname = claude-pi) that
// would otherwise override the choice. Groups are kept whole so that, say,
// Imager's open network never gets firstboot.txt's passphrase.
func Merge(imager, txt Settings) (Settings, map[string]Source) {
	out := txt
	out.Notes = append(append([]string(nil), txt.Notes...), imager.Notes...)
	out.InstanceID = imager.InstanceID
	from := map[string]Source{}
	group := func(name string, imagerSet, txtSet bool, take func()) {
		switch {
		case imagerSet:
			take()
			from[name] = FromImager
			if txtSet {
				out.note("firstboot.txt's %s settings not applied: Raspberry Pi Imager's win", name)
			}
		case txtSet:
			from[name] = FromTxt
		}
	}
	group("hostname", imager.Hostname != "", txt.Hostname != "", func() { out.Hostname = imager.Hostname })
	group("user", imager.User != "", txt.User != "", func() {
		out.User, out.PasswordHash, out.Password = imager.User, imager.PasswordHash, imager.Password
		out.SSHKeys = append([]string(nil), imager.SSHKeys...)
		out.SSHPasswordLogin, out.SudoNoPassword, out.SSH = imager.SSHPasswordLogin, imager.SudoNoPassword, imager.SSH
	})
	group("Wi-Fi", imager.WifiSSIDHex != "" || imager.WifiSSID != "", txt.WifiSSID != "" || txt.WifiSSIDHex != "", func() {
		out.WifiSSID, out.WifiSSIDHex = imager.WifiSSID, imager.WifiSSIDHex
		out.WifiPSK, out.WifiHidden = imager.WifiPSK, imager.WifiHidden
		// Imager leaves the country out when none was chosen; the network
		// cannot come up without one, so firstboot.txt's still counts.
		if imager.WifiCountry != "" {
			out.WifiCountry = imager.WifiCountry
		}
	})
	group("time zone", imager.Timezone != "", txt.Timezone != "", func() { out.Timezone = imager.Timezone })
	group("keyboard", imager.KeyboardLayout != "", txt.KeyboardLayout != "", func() {
		out.KeyboardLayout, out.KeyboardModel = imager.KeyboardLayout, imager.KeyboardModel
	})
	return out, from
}

// Format writes s in firstboot.txt's form, each value in quotes (the
// reader takes one pair off, so spaces at either end survive). Values are
// one line by construction: both readers refuse line breaks.
func Format(s Settings) []byte {
	var b strings.Builder
	b.WriteString("# claude-pi firstboot settings: the settings this first boot applies\n")
	for _, k := range txtKeys {
		if v := *k.field(&s); v != "" {
			fmt.Fprintf(&b, "%s = \"%s\"\n", k.key, oneLine(v))
		}
		if k.key == "password" {
			for _, key := range s.SSHKeys {
				fmt.Fprintf(&b, "ssh_key = \"%s\"\n", oneLine(key))
			}
		}
	}
	return []byte(b.String())
}

// oneLine is a guard: a line break here would let a value write a key.
func oneLine(v string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == 0 {
			return ' '
		}
		return r
	}, v)
}
