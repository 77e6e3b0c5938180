package ui

import (
	"context"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/actors/absent"
	"github.com/claude-pi/claude-pi/actors/approvals"
	bleactor "github.com/claude-pi/claude-pi/actors/ble"
	buddyactor "github.com/claude-pi/claude-pi/actors/buddy"
	"github.com/claude-pi/claude-pi/boards/sim"
	"github.com/claude-pi/claude-pi/drivers/audio"
	"github.com/claude-pi/claude-pi/supervisor"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// clock is a fake clock whose timers fire only when the test advances it.
type clock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*ftimer
}

type ftimer struct {
	at      time.Time
	f       func()
	stopped bool
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &ftimer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !t.stopped
		t.stopped = true
		return was
	}
}

// armed counts the timers not yet fired or stopped.
func (c *clock) armed() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, t := range c.timers {
		if !t.stopped {
			n++
		}
	}
	return n
}

// advance moves time on and fires the timers that fell due, in order.
func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []*ftimer
	keep := c.timers[:0]
	for _, t := range c.timers {
		switch {
		case t.stopped:
		case !t.at.After(c.now):
			due = append(due, t)
		default:
			keep = append(keep, t)
		}
	}
	c.timers = keep
	c.mu.Unlock()
	sort.Slice(due, func(i, j int) bool { return due[i].at.Before(due[j].at) })
	for _, t := range due {
		t.f()
	}
}

// pending is how many timers are armed.
func (c *clock) pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, t := range c.timers {
		if !t.stopped {
			n++
		}
	}
	return n
}

// recorder stands in for the buddy service: it gets the Decided
// messages, and the screen's SetSpecies and Nap.
type recorder struct {
	got   chan approvals.Decided
	other chan any
}

func (r *recorder) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case approvals.Decided:
		r.got <- m
	case buddyactor.SetSpecies, buddyactor.Nap:
		select {
		case r.other <- m:
		default: // a test that does not read them
		}
	case supervisortest.Ping:
		c.Respond(m)
	}
}

// recDrawer is a display.Drawer that records the rectangles drawn, and
// the pixels they covered since it was made.
type recDrawer struct {
	*sim.Display
	mu     sync.Mutex
	rects  []image.Rectangle
	pixels int
}

func (r *recDrawer) Draw(dst image.Rectangle, src image.Image, sp image.Point) error {
	r.mu.Lock()
	r.rects = append(r.rects, dst)
	r.pixels += dst.Dx() * dst.Dy()
	r.mu.Unlock()
	return r.Display.Draw(dst, src, sp)
}

func (r *recDrawer) drawnPixels() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pixels
}

func (r *recDrawer) take() []image.Rectangle {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.rects
	r.rects = nil
	return out
}

type rig struct {
	tree  *supervisor.Tree
	board *sim.Board
	disp  *recDrawer
	clk   *clock
	got   chan approvals.Decided
	other chan any // SetSpecies and Nap at the fake buddy
	audio *audio.Fake
}

