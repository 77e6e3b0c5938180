package ui

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/absent"
	"github.com/claude-pi/claude-pi/supervisor"
)

func TestDownLine(t *testing.T) {
	at := func(hm string) time.Time {
		v, err := time.Parse("15:04", hm)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	utc := func(t time.Time) time.Time { return t.UTC() }
	run := supervisor.ProcessInfo{Name: "ble", State: supervisor.Running}
	for _, tt := range []struct {
		name string
		ps   []supervisor.ProcessInfo
		want string
	}{
		{"all running", []supervisor.ProcessInfo{run}, ""},
		{"never started (autostart off)", []supervisor.ProcessInfo{run, {Name: "audio", State: supervisor.Stopped}}, ""},
		{"one FATAL", []supervisor.ProcessInfo{run, {Name: "approvals", State: supervisor.Fatal, DownSince: at("20:31")}},
			"approvals down since 20:31"},
		{"retrying: STARTING is still down", []supervisor.ProcessInfo{{Name: "lan", State: supervisor.Starting, DownSince: at("09:05")}},
			"lan down since 09:05"},
		{"the longest down first", []supervisor.ProcessInfo{
			{Name: "approvals", State: supervisor.Backoff, DownSince: at("20:31")},
			run,
			{Name: "lan", State: supervisor.Fatal, DownSince: at("20:29")},
			{Name: "ui", State: supervisor.Stopped, DownSince: at("20:40")},
		}, "lan +2 down since 20:29"},
	} {
		if got := downLine(tt.ps, utc); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestHomeNamesTheServiceDown: a service killed past its budget puts
// "lan down since HH:MM" on the home screen, and it goes once lan runs.
func TestHomeNamesTheServiceDown(t *testing.T) {
	once := supervisor.Policy{Autostart: true, MaxRestarts: 0, Window: time.Minute,
		BackoffMin: time.Millisecond, BackoffMax: time.Millisecond, RetryFatal: time.Hour}
	var tree atomic.Pointer[supervisor.Tree] // set once the rig has started
	r := newRig(t, func(c *Config) {
		c.Services = func() []supervisor.ProcessInfo {
			if tr := tree.Load(); tr != nil {
				return tr.Processes()
			}
			return nil
		}
	}, supervisor.Service{Name: "lan", Policy: once, New: absent.New("test")})
	tree.Store(r.tree)
	frame := func() View { r.clk.advance(time.Second); return r.view(t) }
	if v := frame(); v.Screen != ScreenHome || v.Down != "" {
		t.Fatalf("at start: screen %s, down %q; want home and nothing down", v.Screen, v.Down)
	}
	if err := r.tree.SignalProcess("lan", "KILL"); err != nil {
		t.Fatal(err)
	}
	var p supervisor.ProcessInfo
	r.waitFor(t, "lan FATAL", func() bool { p, _ = r.tree.Process("lan"); return p.State == supervisor.Fatal })
	want := "lan down since " + p.DownSince.Local().Format("15:04")
	r.waitFor(t, "the home line", func() bool { return frame().Down == want })
	if err := r.tree.StartProcess("lan", true); err != nil {
		t.Fatal(err)
	}
	r.waitFor(t, "the home line gone", func() bool { return frame().Down == "" })
}
