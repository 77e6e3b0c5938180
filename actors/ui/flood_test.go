package ui

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
)

// processCPU is the CPU time this process has used, user and system.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// The trust property behind frame pacing: approve decides only a prompt
// the panel showed when the button went down. With an hour between event
// frames, every event leaves the state ahead of the panel until a press
// draws it; the press that does so decides nothing.
func TestPressActsOnTheFrameShown(t *testing.T) {
	r := newRig(t, func(c *Config) { c.FrameGap = time.Hour })
	r.prompt("p1", "Bash")
	r.waitFor(t, "p1 in the state", func() bool { return len(r.view(t).Prompts) == 1 })
	if v, n := r.view(t), r.stats(t).Frames; v.Screen != ScreenHome || n != 1 {
		t.Fatalf("an event within the frame gap drew %d frames and the %s screen, want home only", n, v.Screen)
	}
	r.press(t, "A") // home was on the panel
	r.noDecision(t, "A while home showed and p1 waited undrawn")
	if v := r.view(t); v.Screen != ScreenApproval || v.Shown.ID != "p1" || v.Sent {
		t.Fatalf("after the press: %s showing %q (sent %v), want p1's buttons", v.Screen, v.Shown.ID, v.Sent)
	}
	// p1 goes and p2 comes, both folded into the state but not drawn.
	r.prompt("p2", "Write")
	r.waitFor(t, "p2 in the state", func() bool { v := r.view(t); return len(v.Prompts) == 1 && v.Prompts[0].ID == "p2" })
	if v := r.view(t); v.Shown.ID != "p1" {
		t.Fatalf("the panel shows %q, want p1 still (the frame gap holds it)", v.Shown.ID)
	}
	r.press(t, "A")
	r.noDecision(t, "A while p1 showed and p2 waited undrawn")
	if v := r.view(t); v.Shown.ID != "p2" || v.Tool != "Write" {
		t.Fatalf("after the press the panel shows %q (%s), want p2", v.Shown.ID, v.Tool)
	}
	r.press(t, "A")
	d := r.decided(t, "A on the drawn p2")
	if d.ID != "p2" || d.Decision.String() != "once" {
		t.Fatalf("decided %+v, want once for p2", d)
	}
}

// A flood of prompts is drawn a frame at a time, and the frame after the
// flood shows the last prompt, which A then decides.
func TestFloodDrawsTheLastPrompt(t *testing.T) {
	r := newRig(t, nil)
	const n = 300
	for i := range n {
		r.prompt(fmt.Sprint("req-", i), "Bash")
	}
	last := fmt.Sprint("req-", n-1)
	r.waitFor(t, "the last prompt on the screen", func() bool { v := r.view(t); return v.Shown.ID == last && !v.Sent })
	r.press(t, "A")
	d := r.decided(t, "A on the last prompt")
	if d.ID != last {
		t.Fatalf("A decided %s, want %s", d.ID, last)
	}
	t.Logf("%d prompts, %d frames", n, r.stats(t).Frames)
}

// BenchmarkPromptFlood: one op is a new prompt in place of the last, as
// a desktop flooding heartbeats sends them, through the real approvals
// service to the ui on the sim panel; the flood ends when the screen
// shows the last one. Back to back, the prompts queue and fold anyway;
// every=250µs is the pace at which the link, buddy and approvals let a
// flood's new prompts through to the ui. It reports the frames drawn and
// the process CPU time per prompt (the frames are most of it).
func BenchmarkPromptFlood(b *testing.B) {
	for _, every := range []time.Duration{0, 250 * time.Microsecond} {
		b.Run(fmt.Sprint("every=", every), func(b *testing.B) { benchPromptFlood(b, every) })
	}
}

func benchPromptFlood(b *testing.B, every time.Duration) {
	r := newRig(b, func(c *Config) { c.ScreenTimeout = time.Hour })
	set := func(p approvals.Prompt) {
		r.send("approvals", approvals.SetPrompts{Source: "desktop", LinkUp: true, Prompts: []approvals.Prompt{p}})
	}
	set(approvals.Prompt{Source: "desktop", ID: "warm", Tool: "Bash", Hint: "make"})
	r.waitFor(b, "the first prompt on the screen", func() bool { return r.view(b).Screen == ScreenApproval })
	f0, c0 := r.stats(b).Frames, processCPU(b)
	var last string
	i := 0
	for b.Loop() {
		i++
		last = fmt.Sprint("req-", i)
		set(approvals.Prompt{Source: "desktop", ID: last, Tool: "Bash", Hint: fmt.Sprintf("make -j%d", i), Arrived: r.clk.Now()})
		if every > 0 {
			time.Sleep(every)
		}
	}
	r.waitFor(b, "the last prompt on the screen", func() bool { return r.view(b).Shown.ID == last })
	b.ReportMetric(float64(r.stats(b).Frames-f0)/float64(b.N), "frames/prompt")
	b.ReportMetric(float64(processCPU(b)-c0)/float64(b.N)/1e3, "cpu-µs/prompt")
}
