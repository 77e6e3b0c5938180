package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// imagerBoot is a boot partition as Imager leaves it for init_format
// cloudinit-rpi (the seeds of protocols/firstboot's testdata), with the
// image's firstboot.txt and its default hostname beside them.
func imagerBoot(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"user-data", "network-config", "meta-data"} {
		b, err := os.ReadFile(filepath.Join("../../protocols/firstboot/testdata/full", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	txt := "hostname = claude-pi\nwifi_country = US\nwifi_ssid = Old\nwifi_psk = old passphrase\ntimezone = UTC\n"
	if err := os.WriteFile(filepath.Join(dir, "firstboot.txt"), []byte(txt), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestFirstbootSettingsPrefersImager(t *testing.T) {
	dir := imagerBoot(t)
	var out, errOut bytes.Buffer
	if err := firstbootSettingsCommand(context.Background(), []string{"--boot", dir}, nil, &out, &errOut); err != nil {
		t.Fatal(err, errOut.String())
	}
	for _, want := range []string{"hostname = \"deskpi\"\n", "user = \"ada\"\n", "wifi_ssid = \"Home Network\"\n", "wifi_country = \"GB\"\n", "timezone = \"Europe/London\"\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "old passphrase") {
		t.Errorf("firstboot.txt's Wi-Fi key leaked into Imager's network:\n%s", out.String())
	}
	for _, want := range []string{"instance \"rpi-imager-1764870000123\"", "hostname: from Raspberry Pi Imager", "firstboot.txt's Wi-Fi settings not applied"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
		}
	}
}

func TestFirstbootSettingsSkipsABadSeedFile(t *testing.T) {
	dir := imagerBoot(t)
	if err := os.WriteFile(filepath.Join(dir, "network-config"), []byte("network:\n\tversion: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if err := firstbootSettingsCommand(context.Background(), []string{"--boot", dir}, nil, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "network-config: line 2: a tab in the indentation") {
		t.Fatalf("stderr:\n%s", errOut.String())
	}
	// user-data still counts; Wi-Fi falls back to firstboot.txt's.
	if !strings.Contains(out.String(), "user = \"ada\"") || !strings.Contains(out.String(), "wifi_ssid = \"Old\"") {
		t.Fatalf("stdout:\n%s", out.String())
	}
}

func TestFirstbootSettingsWithoutImager(t *testing.T) {
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	if err := os.WriteFile(filepath.Join(dir, "firstboot.txt"), []byte("user = pi\npassword_hash = $6$x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := firstbootSettingsCommand(context.Background(), []string{"--boot", dir}, nil, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "password_hash = \"$6$x\"") || strings.Contains(errOut.String(), "Imager's settings") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	}
}

func TestFirstbootScrubRemovesImagersFiles(t *testing.T) {
	dir := imagerBoot(t)
	var out, errOut bytes.Buffer
	if err := firstbootScrubCommand(context.Background(), []string{"--boot", dir}, nil, &out, &errOut); err != nil {
		t.Fatal(err, errOut.String())
	}
	for _, name := range []string{"user-data", "network-config", "meta-data"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s still there (%v)", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "firstboot.txt")); err != nil {
		t.Errorf("firstboot.txt is the shell script's to scrub: %v", err)
	}
	if !strings.Contains(out.String(), "removed 3") {
		t.Fatalf("stdout %q", out.String())
	}
	// A second run finds nothing and says nothing.
	out.Reset()
	if err := firstbootScrubCommand(context.Background(), []string{"--boot", dir}, nil, &out, &errOut); err != nil || out.Len() != 0 {
		t.Fatalf("second run: %v %q", err, out.String())
	}
}

// The overwrite is what keeps the secret off the card: the file's bytes
// are replaced where they lie before it is removed.
func TestScrubFileOverwritesBeforeRemoving(t *testing.T) {
	path := filepath.Join(t.TempDir(), "network-config")
	if err := os.WriteFile(path, []byte("password: \"secret\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A second name for the same bytes sees what the overwrite left.
	link := path + ".link"
	if err := os.Link(path, link); err != nil {
		t.Skip("no hard links here:", err)
	}
	if ok, err := scrubFile(path); !ok || err != nil {
		t.Fatal(ok, err)
	}
	b, err := os.ReadFile(link)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != strings.Repeat("#", len(b)-1)+"\n" || len(b) != 19 {
		t.Fatalf("left %q", b)
	}
}
