package appliance

import (
	"context"
	"errors"
	"image"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"periph.io/x/conn/v3/gpio/gpiotest"

	"github.com/claude-pi/claude-pi/actors/absent"
	"github.com/claude-pi/claude-pi/actors/approvals"
	"github.com/claude-pi/claude-pi/actors/ui"
	"github.com/claude-pi/claude-pi/boards"
	"github.com/claude-pi/claude-pi/boards/sim"
	"github.com/claude-pi/claude-pi/drivers/audio"
	"github.com/claude-pi/claude-pi/drivers/input/inputtest"
	"github.com/claude-pi/claude-pi/supervisor"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// fakePanel stands in for the st7789: it records the rectangles drawn and
// counts Sleep and Wake, so the ui treats it as a panel that sleeps.
type fakePanel struct {
	*sim.Display
	mu            sync.Mutex
	rects         []image.Rectangle
	sleeps, wakes int
}

func newFakePanel(t *testing.T, p boards.Profile) *fakePanel {
	t.Helper()
	d, err := sim.NewDisplay(p.Width, p.Height)
	if err != nil {
		t.Fatal(err)
	}
	return &fakePanel{Display: d}
}

func (p *fakePanel) Draw(r image.Rectangle, src image.Image, sp image.Point) error {
	p.mu.Lock()
	p.rects = append(p.rects, r)
	p.mu.Unlock()
	return p.Display.Draw(r, src, sp)
}

func (p *fakePanel) Sleep() error { p.mu.Lock(); defer p.mu.Unlock(); p.sleeps++; return nil }
func (p *fakePanel) Wake() error  { p.mu.Lock(); defer p.mu.Unlock(); p.wakes++; return nil }

// take returns the rectangles drawn since the last take.
func (p *fakePanel) take() []image.Rectangle {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.rects
	p.rects = nil
	return out
}

func (p *fakePanel) counts() (sleeps, wakes int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sleeps, p.wakes
}

// decisions stands in for the buddy service: approvals sends it the
// Decided messages of desktop prompts.
type decisions chan approvals.Decided

func (d decisions) Receive(c actor.Context) {
	if m, ok := c.Message().(approvals.Decided); ok {
		d <- m
	}
}

// hatRig is the ui service of a HAT board on fake hardware, with the real
// approvals service behind it. Every open makes a new button source, as
// boards.Open does.
type hatRig struct {
	tree    *supervisor.Tree
	panel   *fakePanel
	decided decisions

	mu            sync.Mutex
	src           *inputtest.Source
	opens, closes int
}

func newHATRig(t *testing.T, board string, cfg ui.Config) *hatRig {
	t.Helper()
	profile, err := boards.Lookup(board)
	if err != nil {
		t.Fatal(err)
	}
	r := &hatRig{panel: newFakePanel(t, profile), decided: make(decisions, 4)}
	open := func(boards.Profile) (ui.Devices, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.opens++
		r.src = inputtest.NewSource(8)
		return ui.Devices{Display: r.panel, Input: r.src, Close: func() error {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.closes++
			return nil
		}}, nil
	}
	if cfg.Audio == nil {
		cfg.Audio = &audio.Fake{}
	}
	cfg.Board, cfg.Addrs = board, func() []string { return []string{"192.0.2.7"} }
	svc := func(name string, mk func(*supervisor.Handle) actor.Actor, deps ...string) supervisor.Service {
		return supervisor.Service{Name: name, DependsOn: deps, Policy: supervisor.DefaultPolicy, New: mk}
	}
	r.tree = supervisortest.Start(t,
		svc("ble", absent.New("test")),
		svc("buddy", func(*supervisor.Handle) actor.Actor { return r.decided }),
		svc("approvals", approvals.New(approvals.WithOwner("desktop", "buddy")), "buddy"),
		svc("dock", absent.New("test")),
		svc("ui", hatUI(profile, open, cfg), "approvals", "dock"))
	return r
}

func (r *hatRig) shutdown(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.tree.Shutdown(ctx); err != nil {
		t.Error(err)
	}
}

func (r *hatRig) view(t *testing.T) ui.View {
	t.Helper()
	return supervisortest.Ask[ui.View](t, r.tree, "ui", ui.GetView{})
}

func (r *hatRig) stats(t *testing.T) ui.Stats {
	t.Helper()
	return supervisortest.Ask[ui.Stats](t, r.tree, "ui", ui.GetStats{})
}

// press sends a short press of button and waits until the ui handled it.
func (r *hatRig) press(t *testing.T, button string) {
	t.Helper()
	before := r.stats(t).Presses
	r.mu.Lock()
	src := r.src
	r.mu.Unlock()
	src.Press(button)
	supervisortest.Within(t, 5*time.Second, button+" handled", func() bool { return r.stats(t).Presses == before+1 })
}

func (r *hatRig) prompt(t *testing.T, id string) {
	t.Helper()
	sys := r.tree.System()
	sys.Root.Send(supervisor.ServicePID(sys, "approvals"), approvals.SetPrompts{Source: "desktop", LinkUp: true,
		Prompts: []approvals.Prompt{{Source: "desktop", ID: id, Tool: "Bash", Hint: "make", Arrived: time.Now()}}})
	supervisortest.Within(t, 5*time.Second, "the approval screen for "+id, func() bool {
		v := r.view(t)
		return v.Screen == ui.ScreenApproval && len(v.Prompts) == 1 && v.Shown.ID == id && !v.Sent
	})
	// inputtest's press began 100 ms before it arrives, and the ui takes
	// no press that began before the prompt showed: wait that long, as a
	// person reads before pressing.
	time.Sleep(150 * time.Millisecond)
}

func (r *hatRig) counts() (opens, closes int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.opens, r.closes
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
	open := func(boards.Profile) (ui.Devices, error) { opens++; return ui.Devices{}, spiOff }
	fast := supervisor.Policy{Autostart: true, MaxRestarts: 2, Window: time.Minute, BackoffMin: time.Millisecond, BackoffMax: 2 * time.Millisecond}
	tree := supervisortest.Start(t,
		supervisor.Service{Name: "ui", Policy: fast, New: hatUI(profile, open, ui.Config{})},
		supervisor.Service{Name: "dock", Policy: fast, New: absent.New("test")})
	p := supervisortest.WaitState(t, tree, "ui", supervisor.Fatal)
	if !strings.HasPrefix(p.Description, "FATAL: ") || !strings.Contains(p.Description, "SPI not enabled: add dtparam=spi=on") {
		t.Errorf("ui description %q, want FATAL with the SPI fix", p.Description)
	}
	if opens != 3 {
		t.Errorf("opened %d times, want 1 + 2 restarts", opens)
	}
	if d, _ := tree.Process("dock"); d.State != supervisor.Running {
		t.Errorf("dock is %v beside a FATAL ui", d.State)
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

// TestHATUIDrawsDamageAndPressesByRole: on a board whose buttons are not
// the sim's A/B/X/Y, the ui draws straight on the panel (a full first
// frame, then only what changed) and the profile's approve and deny
// buttons decide, while unmapped and role-less buttons do not; the board
// is closed once the ui stopped.
func TestHATUIDrawsDamageAndPressesByRole(t *testing.T) {
	r := newHATRig(t, "waveshare-lcd13", ui.Config{})
	full := r.panel.Bounds()
	supervisortest.Within(t, 5*time.Second, "the first frame on the panel", func() bool { return len(r.panel.take()) > 0 })

	r.prompt(t, "req_hat_1")
	// A is the sim's approve button but not this board's; KEY2 has no role.
	r.press(t, "A")
	r.press(t, "KEY2")
	if n, v := r.stats(t).Decisions, r.view(t); n != 0 || v.Sent {
		t.Fatalf("unmapped buttons decided: %d decisions, sent %v", n, v.Sent)
	}
	r.panel.take()
	r.press(t, "KEY1")
	select {
	case d := <-r.decided:
		if d.ID != "req_hat_1" || d.Decision.String() != "once" || d.By != ui.By {
			t.Fatalf("KEY1 decided %+v, want once for req_hat_1", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("KEY1 (approve) sent no decision")
	}
	// The legend turning into "sent…" is a small change: only it is sent.
	var drawn []image.Rectangle
	supervisortest.Within(t, 5*time.Second, "the sent… legend drawn", func() bool { drawn = append(drawn, r.panel.take()...); return len(drawn) > 0 })
	for _, d := range drawn {
		if d.Empty() || !d.In(full) || d == full {
			t.Errorf("drew %v on a %v panel after a legend change, want a damaged part only", d, full)
		}
	}

	r.prompt(t, "req_hat_2")
	r.press(t, "KEY3")
	select {
	case d := <-r.decided:
		if d.ID != "req_hat_2" || d.Decision.String() != "deny" {
			t.Fatalf("KEY3 decided %+v, want deny for req_hat_2", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("KEY3 (deny) sent no decision")
	}

	r.shutdown(t)
	if opens, closes := r.counts(); opens != 1 || closes != 1 {
		t.Errorf("opened %d and closed %d times, want once each", opens, closes)
	}
}

// TestHATUISleepsThePanel: after the screen timeout the panel itself is
// put to sleep, and the press that wakes it decides nothing.
func TestHATUISleepsThePanel(t *testing.T) {
	r := newHATRig(t, "pirate-audio", ui.Config{ScreenTimeout: 50 * time.Millisecond})
	supervisortest.Within(t, 5*time.Second, "the panel asleep", func() bool { s, _ := r.panel.counts(); return s > 0 })
	r.press(t, "A")
	supervisortest.Within(t, 5*time.Second, "the panel awake", func() bool { _, w := r.panel.counts(); return w > 0 })
	if n := r.stats(t).Decisions; n != 0 {
		t.Errorf("the waking press made %d decisions", n)
	}
}

// TestHATUIRestartsLeaveNoGoroutines: each incarnation opens the board
// afresh and closes it when it stops, and restarts leave nothing running.
func TestHATUIRestartsLeaveNoGoroutines(t *testing.T) {
	r := newHATRig(t, "pirate-audio", ui.Config{})
	supervisortest.Within(t, 5*time.Second, "the first frame", func() bool { return r.stats(t).Frames > 0 })
	before := runtime.NumGoroutine()
	for i := range 3 {
		p0, _ := r.tree.Process("ui")
		if err := r.tree.SignalProcess("ui", "KILL"); err != nil {
			t.Fatal(err)
		}
		supervisortest.Within(t, 5*time.Second, "ui back", func() bool {
			p, _ := r.tree.Process("ui")
			return p.State == supervisor.Running && p.Start.After(p0.Start)
		})
		supervisortest.Within(t, 5*time.Second, "the new incarnation drawing", func() bool { return r.stats(t).Frames > 0 })
		if opens, closes := r.counts(); opens != i+2 || closes != i+1 {
			t.Fatalf("after restart %d: opened %d, closed %d; want %d and %d", i+1, opens, closes, i+2, i+1)
		}
	}
	supervisortest.Within(t, 5*time.Second, "goroutines back to the baseline", func() bool { return runtime.NumGoroutine() <= before })
	// The newest source is the one read: a press there is handled.
	r.press(t, "A")
}

// TestHATPlayer: chimes go to aplay on the profile's device with its
// amplifier pin, or to the default device on a board without audio.
func TestHATPlayer(t *testing.T) {
	amp := &gpiotest.Pin{N: "GPIO25"}
	for _, tt := range []struct {
		board, device string
	}{
		{"pirate-audio", "plughw:CARD=sndrpihifiberry,DEV=0"},
		{"display-hat-mini", "default"},
	} {
		p, err := boards.Lookup(tt.board)
		if err != nil {
			t.Fatal(err)
		}
		pl, ok := hatPlayer(p, amp).(*audio.Aplay)
		if !ok || pl.Device != tt.device || pl.Amp != amp {
			t.Errorf("%s: player %+v, want aplay -D %s with the amp pin", tt.board, pl, tt.device)
		}
	}
}