func newRig(t testing.TB, mod func(*Config), extra ...supervisor.Service) *rig {
	t.Helper()
	board, err := sim.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{board: board, disp: &recDrawer{Display: board.Display}, clk: &clock{now: t0},
		got: make(chan approvals.Decided, 4), other: make(chan any, 8), audio: &audio.Fake{}}
	cfg := Config{Board: "sim", Display: r.disp, Input: board.Buttons, Now: r.clk.Now, AfterFunc: r.clk.AfterFunc,
		Audio: r.audio, Addrs: func() []string { return []string{"192.0.2.7"} }}
	if mod != nil {
		mod(&cfg)
	}
	// An extra "ble" or "dock" (a test's fake) replaces the absent one.
	fakeOr := func(name string) supervisor.Service {
		for i, e := range extra {
			if e.Name == name {
				extra = append(extra[:i:i], extra[i+1:]...)
				return e
			}
		}
		return supervisor.Service{Name: name, Policy: supervisor.DefaultPolicy, New: absent.New("test")}
	}
	ble, dockSvc := fakeOr("ble"), fakeOr("dock")
	svcs := []supervisor.Service{
		ble,
		{Name: "buddy", Policy: supervisor.DefaultPolicy, New: func(*supervisor.Handle) actor.Actor { return &recorder{got: r.got, other: r.other} }},
		{Name: "approvals", Policy: supervisor.DefaultPolicy, New: approvals.New(approvals.WithOwner("desktop", "buddy"), approvals.WithOwner("cli:*", "lan"))},
		dockSvc,
	}
	// The ui subscribes in Started to everything it shows: the extras run
	// before it.
	svcs = append(svcs, extra...)
	svcs = append(svcs, supervisor.Service{Name: "ui", Policy: supervisor.DefaultPolicy, DependsOn: []string{"approvals"}, New: New(cfg)})
	r.tree, err = supervisor.New(supervisor.Options{}, svcs...)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.tree.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := r.tree.Shutdown(ctx); err != nil {
			t.Error(err)
		}
	})
	r.waitFor(t, "the first frame", func() bool { return r.stats(t).Frames > 0 })
	return r
}

func (r *rig) view(t testing.TB) View {
	t.Helper()
	return supervisortest.Ask[View](t, r.tree, "ui", GetView{})
}

func (r *rig) stats(t testing.TB) Stats {
	t.Helper()
	return supervisortest.Ask[Stats](t, r.tree, "ui", GetStats{})
}

func (r *rig) send(svc string, msg any) {
	sys := r.tree.System()
	sys.Root.Send(supervisor.ServicePID(sys, svc), msg)
}

func (r *rig) press(t testing.TB, name string) {
	t.Helper()
	before := r.stats(t).Presses
	r.waitFor(t, "the ui to subscribe to the buttons", func() bool {
		_, n, _ := r.board.Buttons.Press(name, 0)
		return n == 1
	})
	r.waitFor(t, "the press handled", func() bool { return r.stats(t).Presses == before+1 })
}

// pressHold is press with the button held for hold (up to the fake
// clock's now); long when hold reaches sim.LongPress.
func (r *rig) pressHold(t testing.TB, name string, hold time.Duration) {
	t.Helper()
	before := r.stats(t).Presses
	if _, n, err := r.board.Buttons.Press(name, min(hold, sim.MaxHold)); n != 1 {
		t.Fatalf("press %s delivered to %d subscribers: %v", name, n, err)
	}
	r.waitFor(t, "the press handled", func() bool { return r.stats(t).Presses == before+1 })
}

func (r *rig) waitFor(t testing.TB, what string, ok func() bool) {
	t.Helper()
	supervisortest.WaitFor(t, what, ok)
}

// noDecision checks that no decision reached buddy, without sleeping:
// once approvals has answered (it has handled any Decide the ui sent
// before) and buddy has answered a Ping (it has handled any Decided),
// a decision would already be in r.got.
func (r *rig) noDecision(t testing.TB, what string) {
	t.Helper()
	supervisortest.Ask[approvals.Pending](t, r.tree, "approvals", approvals.GetPending{})
	supervisortest.Sync(t, r.tree, "buddy")
	select {
	case d := <-r.got:
		t.Fatalf("%s: buddy got %+v", what, d)
	default:
	}
}

// decided waits for the decision that reaches buddy, failing with what
// was expected if none comes.
func (r *rig) decided(t testing.TB, what string) approvals.Decided {
	t.Helper()
	select {
	case d := <-r.got:
		return d
	case <-time.After(supervisortest.Patience):
		t.Fatalf("no decision reached buddy: %s", what)
	}
	return approvals.Decided{}
}

func (r *rig) prompt(id, tool string) {
	r.send("approvals", approvals.SetPrompts{Source: "desktop", LinkUp: true,
		Prompts: []approvals.Prompt{{Source: "desktop", ID: id, Tool: tool, Hint: "go test ./...", Arrived: r.clk.Now()}}})
}

