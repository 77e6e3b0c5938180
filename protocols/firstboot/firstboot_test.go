package firstboot

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

// The testdata/ seeds are written by hand in the exact shapes Imager's
// CustomisationGenerator emits (rpi-imager 72ad1179): "#cloud-config" then
// "manage_resolv_conf: false" and a blank line, no other blank lines (its
// push() drops empty lines), 2-space indents, the hash and keys in double
// quotes, netplan v2 with eth0 beside wlan0, a PBKDF2 key in hex.
func readSeed(t *testing.T, dir string) Seed {
	t.Helper()
	var seed Seed
	for name, dst := range map[string]*[]byte{"user-data": &seed.UserData, "network-config": &seed.NetworkConfig, "meta-data": &seed.MetaData} {
		b, err := os.ReadFile("testdata/" + dir + "/" + name)
		if err == nil {
			*dst = b
		} else if !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	return seed
}

func TestImagerFullSettings(t *testing.T) {
	s, errs := ParseSeed(readSeed(t, "full"))
	if errs != nil {
		t.Fatal(errs)
	}
	want := Settings{
		Hostname:         "deskpi",
		User:             "ada",
		PasswordHash:     "$y$j9T$Hq0TcMFJrNvkI8bJ5f7wL/$0bYvZ3mCq1qk1wD7rHqzNQn8m0K3Vh8jzYtJ4nKpZ.A",
		SSHKeys:          []string{"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGv3Vq2m6B7iQy8T0nq5n6X5L4e3E1kK1kJ7m9wW0dAx ada@laptop", "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTY= ada@other"},
		SSHPasswordLogin: "yes",
		SSH:              "yes",
		WifiCountry:      "GB",
		WifiSSID:         "Home Network",
		WifiSSIDHex:      "486f6d65204e6574776f726b",
		WifiPSK:          "5f1a1b0c6e2b6dbb8e2f0a6d9a4c7c0f3e1d2b4a69788f0e1d2c3b4a59687f0e",
		WifiHidden:       "yes",
		Timezone:         "Europe/London",
		KeyboardLayout:   "gb",
		KeyboardModel:    "pc105",
		InstanceID:       "rpi-imager-1764870000123",
	}
	notes := s.Notes
	s.Notes = nil
	if !reflect.DeepEqual(s, want) {
		t.Fatalf("got  %+v\nwant %+v", s, want)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "apt not applied") {
		t.Fatalf("notes %q, want only apt's", notes)
	}
}

func TestImagerKeyOnlyUserWithPasswordlessSudo(t *testing.T) {
	s, errs := ParseSeed(readSeed(t, "keyonly"))
	if errs != nil {
		t.Fatal(errs)
	}
	if s.User != "grace" || s.PasswordHash != "" || len(s.SSHKeys) != 1 || s.SSHPasswordLogin != "no" || s.SudoNoPassword != "yes" || s.SSH != "yes" {
		t.Fatalf("got %+v", s)
	}
	if s.WifiSSIDHex != "" || s.Timezone != "" || s.KeyboardLayout != "" {
		t.Fatalf("settings Imager did not write: %+v", s)
	}
	all := strings.Join(s.Notes, "\n")
	for _, want := range []string{"rpi (I2C", "Raspberry Pi Connect not set up"} {
		if !strings.Contains(all, want) {
			t.Errorf("notes lack %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "not run") {
		t.Errorf("a command Imager writes was reported as unknown:\n%s", all)
	}
}

func TestImagerOpenNetworkWithEscapedSSID(t *testing.T) {
	s, errs := ParseSeed(readSeed(t, "open"))
	if errs != nil {
		t.Fatal(errs)
	}
	// "Caf\xc3\xa9 \"Gast\"": Imager's \xHH are octets, so this is the
	// UTF-8 of "Café" and a quoted word; the quotes make it hex-only.
	if s.WifiSSIDHex != "436166c3a920224761737422" || s.WifiSSID != "" || s.WifiPSK != "" || s.WifiCountry != "DE" {
		t.Fatalf("got %+v", s)
	}
	if s.User != "" || s.Hostname != "" {
		t.Fatalf("no user-data, yet %+v", s)
	}
}

func TestSSIDOctetsAreBytes(t *testing.T) {
	var s Settings
	err := ParseNetworkConfig([]byte("network:\n  version: 2\n  wifis:\n    wlan0:\n      access-points:\n        \"Caf\\xc3\\xa9\":\n          password: \"correct horse\"\n"), &s)
	if err != nil {
		t.Fatal(err)
	}
	if s.WifiSSID != "Café" || s.WifiSSIDHex != "436166c3a9" || s.WifiPSK != "correct horse" || s.WifiCountry != "" {
		t.Fatalf("got %+v", s)
	}
}

func TestBadSeedsSayWhereAndWhy(t *testing.T) {
	for _, tt := range []struct {
		name, file, text, want string
	}{
		{"no header", "user-data", "hostname: a\n", "first line is not #cloud-config"},
		{"tab", "user-data", "#cloud-config\nuser:\n\tname: a\n", "line 3: a tab"},
		{"anchor", "user-data", "#cloud-config\nhostname: &h a\n", "line 2: \"&h a\": flow mappings, anchors"},
		{"duplicate", "user-data", "#cloud-config\nhostname: a\nhostname: b\n", "line 3: key \"hostname\" appears twice"},
		{"open quote", "user-data", "#cloud-config\nuser:\n  name: a\n  passwd: \"$6$x\n", "line 4: a double-quoted value is not closed"},
		{"unescaped quote", "user-data", "#cloud-config\nuser:\n  name: a\n  ssh_authorized_keys:\n    - \"ssh-ed25519 AAAA a\"b\"\n", "line 5: \"b\\\"\" after the closing quote"},
		{"not a hash", "user-data", "#cloud-config\nuser:\n  name: a\n  passwd: \"hunter2\"\n", "line 4: passwd: not a crypt(3) hash"},
		{"hostname map", "user-data", "#cloud-config\nhostname:\n  a: b\n", "hostname: want a value, got a mapping"},
		{"users", "user-data", "#cloud-config\nusers:\n  - default\n", "Imager writes user:"},
		{"indent", "user-data", "#cloud-config\nhostname: a\n  timezone: b\n", "line 3: unexpected indentation"},
		{"version", "network-config", "network:\n  version: 1\n", "version: \"1\": want 2"},
		{"two networks", "network-config", "network:\n  version: 2\n  wifis:\n    wlan0:\n      access-points:\n        \"a\":\n          password: \"12345678\"\n        \"b\":\n          password: \"12345678\"\n", "2 networks"},
		{"short psk", "network-config", "network:\n  version: 2\n  wifis:\n    wlan0:\n      access-points:\n        \"a\":\n          password: \"short\"\n", "got 5 characters"},
		{"nul", "meta-data", "instance-id: a\x00\n", "control characters"},
		{"huge", "meta-data", strings.Repeat("#", maxInput+1), "more than the 65536"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var seed Seed
			switch tt.file {
			case "user-data":
				seed.UserData = []byte(tt.text)
			case "network-config":
				seed.NetworkConfig = []byte(tt.text)
			default:
				seed.MetaData = []byte(tt.text)
			}
			s, errs := ParseSeed(seed)
			if len(errs) != 1 {
				t.Fatalf("errors %v, want one", errs)
			}
			var se *SeedError
			if !errors.As(errs[0], &se) || se.File != tt.file {
				t.Fatalf("%v: want a SeedError for %s", errs[0], tt.file)
			}
			if !strings.Contains(errs[0].Error(), tt.want) {
				t.Fatalf("%q does not say %q", errs[0], tt.want)
			}
			if s.Hostname != "" || s.User != "" || s.WifiSSIDHex != "" {
				t.Fatalf("a bad file still set %+v", s)
			}
		})
	}
}

func TestUnknownKeysAreNotedNotApplied(t *testing.T) {
	var s Settings
	err := ParseUserData([]byte("#cloud-config\nhostname: a\nwrite_files:\n  - path: /etc/x\nruncmd:\n  - [ rm, -rf, / ]\n  - touch /x\n"), &s)
	if err == nil || !strings.Contains(err.Error(), "a mapping inside a list item") {
		t.Fatalf("err %v", err)
	}
	s = Settings{}
	if err := ParseUserData([]byte("#cloud-config\nhostname: a\nbootcmd:\n  - reboot\nruncmd:\n  - [ rm, -rf, / ]\n  - touch /x\n"), &s); err != nil {
		t.Fatal(err)
	}
	all := strings.Join(s.Notes, "\n")
	for _, want := range []string{"bootcmd not applied", "line 6: runcmd \"rm -rf /\" not run", "line 7: runcmd \"touch /x\" not run"} {
		if !strings.Contains(all, want) {
			t.Errorf("notes lack %q:\n%s", want, all)
		}
	}
	if s.Hostname != "a" {
		t.Fatalf("hostname %q", s.Hostname)
	}
}

func TestImagerWinsGroupByGroup(t *testing.T) {
	txt := ParseTxt([]byte("hostname = claude-pi\nuser = pi\npassword = secret\nssh_key = ssh-ed25519 AAAA pi@x\nwifi_country = US\nwifi_ssid = Old\nwifi_psk = oldpassphrase\ntimezone = America/New_York\n"))
	imager, errs := ParseSeed(readSeed(t, "open"))
	if errs != nil {
		t.Fatal(errs)
	}
	imager.Hostname = "deskpi"
	got, from := Merge(imager, txt)
	if got.Hostname != "deskpi" || from["hostname"] != FromImager {
		t.Fatalf("hostname %q from %q", got.Hostname, from["hostname"])
	}
	// Imager's open network keeps no passphrase of firstboot.txt's.
	if got.WifiPSK != "" || got.WifiCountry != "DE" || got.WifiSSID != "" || from["Wi-Fi"] != FromImager {
		t.Fatalf("Wi-Fi %+v from %q", got, from["Wi-Fi"])
	}
	// Imager set no user and no time zone: firstboot.txt's stand.
	if got.User != "pi" || got.Password != "secret" || len(got.SSHKeys) != 1 || from["user"] != FromTxt || got.Timezone != "America/New_York" {
		t.Fatalf("user %+v from %q", got, from["user"])
	}
	if _, ok := from["keyboard"]; ok {
		t.Fatalf("keyboard set by nobody, yet from %q", from["keyboard"])
	}
	if !strings.Contains(strings.Join(got.Notes, "\n"), "firstboot.txt's Wi-Fi settings not applied") {
		t.Fatalf("notes %q", got.Notes)
	}
}

func TestFormatReadsBackAsTxt(t *testing.T) {
	s, errs := ParseSeed(readSeed(t, "full"))
	if errs != nil {
		t.Fatal(errs)
	}
	out := Format(s)
	for _, want := range []string{"hostname = \"deskpi\"\n", "password_hash = \"$y$j9T$", "ssh_key = \"ecdsa-sha2-nistp256 ", "wifi_hidden = \"yes\"\n", "keyboard_layout = \"gb\"\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("%s\nlacks %q", out, want)
		}
	}
	back := ParseTxt(out)
	s.Notes, s.InstanceID = nil, ""
	if !reflect.DeepEqual(back, s) {
		t.Fatalf("read back %+v\nwant      %+v", back, s)
	}
}

func TestTxtKeepsTheShellScriptsRules(t *testing.T) {
	s := ParseTxt([]byte("# c\r\nhostname = 'one'\r\nhostname=two  \nssh_key = a\nssh_key = \"b c\"\nwifi_ssid = \" spaced \"\nnonsense\ncolour = red\n"))
	if s.Hostname != "two" || !reflect.DeepEqual(s.SSHKeys, []string{"a", "b c"}) || s.WifiSSID != " spaced " {
		t.Fatalf("got %+v", s)
	}
	if len(s.Notes) != 2 || !strings.Contains(s.Notes[0], "line 7: want key = value") || !strings.Contains(s.Notes[1], "unknown key \"colour\"") {
		t.Fatalf("notes %q", s.Notes)
	}
}

// Imager's SSH box unticked: a user, and no "systemctl enable --now ssh"
// (Imager writes that line exactly when the box is ticked).
func TestImagerSSHOff(t *testing.T) {
	s, errs := ParseSeed(readSeed(t, "sshoff"))
	if errs != nil {
		t.Fatal(errs)
	}
	if s.SSH != "no" || s.User != "lin" || !strings.HasPrefix(s.PasswordHash, "$5$QUIETsalt1$") || s.SSHPasswordLogin != "" {
		t.Fatalf("got %+v", s)
	}
	if !strings.Contains(string(Format(s)), "ssh = \"no\"\n") {
		t.Fatalf("Format:\n%s", Format(s))
	}
}

// Imager without a country: firstboot.txt's lets the network come up.
func TestImagerWifiWithoutCountryTakesTxts(t *testing.T) {
	var imager Settings
	if err := ParseNetworkConfig([]byte("network:\n  version: 2\n  wifis:\n    wlan0:\n      access-points:\n        \"n\":\n          password: \"12345678\"\n"), &imager); err != nil {
		t.Fatal(err)
	}
	got, _ := Merge(imager, ParseTxt([]byte("wifi_country = NZ\nwifi_ssid = other\n")))
	if got.WifiCountry != "NZ" || got.WifiSSID != "n" || got.WifiPSK != "12345678" {
		t.Fatalf("got %+v", got)
	}
	if got, _ := Merge(imager, Settings{}); got.WifiCountry != "" {
		t.Fatalf("a country from nowhere: %q", got.WifiCountry)
	}
}
