package ui

import (
	"image"
	"os"
	"path/filepath"
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
	drawsEveryRow(t, v)
}

// The actor lists the copies when the page asks, and again only once its
// listing is setAsideEvery old.
func TestSetAsideCopiesReadAtMostEvery5s(t *testing.T) {
	dir := t.TempDir()
	a := &Actor{cfg: Config{DataDir: dir}}
	put := func(name string) {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("stats.json.damaged-20260501T095500Z-1-empty")
	if got := a.setAsideCopies(t0); len(got) != 1 || got[0].File != "stats.json" {
		t.Fatalf("first listing %+v, want stats.json", got)
	}
	put("ui.json.damaged-20260501T095900Z-1-truncated")
	if got := a.setAsideCopies(t0.Add(time.Second)); len(got) != 1 {
		t.Fatalf("listing 1 s later %+v, want the cached one", got)
	}
	if got := a.setAsideCopies(t0.Add(setAsideEvery)); len(got) != 2 || got[1].File != "ui.json" {
		t.Fatalf("listing %v later %+v, want both, oldest first", setAsideEvery, got)
	}
}

// A bond of bluetoothd's that a power cut zero-filled (set aside by
// `claude-pi bluetooth check-files`) shows by what it is, not by its
// copy's path, and the page still draws every row.
func TestSystemPageNamesASetAsideBond(t *testing.T) {
	now := t0
	s := newState(now, time.Minute, true)
	s.updatesOn = true
	s.page = s.systemPage()
	f := facts{setAside: []statefile.Damage{
		{File: "bluetooth/DC:A6:32:01:02:03_F0:18:98:AA:BB:CC_info", Reason: statefile.Zeroed, At: now.Add(-5 * time.Minute)},
	}}
	v := infoPage(s, f, now, legendOf(DefaultRoles))
	last := v.Rows[len(v.Rows)-1]
	if want := "Bluetooth bond F0:18:98:AA:BB:CC: zero-filled, 5 min ago"; last.Label != "Set aside" || last.Value != want || !last.Warn {
		t.Fatalf("last row %+v, want Set aside %q, warned", last, want)
	}
	drawsEveryRow(t, v)
}

// drawsEveryRow: the page fits both panels.
func drawsEveryRow(t *testing.T, v screens.InfoView) {
	t.Helper()
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