// near counts pixels of the framebuffer in rect within 24 of c per channel.
func near(img *image.RGBA, rect image.Rectangle, c color.RGBA) int {
	n := 0
	d := func(a, b uint8) bool { return int(a)-int(b) < 24 && int(b)-int(a) < 24 }
	for y := rect.Min.Y; y < rect.Max.Y; y++ {
		for x := rect.Min.X; x < rect.Max.X; x++ {
			p := img.RGBAAt(x, y)
			if d(p.R, c.R) && d(p.G, c.G) && d(p.B, c.B) {
				n++
			}
		}
	}
	return n
}

var (
	green = color.RGBA{0x4c, 0xc3, 0x6a, 0xff} // the approve legend
	red   = color.RGBA{0xe5, 0x55, 0x4f, 0xff} // the deny legend
)

func TestApproveThroughApprovals(t *testing.T) {
	r := newRig(t, nil)
	r.press(t, "A")
	if n := r.stats(t).Decisions; n != 0 {
		t.Fatalf("a press with no prompt sent %d decisions", n)
	}
	id := "req_✓_ünïcode"
	r.prompt(id, "Bash")
	r.waitFor(t, "the approval screen", func() bool { v := r.view(t); return v.Screen == ScreenApproval && v.Tool == "Bash" })
	fb, _ := r.board.Display.Snapshot()
	legend := image.Rect(0, 204, 240, 240)
	if g, rd := near(fb, image.Rect(0, 204, 120, 240), green), near(fb, image.Rect(120, 204, 240, 240), red); g < 1000 || rd < 1000 {
		t.Fatalf("legend %v: %d approve-green and %d deny-red pixels, want a filled button each", legend, g, rd)
	}
	r.waitFor(t, "the prompt chime", func() bool { return len(r.audio.Played()) == 1 })

	r.press(t, "A")
	d := r.decided(t, "A on the prompt")
	if d.ID != id || d.By != By || d.Decision.String() != "once" {
		t.Fatalf("decided %+v, want once for %q by %s", d, id, By)
	}
	r.waitFor(t, "sent… on the screen", func() bool { return r.view(t).Sent })
	fb, _ = r.board.Display.Snapshot()
	if g := near(fb, image.Rect(0, 204, 120, 240), green); g > 50 {
		t.Fatalf("%d approve-green pixels after the press: the legend is still up", g)
	}
	r.press(t, "B")
	r.noDecision(t, "a second press")
	if n := r.stats(t).Decisions; n != 1 {
		t.Fatalf("%d decisions, want 1", n)
	}
	// The prompt goes: the screen returns home.
	r.send("approvals", approvals.SetPrompts{Source: "desktop", LinkUp: true})
	r.waitFor(t, "home", func() bool { return r.view(t).Screen == ScreenHome })
}

// The desktop's link drops with a prompt on the screen: the real approvals
// service holds it, the panel says "reconnecting…" without either button,
// and A sends nothing until a heartbeat after the reconnect lists it again.
func TestReconnectingPromptThroughApprovals(t *testing.T) {
	r := newRig(t, nil)
	r.prompt("req_hold", "Bash")
	r.waitFor(t, "the approval screen", func() bool { v := r.view(t); return v.Screen == ScreenApproval && v.Tool == "Bash" })
	r.send("approvals", approvals.SetPrompts{Source: "desktop", Hold: 15 * time.Second})
	r.waitFor(t, "reconnecting… on the screen", func() bool { return r.view(t).Reconnecting })
	fb, _ := r.board.Display.Snapshot()
	if g, rd := near(fb, image.Rect(0, 204, 240, 240), green), near(fb, image.Rect(0, 204, 240, 240), red); g > 50 || rd > 50 {
		t.Fatalf("legend while reconnecting: %d approve-green and %d deny-red pixels, want no buttons", g, rd)
	}
	r.press(t, "A")
	r.press(t, "B")
	r.noDecision(t, "a press while reconnecting")
	if n, v := r.stats(t).Decisions, r.view(t); n != 0 || v.Screen != ScreenApproval {
		t.Fatalf("after presses while reconnecting: %d decisions, screen %s", n, v.Screen)
	}
	r.prompt("req_hold", "Bash") // the first heartbeat after the reconnect
	r.waitFor(t, "the buttons back", func() bool { return !r.view(t).Reconnecting })
	r.press(t, "A")
	d := r.decided(t, "A after the prompt was restored")
	if d.ID != "req_hold" || d.Decision.String() != "once" {
		t.Fatalf("decided %+v, want once for req_hold", d)
	}
}

