// Package appliancetest starts the appliance in-process for tests: the
// real actor tree on the sim board, with its NUS link and web page on free
// loopback ports. Tests wait and ask with supervisortest's helpers.
package appliancetest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/ui"
	"github.com/claude-pi/claude-pi/internal/appliance"
	"github.com/claude-pi/claude-pi/internal/appliance/appliancetest/fakedesktop"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// Appliance is one in-process claude-pi run on the sim board: the real
// actor tree from appliance.ServeWith, its NUS link, web API and ui.
type Appliance struct {
	appliance.Running
	Stop func()
	Logs *supervisortest.SyncBuffer
}

// Start runs the appliance with its data in dataDir, which a test may
// reuse to start a second run on the same state.
func Start(t testing.TB, dataDir string) *Appliance {
	t.Helper()
	return StartWith(t, func(c *appliance.Config) { c.DataDir = dataDir })
}

// Host is a machine that is not a Pi, with no XDG directories and its
// home in a temporary directory.
func Host(t testing.TB) appliance.Host {
	return appliance.Host{Getenv: func(string) string { return "" }, Home: t.TempDir()}
}

// SimConfig is the sim board with every listener on a free loopback port
// and its files in temporary directories.
func SimConfig(t testing.TB) appliance.Config {
	httpAddr := "127.0.0.1:0"
	return appliance.Config{Board: "sim", DataDir: t.TempDir(), ControlSocket: filepath.Join(t.TempDir(), "s.sock"), HTTP: &httpAddr,
		BLE: appliance.BLEConfig{NUSListen: "127.0.0.1:0"}}
}

// StartWith runs the appliance on SimConfig after configure (if not nil)
// changed it. It is stopped when the test ends, and its log is printed if
// the test failed.
func StartWith(t testing.TB, configure func(*appliance.Config)) *Appliance {
	t.Helper()
	return StartOptions(t, configure, appliance.Options{})
}

// StartOptions is StartWith with the appliance's options (a link of the
// test's own, say); their Ready is this package's.
func StartOptions(t testing.TB, configure func(*appliance.Config), o appliance.Options) *Appliance {
	t.Helper()
	c := SimConfig(t)
	if configure != nil {
		configure(&c)
	}
	s, err := appliance.Resolve(c, "test.toml", Host(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan appliance.Running, 1)
	done := make(chan error, 1)
	logs := &supervisortest.SyncBuffer{}
	o.Ready = func(r appliance.Running) { ready <- r }
	go func() { done <- appliance.ServeWith(ctx, s, io.Discard, logs, o) }()
	a := &Appliance{Logs: logs}
	select {
	case a.Running = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("appliance did not start: %v\n%s", err, logs)
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("appliance did not start within 30 s")
	}
	var stopped bool
	a.Stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("appliance stopped with %v", err)
		}
	}
	t.Cleanup(func() {
		a.Stop()
		if t.Failed() {
			t.Logf("appliance log:\n%s", logs)
		}
	})
	return a
}

// Dial connects the demo desktop to the appliance's NUS link.
func (a *Appliance) Dial(t testing.TB, opts *fakedesktop.Options) *fakedesktop.Desktop {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d, err := fakedesktop.DialOptions(ctx, a.NUS, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// Press presses a sim button through the web API, as the page does.
func (a *Appliance) Press(t testing.TB, button string) {
	t.Helper()
	// A person presses what the panel shows; the ui's frame can be one
	// behind its state for up to ui.DefaultFrameGap. (A ui that does not
	// answer, being killed, gets the press as it is, and so does another
	// process's, whose /api/state has the prompt of the frame.)
	supervisortest.Within(t, 5*time.Second, "the screen up to date", func() bool {
		if a.Tree == nil {
			return true
		}
		v, err := supervisortest.TryAsk[ui.View](a.Tree, "ui", ui.GetView{})
		return err != nil || !v.Behind
	})
	resp, err := http.Post(a.WebURL+"/api/press/"+button, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("POST /api/press/%s = %d", button, resp.StatusCode)
	}
}

// Hold presses a sim button for a long press that begins after this
// call (the ui takes a hold that began before the screen it acts on
// showed for a press meant for the screen before).
func (a *Appliance) Hold(t testing.TB, button string) {
	t.Helper()
	const held = 600 * time.Millisecond // sim.LongPress is 500 ms
	time.Sleep(held + 100*time.Millisecond)
	resp, err := http.Post(fmt.Sprintf("%s/api/press/%s?hold=%d", a.WebURL, button, held.Milliseconds()), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("POST /api/press/%s?hold=%d = %d", button, held.Milliseconds(), resp.StatusCode)
	}
}

// UIView asks the ui service what it shows.
func (a *Appliance) UIView(t testing.TB) ui.View {
	t.Helper()
	return supervisortest.Ask[ui.View](t, a.Tree, "ui", ui.GetView{})
}

// UIStats asks the ui service for its counters (presses, decisions,
// frames).
func (a *Appliance) UIStats(t testing.TB) ui.Stats {
	t.Helper()
	return supervisortest.Ask[ui.Stats](t, a.Tree, "ui", ui.GetStats{})
}

// APIState is GET /api/state, decoded loosely.
func (a *Appliance) APIState(t testing.TB) map[string]any {
	t.Helper()
	resp, err := http.Get(a.WebURL + "/api/state")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// E2E skips an end-to-end test under -short, for a quick local run; CI
// runs them all.
func E2E(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end: skipped under -short")
	}
}

// WriteFile writes s to path or fails the test.
func WriteFile(t testing.TB, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Build builds the claude-pi binary to out with go build's flags, from the
// module's root whatever directory the test runs in.
func Build(t testing.TB, out string, flags ...string) {
	t.Helper()
	if err := GoBuild(out, flags...); err != nil {
		t.Fatal(err)
	}
}

// GoBuild is Build for a caller without a test at hand (a TestMain, a
// build shared by a whole run): the error names the command and holds the
// compiler's output.
func GoBuild(out string, flags ...string) error {
	root, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("go env GOMOD: %w", err)
	}
	args := append(append([]string{"build", "-o", out}, flags...), ".")
	cmd := exec.Command("go", args...)
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(root)))
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %v: %w\n%s", args, err, b)
	}
	return nil
}
