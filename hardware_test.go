package main

import (
	"context"
	"errors"
	"image"
	"image/color"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/boards"
	"github.com/claude-pi/claude-pi/boards/sim"
	"github.com/claude-pi/claude-pi/drivers/input"
	"github.com/claude-pi/claude-pi/supervisor"
)

// TestServicesPerBoard builds the service list of every board without
// touching hardware: the same six services in the same order with the same
// dependencies everywhere, a radio link on a HAT, the socket link in sim.
func TestServicesPerBoard(t *testing.T) {
	want := []struct {
		name string
		deps []string
	}{
		{"ble", nil}, {"buddy", []string{"ble"}}, {"approvals", []string{"buddy"}},
		{"lan", []string{"approvals"}}, {"dock", []string{"approvals"}}, {"ui", []string{"approvals"}}, {"audio", nil},
	}
	for _, board := range boards.Names() {
		t.Run(board, func(t *testing.T) {
			c := Config{Board: board, BLE: BLEConfig{NUSListen: "127.0.0.1:0"}}
			s, err := resolve(c, "test", laptop())
			if err != nil {
				t.Fatal(err)
			}
			s.tts.Engine = "off"
			hw, release, err := boardHardware(s, slog.Default(), func() []sim.Service { return nil })
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			svcs := services(s, hw)
			if len(svcs) != len(want) {
				t.Fatalf("%d services, want %d", len(svcs), len(want))
			}
			for i, w := range want {
				if svcs[i].Name != w.name || !slices.Equal(svcs[i].DependsOn, w.deps) || svcs[i].New == nil {
					t.Errorf("service %d = %s %v, want %s %v", i, svcs[i].Name, svcs[i].DependsOn, w.name, w.deps)
				}
				if svcs[i].Policy != s.policies[w.name] {
					t.Errorf("service %s policy %+v", w.name, svcs[i].Policy)
				}
			}
			_, isSim := hw.link.(*simLink)
			_, isRadio := hw.link.(*lazyLink)
			if isSim != (board == "sim") || isRadio == (board == "sim") || (hw.board != nil) != (board == "sim") {
				t.Errorf("link %T, sim board %v", hw.link, hw.board != nil)
			}
			if board != "sim" && !hw.link.CanPair() {
				t.Error("the bluez link cannot pair")
			}
		})
	}
}

// fakePanel records what reaches the "SPI panel".
type fakePanel struct {
	mu    sync.Mutex
	draws []image.Rectangle
	last  image.Image
}

func (p *fakePanel) Draw(r image.Rectangle, src image.Image, _ image.Point) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.draws = append(p.draws, r)
	p.last = src
	return nil
}

func (p *fakePanel) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.draws)
}

