package boards

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPiModel(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		model string
		ok    bool
	}{
		{"no device tree", nil, "", false},
		{"pi via proc", map[string]string{"proc/device-tree/model": "Raspberry Pi Zero 2 W Rev 1.0\x00"}, "Raspberry Pi Zero 2 W Rev 1.0", true},
		{"pi via sys", map[string]string{"sys/firmware/devicetree/base/model": "Raspberry Pi 4 Model B Rev 1.4\x00"}, "Raspberry Pi 4 Model B Rev 1.4", true},
		{"other arm board", map[string]string{"proc/device-tree/model": "Pine64 RockPro64\x00"}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for p, s := range tt.files {
				full := filepath.Join(root, p)
				if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			model, ok := PiModel(root)
			if model != tt.model || ok != tt.ok {
				t.Errorf("PiModel = %q, %v; want %q, %v", model, ok, tt.model, tt.ok)
			}
		})
	}
}
