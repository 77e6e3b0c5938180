package ui

import (
	"bytes"
	"errors"
	"image"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	bleactor "github.com/claude-pi/claude-pi/actors/ble"
	"github.com/claude-pi/claude-pi/actors/dock"
	"github.com/claude-pi/claude-pi/actors/ui/screens"
	"github.com/claude-pi/claude-pi/drivers/updates"
)

const day = 24 * time.Hour

// put writes rel under root with mtime at, as apt and the packages do
// (drivers/updates' tests lay out the same files).
func put(t *testing.T, root, rel, body string, at time.Time) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, at, at); err != nil {
		t.Fatal(err)
	}
}

// installed puts unattended-upgrades under root, its last run and the
// last list update the given ages before now.
func installed(t *testing.T, root string, now time.Time, upgrade, lists time.Duration) {
	t.Helper()
	put(t, root, updates.Program, "", now)
	put(t, root, updates.UpgradeStamp, "", now.Add(-upgrade))
	put(t, root, updates.ListsStamp, "", now.Add(-lists))
}

func rowsOf(u *updatesRead, now time.Time) []screens.InfoRow {
	var rows []screens.InfoRow
	systemRows(u, now, func(l, v string, w bool) { rows = append(rows, screens.InfoRow{Label: l, Value: v, Warn: w}) })
	return rows
}

