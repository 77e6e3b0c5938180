package ui

import (
	"slices"
	"time"

	"github.com/claude-pi/claude-pi/drivers/ble/bluez/store"
	"github.com/claude-pi/claude-pi/drivers/storage/statefile"
)

// setAsideEvery is how often the System page re-reads the set-aside
// copies while it shows: a service sets a file aside when it starts,
// so a few seconds' delay costs nothing, and the panel's frames do not
// each list two directories.
const setAsideEvery = 5 * time.Second

// setAsideCopies is the data directory's set-aside copies
// (statefile.List), read at most every setAsideEvery.
func (a *Actor) setAsideCopies(now time.Time) []statefile.Damage {
	if a.cfg.DataDir == "" || (!a.setAsideRead.IsZero() && now.Sub(a.setAsideRead) < setAsideEvery && now.After(a.setAsideRead)) {
		return a.setAside
	}
	list, err := statefile.List(a.cfg.DataDir)
	if err != nil {
		a.h.Logger().Warn("listing set-aside files: the System page shows what was read", "err", err)
	}
	a.setAside, a.setAsideRead = list, now
	return list
}

// setAsideRow is the System page's "Set aside" value: the newest copy,
// "lan/clients.json: invalid JSON, 5 min ago" ("Bluetooth bond
// F0:18:98:AA:BB:CC: zero-filled, 1 h ago" for bluetoothd's), and how
// many more; "" for
// none. The copies stay until someone removes them, as doctor says.
func setAsideRow(list []statefile.Damage, now time.Time) string {
	if len(list) == 0 {
		return ""
	}
	names := make([]string, 0, len(list))
	for _, d := range slices.Backward(list) {
		names = append(names, store.Label(d.File)+": "+string(d.Reason)+", "+agoShort(now, d.At))
	}
	return firstAndCount(names)
}
