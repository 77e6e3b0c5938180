package cli

import (
	"os"

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
