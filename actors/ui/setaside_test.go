package ui

import (
	"image"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/ui/screens"
	"github.com/claude-pi/claude-pi/drivers/storage/statefile"
	"github.com/claude-pi/claude-pi/drivers/updates"
)

// TestSystemPageSaysWhatWasSetAside: a file set aside shows on the System
// page, newest first with how many more, warned, and fits beside the
// page's longest set of update rows on both panels.
func TestSystemPageSaysWhatWasSetAside(t *testing.T) {
	now := t0
	s := newState(now, time.Minute, true)
	s.updatesOn = true
	s.page = s.systemPage()
	lg := legendOf(DefaultRoles)
	f := facts{updates: &updatesRead{at: now, st: updates.Status{Installed: true,
		LastUpgrade: now.Add(-2 * day), LastLists: now.Add(-2 * day), LastError: "E: broken",
		RebootSince: now.Add(-3 * day), RebootPkgs: []string{"linux-image-rpi-2712", "libc6"}}}}
	if v := infoPage(s, f, now, lg); v.Rows[len(v.Rows)-1].Label == "Set aside" {
		t.Fatalf("nothing set aside, yet: %+v", v.Rows)
	}
	f.setAside = []statefile.Damage{
		{File: "stats.json", Reason: statefile.Empty, At: now.Add(-2 * time.Hour)},
		{File: "lan/clients.json", Reason: statefile.InvalidJSON, At: now.Add(-5 * time.Minute)},
	}
	v := infoPage(s, f, now, lg)
	last := v.Rows[len(v.Rows)-1]
	if want := "lan/clients.json: invalid JSON, 5 min ago +1"; last.Label != "Set aside" || last.Value != want || !last.Warn {
		t.Fatalf("last row %+v, want Set aside %q, warned", last, want)
	}
	for _, size := range []image.Point{{240, 240}, {320, 240}} {
		r, err := screens.NewRenderer(size.X, size.Y)
		if err != nil {
			t.Fatal(err)
		}
		if d := r.InfoDrawn(v); len(d) != len(v.Rows) {
			t.Errorf("%v: the System page draws %d of its %d rows", size, len(d), len(v.Rows))
		}
	}
}
