package e2e

// Issue 19's hostile-input suite on the in-process sim appliance: each
// case an attacker found, as a regression test, with bounded counts and
// time. The surfaces that already held have their tests beside their
// code; this file holds the cases that cross services.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/internal/appliance/appliancetest/fakedesktop"
	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// TestHostilePairingCannotTakeTheApproveButton: with a Bash prompt on the
// screen, a stranger on the LAN asks to pair. A answers the prompt (the
// desktop gets its permission line) and pairs nobody; once the prompt is
// gone the request shows, a short A still does nothing, and B refuses it.
func TestHostilePairingCannotTakeTheApproveButton(t *testing.T) {
	e2e(t)
	e2e(t)
	a := startApplianceWith(t, func(c *Config) { c.LAN.Listen = "127.0.0.1:0" })
	addr := a.lanAddr(t)
	d := a.Dial(t, &fakedesktop.Options{Owner: "Ada", StatusEvery: time.Second, Debounce: 20 * time.Millisecond})
	d.SetPrompt("req_bash", "Bash", "rm -rf build")
	a.awaitPrompt(t, "req_bash")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out supervisortest.SyncBuffer
	pairDone := make(chan error, 1)
	go func() {
		pairDone <- run(ctx, []string{"pair", "--config", t.TempDir(), "--name", "mallory", addr}, strings.NewReader("y\n"), &out, io.Discard)
	}()
	supervisortest.Within(t, 10*time.Second, "the stranger's pairing request at the lan", func() bool {
		p, _ := a.lanState(t)["pairing"].(map[string]any)
		return p != nil
	})
	// The ui polls the lan: wait until it knows of the request too.
	supervisortest.Within(t, 5*time.Second, "the ui aware of the pairing request", func() bool { return a.UIView(t).Pairing != "" })
	if v := a.UIView(t); v.Screen != "approval" || v.Tool != "Bash" {
		t.Fatalf("with a prompt pending, a pairing request made the screen %q (%q), want the Bash prompt", v.Screen, v.Tool)
	}
	a.Press(t, "A")
	if p := oneDecision(t, d, 300*time.Millisecond); p.ID != "req_bash" || p.Decision != pbuddy.Once {
		t.Fatalf("A sent %s, want once for req_bash", p.Line)
	}
	if clients, _ := a.lanState(t)["clients"].([]any); len(clients) != 0 {
		t.Fatalf("the stranger was paired: %v", clients)
	}

	d.ClearPrompt()
	supervisortest.Within(t, 10*time.Second, "the pairing screen once no prompt is pending", func() bool { return a.UIView(t).Screen == "pairing" })
	presses := a.UIStats(t).Presses
	a.Press(t, "A")
	supervisortest.Within(t, 5*time.Second, "the short A handled", func() bool { return a.UIStats(t).Presses > presses })
	if v := a.UIView(t); v.PairingAccepted || v.Screen != "pairing" {
		t.Fatalf("a short A on the pairing screen: accepted %v, screen %q", v.PairingAccepted, v.Screen)
	}
	a.Press(t, "B")
	select {
	case err := <-pairDone:
		if err == nil || !strings.Contains(err.Error(), "refused") {
			t.Fatalf("pair after B: %v, want refused\n%s", err, out.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("pair did not end after B")
	}
	if clients, _ := a.lanState(t)["clients"].([]any); len(clients) != 0 {
		t.Fatalf("the stranger was paired: %v", clients)
	}
}

// TestHostileGIFBombRefusedAtCharEnd: a pushed pack whose 2 KB GIF
// declares 100 frames on a 1024×1024 screen (400 MB once composed) is
// refused at char_end with an error the desktop shows, and the old pack
// stays installed and on the screen.
func TestHostileGIFBombRefusedAtCharEnd(t *testing.T) {
	e2e(t)
	e2e(t)
	a := startAppliance(t, t.TempDir())
	d := a.Dial(t, &fakedesktop.Options{StatusEvery: -1})
	ctx := context.Background()
	pack := filepath.Join(t.TempDir(), "frog")
	writeGIFPack(t, pack, "frog", 2)
	if err := d.PushPack(ctx, pack); err != nil {
		t.Fatal(err)
	}
	supervisortest.Within(t, 10*time.Second, "the frog on the screen", func() bool { return a.UIView(t).Character == "frog" })

	pal := color.Palette{color.Black, color.White}
	g := &gif.GIF{Config: image.Config{Width: 1024, Height: 1024, ColorModel: pal}}
	for range 100 {
		g.Image = append(g.Image, image.NewPaletted(image.Rect(0, 0, 1, 1), pal))
		g.Delay = append(g.Delay, 10)
	}
	var bomb bytes.Buffer
	if err := gif.EncodeAll(&bomb, g); err != nil {
		t.Fatal(err)
	}
	err := d.PushFiles(ctx, "bomb", []fakedesktop.PackFile{
		{Name: "idle.gif", Data: bomb.Bytes()},
		{Name: "manifest.json", Data: []byte(`{"name":"bomb","states":{"idle":"idle.gif"}}`)},
	})
	var pe *fakedesktop.PushError
	if !errors.As(err, &pe) || pe.Step != "char_end" || pe.Ack == nil || !strings.Contains(pe.Ack.Error, "too large to load") {
		t.Fatalf("push of the GIF bomb: %v, want char_end refused as too large to load", err)
	}
	if got := buddyState(t, a).Pack; got != "frog" {
		t.Fatalf("after the refused push the pack is %q, want frog", got)
	}
	if v := a.UIView(t); v.Character != "frog" {
		t.Fatalf("the screen shows %q, want the frog", v.Character)
	}
}

// flood sends n heartbeats, each with a new Bash prompt (ids tag-0 ..
// tag-(n-1)), as fast as the link takes them, and returns when the
// writer's last byte left (its last write returned: the desktop's send
// buffer is BLE-sized, fakedesktop.WriteBuffer) and the last prompt's id. The desktop's own heartbeats,
// which may land anywhere in the flood, carry the last prompt too, so
// the newest snapshot is that prompt whatever the order.
func flood(t testing.TB, d *fakedesktop.Desktop, n int, tag string) (time.Time, string) {
	t.Helper()
	prompt := func(i int) *pbuddy.Prompt {
		return &pbuddy.Prompt{ID: fmt.Sprintf("%s-%d", tag, i), Tool: "Bash", Hint: fmt.Sprintf("make -j%d", i)}
	}
	last := prompt(n - 1)
	d.SetPrompt(last.ID, last.Tool, last.Hint)
	for i := range n {
		h := pbuddy.Heartbeat{Present: pbuddy.FieldTotal | pbuddy.FieldWaiting | pbuddy.FieldMsg, Total: 1, Waiting: 1, Msg: "approve: Bash",
			Prompt: prompt(i)}
		if err := d.SendRaw(pbuddy.Encode(h)); err != nil {
			t.Fatal(err)
		}
	}
	return time.Now(), last.ID
}

// TestHostileHeartbeatFlood is issue 19's fourth case: after 20,000
// heartbeats with changing prompts, A did not answer the newest prompt
// within 5 s. Heartbeats are snapshots and are folded wherever they
// queue, so the newest prompt shows and A answers it. (The latency is
// measured in BenchmarkHeartbeatFlood, not asserted here.)
func TestHostileHeartbeatFlood(t *testing.T) {
	e2e(t)
	a := startApplianceWith(t, nil)
	d := a.Dial(t, &fakedesktop.Options{Owner: "Ada", StatusEvery: -1})
	// What the appliance keeps after a flood does not grow with it: the
	// live heap after 20,000 heartbeats is within a few MB of that after
	// 2,000 (the flood's lines, if kept, would be 2.5 MB alone).
	_, short := flood(t, d, 2_000, "warm")
	a.awaitPrompt(t, short)
	heapShort := liveHeap()
	_, last := flood(t, d, 20_000, "req")
	a.awaitPrompt(t, last)
	if grew := liveHeap() - heapShort; grew > 4<<20 {
		t.Errorf("the live heap grew by %.1f MB from a 2,000 to a 20,000-heartbeat flood", float64(grew)/(1<<20))
	}
	if v := a.UIView(t); len(v.Prompts) != 1 {
		t.Fatalf("%d prompts on the ui after the flood, want the newest only", len(v.Prompts))
	}
	a.Press(t, "A")
	if p := oneDecision(t, d, 100*time.Millisecond); p.ID != last || p.Decision != pbuddy.Once {
		t.Fatalf("A sent %s, want once for %s", p.Line, last)
	}
	// The status ack still works after the flood.
	if st := d.PollStatus(context.Background()); st.Err != nil {
		t.Fatalf("status after the flood: %v", st.Err)
	}
}

// liveHeap is the heap in use after a collection.
func liveHeap() int64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// processCPU is the CPU time this process has used, user and system.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// rssMB is this process's resident set in MB.
func rssMB(tb testing.TB) float64 {
	mb, err := vmRSS(os.Getpid())
	if err != nil {
		tb.Skipf("no resident set size: %v", err)
	}
	return mb
}

// BenchmarkHeartbeatFlood: one op is a flood of n heartbeats on the sim
// appliance, then A on the newest prompt. It reports the press to
// permission line latency and the flood's end to the permission line
// (p50/p99 over the ops), and the process RSS before and at its highest
// during the floods (the appliance runs in the benchmark's process).
// Run with -benchtime=20x for a meaningful p99, and one flood length per
// process (-bench 'HeartbeatFlood/n=20000') so that RSS is this length's.
func BenchmarkHeartbeatFlood(b *testing.B) {
	for _, n := range []int{5_000, 20_000, 80_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) { benchFlood(b, n) })
	}
}

