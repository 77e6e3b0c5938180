package hci

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseAdapter is N of an adapter named as BlueZ, `bluetoothctl list` and
// `hciconfig` name it ("hci0"): the device index Options.Device opens.
// "" is hci0.
func ParseAdapter(name string) (int, error) {
	if name == "" {
		return 0, nil
	}
	n, ok := strings.CutPrefix(name, "hci")
	if ok && n != "" && len(n) <= 3 && strings.Trim(n, "0123456789") == "" {
		if i, err := strconv.Atoi(n); err == nil {
			return i, nil
		}
	}
	return 0, fmt.Errorf("hci: adapter %q: name it as `bluetoothctl list` and `hciconfig` do, e.g. \"hci0\"", name)
}
