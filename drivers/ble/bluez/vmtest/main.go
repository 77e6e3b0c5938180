//go:build linux

// Command vmtest runs inside the QEMU guests of the BlueZ VM test (run.sh):
// Linux's own Bluetooth stack, a real bluetoothd, and btvirt's emulated LE
// controllers, with claude-pi as the peripheral.
//
//	vmtest relay TTY SOCKET   H4 between the desk guest's serial line and btvirt
//	vmtest pi SHARE           the appliance: claude-pi --board sim, backend bluez
//	vmtest desk SHARE         the desktop: a central over bluetoothd's D-Bus API
//
// The two guests meet on a control line (ctl.go): the pi sends what its
// screen shows (the passkey among it) and the desk reads it there, as a
// person would read the panel. SHARE, a folder of the host both mount over
// 9p, keeps the logs and the desk's scenario filter.
package main

import (
	"fmt"
	"os"
	"time"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: vmtest relay TTY SOCKET | vmtest pi SHARE | vmtest desk SHARE")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "relay":
		if len(os.Args) != 4 {
			err = fmt.Errorf("usage: vmtest relay TTY SOCKET")
			break
		}
		err = relay(os.Args[2], os.Args[3])
	case "pi":
		err = runPi(os.Args[2])
	case "desk":
		err = runDesk(os.Args[2])
	default:
		err = fmt.Errorf("unknown role %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "vmtest:", err)
		os.Exit(1)
	}
}

var start = time.Now()

// logf prints with the guest's uptime, so the two guests' logs line up
// roughly with each other and with btmon's timestamps.
func logf(format string, args ...any) {
	fmt.Printf("vmtest[%6.1fs] %s\n", time.Since(start).Seconds(), fmt.Sprintf(format, args...))
}

// waitFor polls cond every 100 ms until it holds or d passes.
func waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// shared is what the pi guest sends on the control line several times a
// second: the appliance's screen state from /api/state and bluetoothd's view.
type shared struct {
	Adapters  map[string]string `json:"adapters"`  // hci0 -> address
	Adverts   map[string]int    `json:"adverts"`   // hci0 -> active advertising instances
	Bonds     int               `json:"bonds"`     // paired devices on the pi's bluetoothd
	Devices   int               `json:"devices"`   // device objects of any kind there
	Link      screenLink        `json:"link"`      // what the screen shows of the BLE link
	Passkeys  int               `json:"passkeys"`  // how many passkeys the screen has shown
	Passkey   string            `json:"passkey"`   // the latest one
	Adapter   string            `json:"adapter"`   // [ble] adapter claude-pi runs with
	Running   bool              `json:"running"`   // claude-pi is up
	Requests  int               `json:"requests"`  // desk requests handled
	Shows     string            `json:"shows"`     // the screen: "home", "approval", "passkey", ...
	Prompt    screenPrompt      `json:"prompt"`    // the prompt the buttons act on
	Forget    *screenForget     `json:"forget"`    // the forget-pairing flow, nil when it is not on
	UpdatedAt float64           `json:"updatedAt"` // pi uptime, to see it is alive
}

// screenPrompt is the prompt on the approval screen, as /api/state has it.
type screenPrompt struct {
	ID           string `json:"id"`
	Decided      bool   `json:"decided"`      // "sent…"
	Reconnecting bool   `json:"reconnecting"` // "reconnecting…": the buttons do nothing
}

type screenLink struct {
	Advertising bool   `json:"advertising"`
	Connected   bool   `json:"connected"`
	Central     string `json:"central"`
	Subscribed  bool   `json:"subscribed"`
	Secured     bool   `json:"secured"`
	MTU         int    `json:"mtu"`
	Passkey     string `json:"passkey"`
}

// request is what the desk asks the pi guest to do (on the control line):
// one of these, numbered so that each is done once.
type request struct {
	N       int    `json:"n"`
	Adapter string `json:"adapter,omitempty"` // restart claude-pi with [ble] adapter = this
	Press   string `json:"press,omitempty"`   // press this sim button, as a person at the Pi
	HoldMs  int    `json:"holdMs,omitempty"`  // ... held this long (a long press), ending now
	// SC sets the pi's adapter's Secure Connections mode (mgmt.go):
	// "only" is the image's SecureConnections = only, "on" BlueZ's default.
	SC string `json:"sc,omitempty"`
	// RemoveBonds removes every device of the pi's bluetoothd, as
	// `bluetoothctl remove` would (a bond NUS cannot reach to unpair).
	RemoveBonds bool `json:"removeBonds,omitempty"`
}
