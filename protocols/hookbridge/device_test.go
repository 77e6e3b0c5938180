package hookbridge

import (
	"testing"

	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
)

// The hook names the Pi as the desktop and the screens do.
func TestDefaultDeviceIsTheAppliancesName(t *testing.T) {
	if DefaultDevice != pbuddy.DeviceName {
		t.Errorf("DefaultDevice = %q, want protocols/buddy's DeviceName %q", DefaultDevice, pbuddy.DeviceName)
	}
	if got, want := DenyMessage("", ""), "Denied on "+pbuddy.DeviceName+"."; got != want {
		t.Errorf("DenyMessage with no device = %q, want %q", got, want)
	}
}