func TestScreenTimeoutAndWakingPress(t *testing.T) {
	r := newRig(t, nil)
	r.clk.advance(29 * time.Second)
	if v := r.view(t); v.Screen != ScreenHome {
		t.Fatalf("after 29 s the screen is %s", v.Screen)
	}
	r.clk.advance(time.Second)
	r.waitFor(t, "the screen off", func() bool { return r.view(t).Screen == ScreenOff })
	fb, _ := r.board.Display.Snapshot()
	if n := near(fb, fb.Bounds(), color.RGBA{A: 0xff}); n != 240*240 {
		t.Fatalf("screen off: %d black pixels of %d", n, 240*240)
	}
	frames := r.stats(t).Frames
	r.disp.take()
	// Nothing ticks while the screen is off: no timer is armed at all.
	if n := r.clk.armed(); n != 0 {
		t.Fatalf("%d timers armed while the screen is off", n)
	}
	r.clk.advance(time.Minute)
	if n := r.stats(t).Frames; n != frames {
		t.Fatalf("%d frames rendered while off", n-frames)
	}
	if rs := r.disp.take(); len(rs) != 0 {
		t.Fatalf("drawn while off: %v", rs)
	}
	// The waking press does nothing else: X would have opened the info page.
	r.press(t, "X")
	if v := r.view(t); v.Screen != ScreenHome || v.Page != 0 {
		t.Fatalf("after the waking press: %s page %d, want home", v.Screen, v.Page)
	}
	r.press(t, "X")
	if v := r.view(t); v.Screen != ScreenInfo || v.Page != 1 {
		t.Fatalf("after the second press: %s page %d, want info 1", v.Screen, v.Page)
	}
	// A pending prompt keeps the screen on.
	r.prompt("p1", "Edit")
	r.waitFor(t, "the approval screen", func() bool { return r.view(t).Screen == ScreenApproval })
	r.clk.advance(2 * time.Minute)
	if v := r.view(t); v.Screen != ScreenApproval {
		t.Fatalf("with a prompt pending the screen went %s", v.Screen)
	}
}

func TestIncrementalRedraw(t *testing.T) {
	r := newRig(t, func(c *Config) {
		c.ScreenTimeout = time.Hour
	})
	// Connected and idle: the character animates; each tick sends only
	// what moved.
	r.send("ui", buddyactor.State{Connected: true})
	r.clk.advance(13 * time.Second) // past the wake-up sleep
	r.waitFor(t, "idle drawn", func() bool { return r.view(t).Persona == "idle" })
	var drawn, frames int
	for range 8 {
		before := r.settled(t)
		r.clk.advance(125 * time.Millisecond)
		r.waitFor(t, "a frame", func() bool { return r.stats(t).Frames > before.Frames })
		// Other messages (a state publish, the redraw of an event) may
		// render an extra frame, so compare totals once every frame begun
		// is on the panel: every pixel sent to it is one the ui counted as
		// damaged, and nothing else.
		v := r.settled(t)
		area := v.Pixels - before.Pixels
		if area >= 240*240 {
			t.Fatalf("an animation frame redrew the whole panel (%d pixels)", area)
		}
		drawn += area
		frames++
	}
	if avg := drawn / frames; avg == 0 || avg > 240*240/4 {
		t.Fatalf("home animation drew %d pixels per frame on average, want some but under a quarter of the panel", avg)
	}
	t.Logf("home animation: %d pixels per frame (of %d)", drawn/frames, 240*240)
	// The prompt's age ticks once a second and damages only the header.
	r.prompt("p1", "Bash")
	r.waitFor(t, "the approval screen", func() bool { return r.view(t).Screen == ScreenApproval })
	r.settled(t)
	r.disp.take()
	before := r.stats(t).Frames
	r.clk.advance(time.Second)
	r.waitFor(t, "the age frame", func() bool { return r.stats(t).Frames > before })
	r.settled(t)
	for _, rc := range r.disp.take() {
		if rc.Max.Y > 30 {
			t.Fatalf("the age tick drew %v below the header", rc)
		}
	}
}