// TestHATUIFailsWithTheFix: a HAT whose SPI is off leaves the ui service
// FATAL with the driver's advice in its description, and the other
// services untouched.
func TestHATUIFailsWithTheFix(t *testing.T) {
	profile, err := boards.Lookup("pirate-audio")
	if err != nil {
		t.Fatal(err)
	}
	spiOff := errors.New("board pirate-audio: display: /dev/spidev0.1 missing: SPI not enabled: add dtparam=spi=on to /boot/firmware/config.txt and reboot")
	opens := 0
	open := func(boards.Profile) (hatDevices, error) { opens++; return hatDevices{}, spiOff }
	built := false
	mk := func(*sim.Display, *sim.Buttons) func(*supervisor.Handle) actor.Actor {
		built = true
		return nil
	}
	fast := supervisor.Policy{Autostart: true, MaxRestarts: 2, Window: time.Minute, BackoffMin: time.Millisecond, BackoffMax: 2 * time.Millisecond}
	tree, err := supervisor.New(supervisor.Options{Logger: slog.New(slog.DiscardHandler)},
		supervisor.Service{Name: "ui", Policy: fast, New: hatUI(profile, open, mk)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	defer tree.Shutdown(context.Background())
	if err := tree.Start(ctx); err != nil {
		t.Fatal(err)
	}
	p := waitState(t, tree, "ui", supervisor.Fatal)
	if !strings.HasPrefix(p.Description, "FATAL: ") || !strings.Contains(p.Description, "SPI not enabled: add dtparam=spi=on") {
		t.Errorf("ui description %q, want FATAL with the SPI fix", p.Description)
	}
	if opens != 3 || built {
		t.Errorf("opened %d times (want 1 + 2 restarts), ui built %v", opens, built)
	}
}

// TestHATUIRealOpenWithoutSPI runs the real boards.Open on this machine,
// which has no SPI: the error must carry the fix.
func TestHATUIRealOpenWithoutSPI(t *testing.T) {
	profile, _ := boards.Lookup("pirate-audio")
	if _, err := os.Stat(profile.Display.Device()); err == nil {
		t.Skipf("%s exists: this machine has SPI", profile.Display.Device())
	}
	_, err := openHAT(profile)
	if err == nil {
		t.Fatal("opening a HAT without SPI worked")
	}
	if !strings.Contains(err.Error(), "SPI not enabled: add dtparam=spi=on") {
		t.Errorf("error %q does not give the SPI fix", err)
	}
	t.Logf("real open here: %v", err)
}

// TestHATUIMirrorsAndPresses: once the board opens, the ui's frames reach
// the panel, the approve and deny buttons press A and B, other buttons do
// nothing, and the board is closed when the service stops.
func TestHATUIMirrorsAndPresses(t *testing.T) {
	profile, _ := boards.Lookup("pirate-audio")
	panel := &fakePanel{}
	presses := make(chan input.Event, 4)
	closed := make(chan struct{})
	open := func(boards.Profile) (hatDevices, error) {
		return hatDevices{Panel: panel, Presses: presses, Close: func() error { close(closed); return nil }}, nil
	}
	type got struct {
		fb *sim.Display
		b  *sim.Buttons
	}
	made := make(chan got, 1)
	mk := func(fb *sim.Display, b *sim.Buttons) func(*supervisor.Handle) actor.Actor {
		made <- got{fb, b}
		return func(*supervisor.Handle) actor.Actor { return actor.ReceiveFunc(func(actor.Context) {}) }
	}
	tree, err := supervisor.New(supervisor.Options{Logger: slog.New(slog.DiscardHandler)},
		supervisor.Service{Name: "ui", Policy: supervisor.DefaultPolicy, New: hatUI(profile, open, mk)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tree.Start(ctx); err != nil {
		t.Fatal(err)
	}
	g := <-made
	if b := g.fb.Bounds(); b.Dx() != profile.Width || b.Dy() != profile.Height {
		t.Errorf("framebuffer %v, want %dx%d", b, profile.Width, profile.Height)
	}
	sub, stop := g.b.Subscribe(4)
	defer stop()

	red := image.NewUniform(color.RGBA{R: 255, A: 255})
	if err := g.fb.Draw(g.fb.Bounds(), red, image.Point{}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 5*time.Second, "a frame on the panel", func() bool { return panel.count() > 0 })

	x, _ := profile.Button(boards.RoleNext)
	for _, tt := range []struct{ button, want string }{{"A", sim.ButtonA}, {x.Name, ""}, {"B", sim.ButtonB}} {
		presses <- input.Event{Name: tt.button, Held: 80 * time.Millisecond}
		if tt.want == "" {
			continue
		}
		select {
		case p := <-sub:
			if p.Name != tt.want {
				t.Errorf("button %s pressed %s, want %s", tt.button, p.Name, tt.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("button %s: no press", tt.button)
		}
	}
	if err := tree.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("the board was not closed when the ui stopped")
	}
}

// TestRunOnAHATWithoutHardware runs `claude-pi run --board pirate-audio`
// here, where there is neither SPI nor a BlueZ on a system bus: it must
// start, leave ui FATAL with the SPI fix, keep ble retrying, and run the
// dock and the rest.
func TestRunOnAHATWithoutHardware(t *testing.T) {
	if _, err := os.Stat("/dev/spidev0.1"); err == nil {
		t.Skip("this machine has SPI")
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	writeFile(t, cfg, "board = \"pirate-audio\"\n[tts]\nengine = \"off\"\n"+
		"[services.ui]\nmax_restarts = 1\nbackoff_min = \"5ms\"\nbackoff_max = \"10ms\"\n")
	c, err := loadConfig(cfg, true)
	if err != nil {
		t.Fatal(err)
	}
	c.DataDir, c.ControlSocket = filepath.Join(dir, "data"), filepath.Join(dir, "s.sock")
	s, err := resolve(c, cfg, laptop())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	ready := make(chan running, 1)
	done := make(chan error, 1)
	go func() { done <- serveWith(ctx, s, &stdout, &stderr, func(r running) { ready <- r }) }()
	var r running
	select {
	case r = <-ready:
	case err := <-done:
		t.Fatalf("run returned %v\n%s", err, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("not ready\n%s", stderr.String())
	}
	if r.board != nil || r.webURL != "off" {
		t.Errorf("HAT run: sim board %v, web %s", r.board != nil, r.webURL)
	}
	p := waitState(t, r.tree, "ui", supervisor.Fatal)
	if !strings.HasPrefix(p.Description, "FATAL: ") || !strings.Contains(p.Description, "SPI not enabled: add dtparam=spi=on") {
		t.Errorf("ui: %q", p.Description)
	}
	for _, name := range []string{"dock", "approvals", "buddy"} {
		if p := process(r.tree, name); p.State != supervisor.Running {
			t.Errorf("%s is %v (%s), want RUNNING", name, p.State, p.Description)
		}
	}
	t.Logf("ble here: %v %s", process(r.tree, "ble").State, process(r.tree, "ble").Description)
	t.Logf("ui here: %s", p.Description)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func process(tree *supervisor.Tree, name string) supervisor.ProcessInfo {
	for _, p := range tree.Processes() {
		if p.Name == name {
			return p
		}
	}
	return supervisor.ProcessInfo{}
}

func waitState(t *testing.T, tree *supervisor.Tree, name string, want supervisor.State) supervisor.ProcessInfo {
	t.Helper()
	var p supervisor.ProcessInfo
	waitUntil(t, 15*time.Second, name+" "+want.String(), func() bool { p = process(tree, name); return p.State == want })
	return p
}
