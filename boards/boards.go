// Package boards knows which boards the appliance runs on and recognises
// the machine it is on. Each board has its own subpackage (boards/sim, and
// one per supported HAT); this package only names and detects them.
package boards

import (
	"os"
	"path/filepath"
	"strings"
)

// modelFiles hold the device-tree model string, e.g. "Raspberry Pi Zero 2
// W Rev 1.0". Kernels expose it in both places; containers sometimes hide
// /proc/device-tree but keep /sys.
var modelFiles = []string{
	"proc/device-tree/model",
	"sys/firmware/devicetree/base/model",
}

// PiModel reports whether the machine whose root file system is at root
// ("/" normally; a temporary directory in tests) is a Raspberry Pi, and
// its model string.
func PiModel(root string) (model string, ok bool) {
	for _, f := range modelFiles {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			continue
		}
		m := strings.TrimSpace(strings.TrimRight(string(b), "\x00"))
		if strings.Contains(m, "Raspberry Pi") {
			return m, true
		}
	}
	return "", false
}
