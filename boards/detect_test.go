package boards

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, s := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// A /hat node as the firmware writes it: NUL-terminated strings.
func hatNode(dir, vendor, product, uuid string) map[string]string {
	return map[string]string{
		dir + "/vendor": vendor + "\x00", dir + "/product": product + "\x00", dir + "/uuid": uuid + "\x00",
		dir + "/product_id": "0x0001\x00", dir + "/product_ver": "0x0002\x00",
	}
}

func TestDetect(t *testing.T) {
	ids := []hatID{
		{Vendor: "Example Ltd.", Product: "Buddy HAT", Board: "display-hat-mini"},
		{UUID: "6f2b6c1e-0b7a-4c1d-9e3f-2a1b0c9d8e7f", Board: "pirate-audio"},
	}
	tests := []struct {
		name      string
		files     map[string]string
		board     string
		how       string
		hatVendor string
	}{
		{"no EEPROM", map[string]string{"proc/device-tree/model": "Raspberry Pi 4 Model B Rev 1.4\x00"}, "",
			"no HAT ID EEPROM (no /proc/device-tree/hat)", ""},
		{"by vendor and product", hatNode("proc/device-tree/hat", "Example Ltd.", "Buddy HAT", "00000000-0000-0000-0000-000000000001"),
			"display-hat-mini", `chosen by the HAT's ID EEPROM (vendor "Example Ltd.", product "Buddy HAT", uuid 00000000-`, "Example Ltd."},
		{"by uuid, any case, under /sys", hatNode("sys/firmware/devicetree/base/hat", "Other", "Thing", "6F2B6C1E-0B7A-4C1D-9E3F-2A1B0C9D8E7F"),
			"pirate-audio", "chosen by the HAT's ID EEPROM", "Other"},
		{"a HAT without a profile", hatNode("proc/device-tree/hat", "Pimoroni Ltd.", "Unicorn HAT", ""),
			"", `a HAT ID EEPROM says vendor "Pimoroni Ltd.", product "Unicorn HAT", not a HAT claude-pi has a profile for`, "Pimoroni Ltd."},
		{"product alone does not match", hatNode("proc/device-tree/hat", "Someone Else", "Buddy HAT", ""),
			"", "not a HAT claude-pi has a profile for", "Someone Else"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := detect(writeTree(t, tt.files), ids)
			if d.Board != tt.board || !strings.Contains(d.How, tt.how) {
				t.Fatalf("detect = %q, %q; want %q, ...%q...", d.Board, d.How, tt.board, tt.how)
			}
			if tt.hatVendor == "" && d.HAT != nil || tt.hatVendor != "" && (d.HAT == nil || d.HAT.Vendor != tt.hatVendor || d.HAT.ProductID != "0x0001") {
				t.Fatalf("HAT %+v, want vendor %q", d.HAT, tt.hatVendor)
			}
		})
	}
}

// Today's boards have no EEPROM, so Detect never picks one: the setting
// stays needed, and the reason names them.
func TestDetectTodaysBoardsNeedTheSetting(t *testing.T) {
	d := Detect(t.TempDir())
	if d.Board != "" || !strings.Contains(d.How, "boards display-hat-mini, pirate-audio, waveshare-lcd13 carry none") {
		t.Fatalf("Detect = %+v", d)
	}
	known := map[string]bool{}
	for _, id := range hatIDs {
		if _, err := Lookup(id.Board); err != nil || id.Board == "sim" {
			t.Errorf("hatIDs row %+v: %v", id, err)
		}
		known[id.Board] = true
	}
	for _, name := range noEEPROM {
		known[name] = true
	}
	for _, p := range profiles {
		if !p.Simulated && !known[p.Name] {
			t.Errorf("board %s is neither in hatIDs nor in noEEPROM: say whether its HAT can be told", p.Name)
		}
	}
}
