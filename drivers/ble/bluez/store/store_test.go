package store

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/drivers/storage/statefile"
)

const (
	adapter = "DC:A6:32:01:02:03"
	desktop = "F0:18:98:AA:BB:CC"
	other   = "F0:18:98:AA:BB:DD"
)

var at = time.Date(2026, 12, 5, 3, 4, 5, 0, time.UTC)

// tree writes files (slash-separated path -> content) under a new root.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const whole = "[General]\nName=desk\n\n[LongTermKey]\nKey=00112233445566778899AABBCCDDEEFF\n"

func TestFilesListsBluetoothdsKeyFiles(t *testing.T) {
	root := tree(t, map[string]string{
		"addresses":                        "[Static]\n",
		adapter + "/settings":              "[General]\nAlias=Claude_Pi\n",
		adapter + "/attributes":            "[0001]\n",
		adapter + "/settings.K3X9QZ":       "a GLib temporary file",
		adapter + "/settings.damaged-x":    "a copy",
		adapter + "/cache/" + desktop:      "[General]\nName=MacBook\n",
		adapter + "/cache/notes":           "not an address",
		adapter + "/" + desktop + "/info":  whole,
		adapter + "/" + desktop + "/ccc":   "[Notify]\n",
		adapter + "/" + desktop + "/other": "not bluetoothd's",
		"not-an-address/settings":          "x",
		"DC:A6:32:01:02/settings":          "too short for an address",
	})
	got, err := Files(root)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	want := []string{
		adapter + "/" + desktop + "/ccc", adapter + "/" + desktop + "/info",
		adapter + "/attributes", adapter + "/cache/" + desktop, adapter + "/settings", "addresses",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Files = %q\nwant    %q", got, want)
	}
}

// A zero-filled bond and an empty settings file are set aside into the
// appliance's data directory, where statefile.List reports them; whole
// files stay where they are, byte for byte.
func TestSetAsideDamaged(t *testing.T) {
	zeros := strings.Repeat("\x00", len(whole))
	root := tree(t, map[string]string{
		adapter + "/settings":             "",
		adapter + "/" + desktop + "/info": zeros,
		adapter + "/" + other + "/info":   whole,
		adapter + "/cache/" + desktop:     "[General]\nName=Mac\x00\x00\x00",
	})
	data := t.TempDir()
	got, err := SetAsideDamaged(root, filepath.Join(data, "bluetooth"), at)
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]statefile.Reason{}
	for _, d := range got {
		reasons[d.File] = d.Reason
		if d.Err == nil || d.Copy == "" || d.AsideErr != nil {
			t.Errorf("%+v", d)
		}
	}
	want := map[string]statefile.Reason{
		"bluetooth/" + adapter + "_settings":             statefile.Empty,
		"bluetooth/" + adapter + "_" + desktop + "_info": statefile.Zeroed,
		"bluetooth/" + adapter + "_cache_" + desktop:     statefile.Invalid,
	}
	if len(reasons) != len(want) {
		t.Fatalf("set aside %v, want %v", reasons, want)
	}
	for f, r := range want {
		if reasons[f] != r {
			t.Errorf("%s: %q, want %q", f, reasons[f], r)
		}
	}
	for _, gone := range []string{adapter + "/settings", adapter + "/" + desktop + "/info", adapter + "/cache/" + desktop} {
		if _, err := os.Lstat(filepath.Join(root, gone)); !os.IsNotExist(err) {
			t.Errorf("%s still in bluetoothd's directory: %v", gone, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(root, adapter, other, "info")); err != nil || string(b) != whole {
		t.Errorf("the whole bond was touched: %q %v", b, err)
	}
	// The copy holds the damaged bytes, and List reports all three.
	listed, err := statefile.List(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(listed) != 3 {
		t.Fatalf("List = %+v", listed)
	}
	for _, d := range listed {
		if reasons[d.File] != d.Reason || !d.At.Equal(at) {
			t.Errorf("List: %+v", d)
		}
		if d.File == "bluetooth/"+adapter+"_"+desktop+"_info" {
			if b, _ := os.ReadFile(d.Copy); string(b) != zeros {
				t.Errorf("copy %s: %q", d.Copy, b)
			}
		}
	}
	// Run again (the next boot): nothing more to do, and nothing lost.
	again, err := SetAsideDamaged(root, filepath.Join(data, "bluetooth"), at.Add(time.Minute))
	if err != nil || len(again) != 0 {
		t.Errorf("second run: %+v %v", again, err)
	}
}

// The same file damaged on many boots keeps only the newest copies.
func TestSetAsideDamagedKeepsTheNewestCopies(t *testing.T) {
	data := t.TempDir()
	root := t.TempDir()
	info := filepath.Join(root, adapter, desktop, "info")
	for i := range statefile.KeepCopies + 3 {
		if err := os.MkdirAll(filepath.Dir(info), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(info, make([]byte, 100), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := SetAsideDamaged(root, filepath.Join(data, "bluetooth"), at.Add(time.Duration(i)*time.Hour))
		if err != nil || len(got) != 1 {
			t.Fatalf("boot %d: %+v %v", i, got, err)
		}
	}
	listed, _ := statefile.List(data)
	if len(listed) != statefile.KeepCopies {
		t.Fatalf("%d copies kept, want %d", len(listed), statefile.KeepCopies)
	}
	if newest := listed[len(listed)-1].At; !newest.Equal(at.Add(time.Duration(statefile.KeepCopies+2) * time.Hour)) {
		t.Errorf("newest copy %v", newest)
	}
}

// No storage directory (bluetoothd never ran) is an error naming it, and
// nothing is made.
func TestSetAsideDamagedNoRoot(t *testing.T) {
	data := t.TempDir()
	_, err := SetAsideDamaged(filepath.Join(data, "missing"), filepath.Join(data, "bluetooth"), at)
	if err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("err = %v", err)
	}
	if _, err := os.Lstat(filepath.Join(data, "bluetooth")); !os.IsNotExist(err) {
		t.Errorf("made the aside directory anyway: %v", err)
	}
}

func TestIsAddress(t *testing.T) {
	for s, want := range map[string]bool{
		adapter: true, "dc:a6:32:01:02:03": true, "DC:A6:32:01:02:0G": false,
		"DC-A6-32-01-02-03": false, "DC:A6:32:01:02": false, "cache": false,
	} {
		if isAddress(s) != want {
			t.Errorf("isAddress(%q) = %v", s, !want)
		}
	}
}

func TestLabel(t *testing.T) {
	for file, want := range map[string]string{
		"bluetooth/" + adapter + "_" + desktop + "_info":  "Bluetooth bond " + desktop,
		"bluetooth/" + adapter + "_" + desktop + "_ccc":   "Bluetooth ccc " + desktop,
		"bluetooth/" + adapter + "_cache_" + desktop:      "Bluetooth name cache " + desktop,
		"bluetooth/" + adapter + "_settings":              "Bluetooth settings",
		"bluetooth/" + adapter + "_admin_policy_settings": "Bluetooth admin policy settings",
		"bluetooth/addresses":                             "bluetooth/addresses",
		"lan/clients.json":                                "lan/clients.json",
	} {
		if got := Label(file); got != want {
			t.Errorf("Label(%q) = %q, want %q", file, got, want)
		}
	}
}