func benchFlood(b *testing.B, n int) {
	a := startApplianceWith(b, nil)
	d := a.Dial(b, &fakedesktop.Options{Owner: "Ada", StatusEvery: -1})
	before := rssMB(b)
	peak := before
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
				peak = max(peak, rssMB(b))
			}
		}
	}()
	var press, end []time.Duration
	i := 0
	frames, cpu := a.UIStats(b).Frames, processCPU(b)
	for b.Loop() {
		i++
		ended, last := flood(b, d, n, fmt.Sprintf("op%d", i))
		a.awaitPrompt(b, last)
		pressed := time.Now()
		a.Press(b, "A")
		p := <-d.Decisions()
		if p.ID != last {
			b.Fatalf("A answered %s, want %s", p.ID, last)
		}
		press = append(press, p.At.Sub(pressed))
		end = append(end, p.At.Sub(ended))
	}
	close(stop)
	<-sampled
	frames, cpu = a.UIStats(b).Frames-frames, processCPU(b)-cpu
	q := func(s []time.Duration, f float64) float64 {
		s = slices.Clone(s)
		slices.Sort(s)
		return float64(s[min(len(s)-1, int(f*float64(len(s))))].Microseconds()) / 1000
	}
	b.ReportMetric(q(press, 0.5), "ms-press-p50")
	b.ReportMetric(q(press, 0.99), "ms-press-p99")
	b.ReportMetric(q(end, 0.5), "ms-end-p50")
	b.ReportMetric(q(end, 0.99), "ms-end-p99")
	b.ReportMetric(float64(frames)/float64(b.N), "ui-frames/flood")
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/flood")
	b.ReportMetric(before, "MB-RSS-before")
	b.ReportMetric(peak, "MB-RSS-peak")
}