// settled waits until the panel has had exactly the pixels the ui counted
// as damaged, and returns those counters. The counters and the panel are
// read one after the other, so a frame drawn in between shows as a
// difference until the next poll; a pixel sent but not counted (or
// counted but not sent) never settles.
func (r *rig) settled(t testing.TB) Stats {
	t.Helper()
	var st Stats
	r.waitFor(t, "the panel to have the pixels the ui counted", func() bool {
		st = r.stats(t)
		return r.disp.drawnPixels() == st.Pixels
	})
	return st
}

func TestPasskeyOverridesApproval(t *testing.T) {
	r := newRig(t, nil)
	r.prompt("p1", "Bash")
	r.waitFor(t, "the approval screen", func() bool { return r.view(t).Screen == ScreenApproval })
	r.send("ui", bleactor.LinkState{Connected: true, Passkey: "042917", Central: "MacBook"})
	r.waitFor(t, "the passkey screen", func() bool { return r.view(t).Screen == ScreenPasskey })
	fb, _ := r.board.Display.Snapshot()
	if g := near(fb, image.Rect(0, 204, 240, 240), green); g > 50 {
		t.Fatalf("%d approve-green pixels on the passkey screen", g)
	}
	r.press(t, "A")
	r.noDecision(t, "a press on the passkey screen")
	r.send("ui", bleactor.LinkState{Connected: true, Secured: true})
	r.waitFor(t, "the approval screen back", func() bool { return r.view(t).Screen == ScreenApproval })
}

func TestInstalledPackLoads(t *testing.T) {
	dir := t.TempDir()
	pack := PackDir(dir)
	if err := os.MkdirAll(pack, 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := `{"name":"blip","mode":"text","colors":{"body":"#00FF00","bg":"#000000"},
 "states":{"idle":{"frames":["(o_o)","(-_-)"],"delay":300},"sleep":{"frames":["(u_u)"]}}}`
	if err := os.WriteFile(filepath.Join(pack, "manifest.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, func(c *Config) { c.DataDir = dir })
	r.send("ui", buddyactor.State{Pack: "blip"})
	r.waitFor(t, "the pack", func() bool { return r.view(t).Character == "blip" })
	fb, _ := r.board.Display.Snapshot()
	if n := near(fb, image.Rect(50, 24, 190, 136), color.RGBA{0, 0xff, 0, 0xff}); n < 20 {
		t.Fatalf("%d pack-green pixels in the character box", n)
	}
}

func TestRestartLeavesNoGoroutines(t *testing.T) {
	r := newRig(t, nil)
	before := runtime.NumGoroutine()
	for range 3 {
		p0, _ := r.tree.Process("ui")
		if err := r.tree.SignalProcess("ui", "KILL"); err != nil {
			t.Fatal(err)
		}
		r.waitFor(t, "ui back", func() bool {
			p, _ := r.tree.Process("ui")
			return p.State == supervisor.Running && p.Start.After(p0.Start)
		})
		r.waitFor(t, "the new incarnation to draw", func() bool { return r.stats(t).Frames > 0 })
	}
	r.waitFor(t, "goroutines back to the baseline", func() bool { return runtime.NumGoroutine() <= before })
	if _, n, _ := r.board.Buttons.Press("A", 0); n != 1 {
		t.Fatalf("after 3 restarts the press reached %d subscribers, want 1", n)
	}
}
