package cli

import (
	"os"
	"strings"

	"github.com/claude-pi/claude-pi/drivers/storage/statefile"
)

// stateFiles reports the kept files the appliance set aside as damaged
// (drivers/storage/statefile): one WARN each, since the appliance has
// already started that file afresh and kept running, with where the copy
// is. Nothing set aside is one OK line.
func (d doctor) stateFiles() []check {
	if d.dataDir == "" {
		return nil
	}
	dir := d.path(d.dataDir)
	if _, err := os.Stat(dir); err != nil {
		return nil // not run here yet: nothing kept
	}
	list, err := statefile.List(dir)
	var cs []check
	for _, dmg := range list {
		cs = append(cs, check{name: "set aside", optional: true, detail: dmg.Summary(),
			fix: "the appliance started it afresh (" + lost(dmg.File) + "); look at " + dmg.Copy + ", then delete it"})
	}
	if err != nil {
		cs = append(cs, check{name: "set aside", optional: true, detail: "listing " + dir + ": " + err.Error(),
			fix: "check the data directory's permissions (run doctor as root or as the appliance's user)"})
	}
	if len(cs) == 0 {
		cs = append(cs, check{name: "state", ok: true, detail: "no damaged file set aside in " + d.dataDir})
	}
	return cs
}

// lost is what starting a file afresh cost the person.
func lost(file string) string {
	if rest, ok := strings.CutPrefix(file, "bluetooth/"); ok {
		return lostBluetooth(rest)
	}
	switch file {
	case "lan/clients.json", "lan/identity.pem":
		return "pair the computers again: claude-pi pair"
	case "docks.json":
		return "accept the CoreS3 again on the Pi's screen"
	case "ui.json":
		return "the settings page is back to its defaults"
	case "stats.json":
		return "the pet's stats start again"
	case "buddy.json":
		return "the desktop sets the owner and name again when it connects"
	}
	return "its defaults"
}

// lostBluetooth is what losing one of bluetoothd's files costs (rest is
// its path with '_' for '/', as drivers/ble/bluez/store sets it aside).
func lostBluetooth(rest string) string {
	switch {
	case strings.HasSuffix(rest, "_info"):
		return "the desktop's bond is gone: remove Claude_Pi from the computer's Bluetooth devices, then pair again"
	case strings.HasSuffix(rest, "_ccc"):
		return "the desktop subscribes again when it next connects"
	case strings.HasSuffix(rest, "_settings"):
		return "the Bluetooth adapter's settings are back to bluetoothd's defaults; claude-pi sets what it needs again"
	}
	return "bluetoothd learns it again"
}