func TestSystemRows(t *testing.T) {
	now := t0
	tests := []struct {
		name  string
		files func(t *testing.T, root string)
		want  []row
	}{
		{"fresh, no reboot", func(t *testing.T, r string) {
			installed(t, r, now, 2*day+3*time.Hour, 2*day+4*time.Hour)
		}, []row{{"Updated", "2 d ago", false}, {"Reboot", "not needed", false}}},
		{"an hour ago", func(t *testing.T, r string) {
			installed(t, r, now, 40*time.Minute, 50*time.Minute)
		}, []row{{"Updated", "50 min ago", false}, {"Reboot", "not needed", false}}},
		{"stale past StaleAfter", func(t *testing.T, r string) {
			installed(t, r, now, updates.StaleAfter+day, day)
		}, []row{{"Updated", "8 d ago", true}, {"Reboot", "not needed", false}}},
		{"lists stale though upgrades ran: the older one counts", func(t *testing.T, r string) {
			installed(t, r, now, day, 10*day)
		}, []row{{"Updated", "10 d ago", true}, {"Reboot", "not needed", false}}},
		{"never ran", func(t *testing.T, r string) {
			put(t, r, updates.Program, "", now)
		}, []row{{"Updated", "never", true}, {"Reboot", "not needed", false}}},
		{"its log ends in an error", func(t *testing.T, r string) {
			installed(t, r, now, 5*time.Hour, 5*time.Hour)
			put(t, r, updates.Log, "2026-05-01 06:00:01,000 ERROR Cache has broken packages, exiting\n", now)
		}, []row{{"Updated", "5 h ago", true}, {"Last run", "error: Cache has broken packages, exiting", true},
			{"Reboot", "not needed", false}}},
		{"reboot waiting, not late yet", func(t *testing.T, r string) {
			installed(t, r, now, 5*time.Hour, 5*time.Hour)
			put(t, r, updates.RebootRequired, "*** System restart required ***\n", now.Add(-2*day-time.Hour))
			put(t, r, updates.RebootPkgs, "linux-image-rpi-2712\nlibc6\nlinux-image-rpi-2712\n", now)
		}, []row{{"Updated", "5 h ago", false}, {"Reboot", "waiting 2 d", false},
			{"Asked by", "linux-image-rpi-2712 +1", false}}},
		{"reboot late", func(t *testing.T, r string) {
			installed(t, r, now, 5*time.Hour, 5*time.Hour)
			put(t, r, updates.RebootRequired, "", now.Add(-updates.RebootLateAfter-time.Hour))
			put(t, r, updates.RebootPkgs, "linux-image-rpi-2712\n", now)
		}, []row{{"Updated", "5 h ago", false}, {"Reboot", "waiting 3 d", true},
			{"Asked by", "linux-image-rpi-2712", false}}},
		{"an install cut by a power loss", func(t *testing.T, r string) {
			installed(t, r, now, 5*time.Hour, 5*time.Hour)
			put(t, r, updates.DpkgStatus, "Package: claude-pi\nStatus: install reinstreq half-installed\n\n"+
				"Package: bluez\nStatus: install ok unpacked\n\nPackage: apt\nStatus: install ok installed\n", now)
		}, []row{{"Updated", "5 h ago", false}, {"Reboot", "not needed", false}, {"Packages", "unfinished: claude-pi +1", true}}},
		{"dpkg's journal not folded in", func(t *testing.T, r string) {
			installed(t, r, now, 5*time.Hour, 5*time.Hour)
			put(t, r, updates.DpkgUpdates+"/0001", "Package: apt\n", now)
		}, []row{{"Updated", "5 h ago", false}, {"Reboot", "not needed", false}, {"Packages", "dpkg interrupted", true}}},
		{"an update of claude-pi rolled back", func(t *testing.T, r string) {
			installed(t, r, now, 5*time.Hour, 5*time.Hour)
			put(t, r, updates.RolledBack, "from=2026.12.04.1\nto=2026.12.01.1\nat=2026-12-04T20:00:00Z\nreason=lan FATAL\n", now)
		}, []row{{"Updated", "5 h ago", false}, {"Reboot", "not needed", false},
			{"Update", "rolled back 2026.12.04.1", true}, {"Why", "lan FATAL", true}}},
		{"a rollback under way is not reported done", func(t *testing.T, r string) {
			installed(t, r, now, 5*time.Hour, 5*time.Hour)
			put(t, r, updates.RolledBack, "from=3\nto=1\n", now)
			put(t, r, updates.RollingBack, "from=1\nto=2\nreason=x\n", now)
		}, []row{{"Updated", "5 h ago", false}, {"Reboot", "not needed", false}, {"Update", "rolling back 2", true}}},
		{"an update being checked", func(t *testing.T, r string) {
			installed(t, r, now, 5*time.Hour, 5*time.Hour)
			put(t, r, updates.Pending, "from=1\nto=2\nat=2026-12-04T20:00:00Z\nrunning=yes\n", now)
		}, []row{{"Updated", "5 h ago", false}, {"Reboot", "not needed", false}, {"Update", "checking 2", false}}},
		{"not installed", func(t *testing.T, r string) {
			put(t, r, updates.RebootRequired, "", now.Add(-4*day))
		}, []row{{"Updates", "not installed", true}, {"Reboot", "waiting 4 d", true}}},
		{"the clock went back", func(t *testing.T, r string) {
			installed(t, r, now, -2*time.Hour, -2*time.Hour)
		}, []row{{"Updated", "in the future: clock?", false}, {"Reboot", "not needed", false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			tt.files(t, root)
			st, err := updates.Read(root)
			if err != nil {
				t.Fatal(err)
			}
			got := rowsOf(&updatesRead{st: st, at: now}, now)
			want := make([]screens.InfoRow, len(tt.want))
			for i, w := range tt.want {
				want[i] = screens.InfoRow{Label: w.label, Value: w.value, Warn: w.warn}
			}
			if !equalRows(got, want) {
				t.Fatalf("rows\n got %v\nwant %v", got, want)
			}
		})
	}
	if got := rowsOf(nil, now); len(got) != 1 || got[0].Value != "reading…" {
		t.Fatalf("before the first reading: %v", got)
	}
	u := &updatesRead{st: updates.Status{Installed: true, LastUpgrade: now.Add(-time.Hour), LastLists: now.Add(-time.Hour)},
		err: errors.New("stat /var/lib/apt/periodic/update-success-stamp: permission denied"), at: now}
	if got := rowsOf(u, now); got[len(got)-1] != (screens.InfoRow{Label: "Read", Value: "failed: see the log", Warn: true}) {
		t.Fatalf("a failed reading: %v, want it said last", got)
	}
}

// row is a wanted InfoRow (vet wants another package's struct keyed).
type row struct {
	label, value string
	warn         bool
}

func equalRows(a, b []screens.InfoRow) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestInfoPagesFit: Info drops the rows past the footer and ellipsizes
// long values, silently. The Links page has no room left (which is why
// the update rows have a page of their own), and the System page's
// longest set of rows fits on both panel sizes with the facts a glance
// needs unclipped.
func TestInfoPagesFit(t *testing.T) {
	now := t0
	s := newState(now, time.Minute, true)
	s.updatesOn = true
	s.apply(bleactor.LinkState{Connected: true, Central: "MacBook Pro", Subscribed: true, Secured: true, Security: "bonded"}, now)
	s.apply(dock.State{Connected: true, Ready: true, Path: "/dev/ttyACM0"}, now)
	lg := legendOf(DefaultRoles)
	f := facts{board: "pirate-audio", version: "v0.3.0", started: now.Add(-76 * time.Hour), addrs: []string{"192.168.1.23"},
		updates: &updatesRead{at: now, err: errors.New("x"), st: updates.Status{Installed: true,
			LastUpgrade: now.Add(-2 * day), LastLists: now.Add(-2 * day),
			LastError:   "2026-05-01 06:00:01,000 ERROR Cache has broken packages, exiting",
			RebootSince: now.Add(-3*day - time.Hour), RebootPkgs: []string{"linux-image-rpi-2712", "libc6", "raspi-firmware"}}}}
	for _, size := range []image.Point{{240, 240}, {320, 240}} {
		r, err := screens.NewRenderer(size.X, size.Y)
		if err != nil {
			t.Fatal(err)
		}
		s.page = linksPage
		links := infoPage(s, f, now, lg)
		if d := r.InfoDrawn(links); len(d) != len(links.Rows) {
			t.Errorf("%v: the Links page draws %d of its %d rows", size, len(d), len(links.Rows))
		}
		s.page = s.systemPage()
		sys := infoPage(s, f, now, lg)
		if sys.Title != "System" || len(sys.Rows) != 5 {
			t.Fatalf("page %d: %+v, want the System page's 5 rows", s.page, sys)
		}
		d := r.InfoDrawn(sys)
		if len(d) != len(sys.Rows) {
			t.Fatalf("%v: the System page draws %d of its %d rows", size, len(d), len(sys.Rows))
		}
		if d[0].Value != "2 d ago" || d[2].Value != "waiting 3 d" || !d[2].Warn || !strings.HasPrefix(d[3].Value, "linux-") {
			t.Errorf("%v: drawn %v: the age and the wait must be whole", size, d)
		}
	}
}

// TestSystemPageOnTheActor: the page shows the reading, drawn on the
// panel; the actor reads when the page comes on, not per frame, and
// again only once the reading is UpdatesEvery old.
func TestSystemPageOnTheActor(t *testing.T) {
	root := t.TempDir()
	installed(t, root, t0, 2*day, 2*day)
	put(t, root, updates.RebootRequired, "", t0.Add(-updates.RebootLateAfter-time.Hour))
	put(t, root, updates.RebootPkgs, "linux-image-rpi-2712\n", t0)
	var reads atomic.Int32
	r := newRig(t, func(c *Config) {
		c.ScreenTimeout = 24 * time.Hour // the page stays on while the clock runs
		c.Updates = func() (updates.Status, error) { reads.Add(1); return updates.Read(root) }
	})
	for range 3 {
		r.press(t, "X")
	}
	// Links, Stats, System, Clock: the System page is the one before the clock.
	if v := r.view(t); v.Screen != ScreenInfo || v.Page != 3 {
		t.Fatalf("three presses of next: %s page %d, want the System page, info 3", v.Screen, v.Page)
	}
	rend, err := screens.NewRenderer(240, 240)
	if err != nil {
		t.Fatal(err)
	}
	want := rend.NewFrame()
	rend.Info(want, screens.InfoView{Title: "System", Page: 3, Of: 4, Next: "X", Back: "Y", Rows: []screens.InfoRow{
		{Label: "Updated", Value: "2 d ago"}, {Label: "Reboot", Value: "waiting 3 d", Warn: true},
		{Label: "Asked by", Value: "linux-image-rpi-2712"}}})
	r.waitFor(t, "the reading drawn on the panel", func() bool {
		fb, _ := r.board.Display.Snapshot()
		return bytes.Equal(fb.Pix, want.Pix)
	})
	if n := reads.Load(); n != 1 {
		t.Fatalf("%d readings for the page coming on, want 1", n)
	}
	// A frame a minute (the ages) reads nothing while the reading is fresh.
	for i := 1; i < int(UpdatesEvery/time.Minute); i++ {
		before := r.stats(t).Frames
		r.clk.advance(time.Minute)
		r.waitFor(t, "the minute's frame", func() bool { return r.stats(t).Frames > before })
	}
	if n := reads.Load(); n != 1 {
		t.Fatalf("%d readings after %d frames within UpdatesEvery, want 1", n, int(UpdatesEvery/time.Minute)-1)
	}
	r.clk.advance(time.Minute)
	r.waitFor(t, "a second reading once the first is UpdatesEvery old", func() bool { return reads.Load() == 2 })
	// Leaving and coming back reads again at once.
	r.press(t, "X")
	if n := reads.Load(); n != 2 {
		t.Fatalf("the clock page read the update status (%d readings)", n)
	}
	r.press(t, "Y")
	r.waitFor(t, "a reading for the page coming on again", func() bool { return reads.Load() == 3 })
}

// Without Config.Updates there is no System page: the cycle is as before.
func TestNoSystemPageWithoutUpdates(t *testing.T) {
	r := newRig(t, nil)
	for range 3 {
		r.press(t, "X")
	}
	if v := r.view(t); v.Screen != ScreenClock {
		t.Fatalf("three presses of next without Updates: %s page %d, want the clock", v.Screen, v.Page)
	}
}
