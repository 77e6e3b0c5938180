package e2e

import (
	"bufio"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// BenchmarkHookProcess runs one `claude-pi hook permission` process per
// iteration, as Claude Code runs it (a built binary, its input on stdin),
// against the in-process sim appliance, and reports two latencies with
// p50 and p99: from the process start to the prompt on the Pi's screen
// (ui GetView, polled every ~0.1 ms), and from the press (POST /api/press)
// to the decision on the hook's stdout. Run it with enough iterations for
// a p99: go test -run '^$' -bench BenchmarkHookProcess -benchtime 100x ./e2e
func BenchmarkHookProcess(b *testing.B) {
	b.Setenv("CLAUDE_CODE_ENTRYPOINT", "cli")
	bin := claudePi(b)
	a := startApplianceWith(b, func(c *Config) { c.LAN.Listen = "127.0.0.1:0" })
	dir := a.pairByButton(b, "bench")
	var toScreen, toOutput []time.Duration
	for b.Loop() {
		cmd := exec.Command(bin, "hook", "permission", "--config", dir)
		cmd.Stdin = strings.NewReader(hookPermissionJSON)
		var stderr supervisortest.SyncBuffer
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		deadline := start.Add(30 * time.Second)
		for {
			v := a.UIView(b)
			if v.Screen == "approval" && !v.Sent && strings.HasPrefix(v.Source, "CLI engine") {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("iteration %d: no prompt on the screen within 30 s; the screen: %+v; the hook: %s", len(toScreen), v, stderr.String())
			}
		}
		seen := time.Now()
		pressed := time.Now()
		a.Press(b, "A")
		line, err := bufio.NewReader(out).ReadString('\n')
		answered := time.Now()
		if err != nil || !strings.Contains(line, `"allow"`) {
			b.Fatalf("hook printed %q (%v)", line, err)
		}
		cmd.Wait()
		toScreen = append(toScreen, seen.Sub(start))
		toOutput = append(toOutput, answered.Sub(pressed))
		supervisortest.Within(b, 10*time.Second, "the prompt gone", func() bool { return len(a.UIView(b).Prompts) == 0 })
		// The Pi allows 10 requests a second from one address: stay
		// well under it.
		time.Sleep(time.Until(start.Add(200 * time.Millisecond)))
	}
	report := func(name string, ds []time.Duration) {
		slices.Sort(ds)
		p := func(q float64) float64 {
			return float64(ds[min(len(ds)-1, int(q*float64(len(ds))))].Microseconds()) / 1000
		}
		b.ReportMetric(p(0.5), name+"-p50-ms")
		b.ReportMetric(p(0.99), name+"-p99-ms")
	}
	report("start-to-screen", toScreen)
	report("press-to-output", toOutput)
	b.ReportMetric(0, "ns/op") // the loop's time includes the cleanup wait
}
