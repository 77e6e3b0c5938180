package main

// The in-process appliance the end-to-end tests drive: the real actor tree
// from serveWith on the sim board, its NUS link, web API and ui.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/ui"
	"github.com/claude-pi/claude-pi/boards/sim/desktop"
	"github.com/claude-pi/claude-pi/supervisor"
)

// appliance is one in-process claude-pi run on the sim board.
type appliance struct {
	running
	stop func()
	logs *syncBuffer
}

// startAppliance runs the appliance with its data in dataDir, which a
// test may reuse to start a second run on the same state.
func startAppliance(t *testing.T, dataDir string) *appliance {
	t.Helper()
	return startApplianceWith(t, func(c *Config) { c.DataDir = dataDir })
}

// startApplianceWith runs the appliance on the sim board with every
// listener on a free loopback port, after configure (if not nil) changed
// the config. It is stopped when the test ends, and its log is printed if
// the test failed.
func startApplianceWith(t testing.TB, configure func(*Config)) *appliance {
	t.Helper()
	httpAddr := "127.0.0.1:0"
	c := Config{Board: "sim", DataDir: t.TempDir(), ControlSocket: filepath.Join(t.TempDir(), "s.sock"), HTTP: &httpAddr,
		BLE: BLEConfig{NUSListen: "127.0.0.1:0"}}
	if configure != nil {
		configure(&c)
	}
	s, err := resolve(c, "test.toml", host{getenv: func(string) string { return "" }, home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan running, 1)
	done := make(chan error, 1)
	logs := &syncBuffer{}
	go func() { done <- serveWith(ctx, s, io.Discard, logs, func(r running) { ready <- r }) }()
	a := &appliance{logs: logs}
	select {
	case a.running = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("appliance did not start: %v\n%s", err, logs)
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("appliance did not start within 30 s")
	}
	var stopped bool
	a.stop = func() {
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
		a.stop()
		if t.Failed() {
			t.Logf("appliance log:\n%s", logs)
		}
	})
	return a
}

// dial connects the demo desktop to the appliance's NUS link.
func (a *appliance) dial(t testing.TB, opts *desktop.Options) *desktop.Desktop {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d, err := desktop.DialOptions(ctx, a.nus, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// press presses a sim button through the web API, as the page does.
func (a *appliance) press(t testing.TB, button string) {
	t.Helper()
	// A person presses what the panel shows; the ui's frame can be one
	// behind its state for up to ui.DefaultFrameGap. (A ui that does not
	// answer, being killed, gets the press as it is, and so does another
	// process's, whose /api/state has the prompt of the frame.)
	poll(t, 5*time.Second, "the screen up to date", func() bool {
		if a.tree == nil {
			return true
		}
		v, err := tryAsk[ui.View](a.tree, "ui", ui.GetView{})
		return err != nil || !v.Behind
	})
	resp, err := http.Post(a.webURL+"/api/press/"+button, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("POST /api/press/%s = %d", button, resp.StatusCode)
	}
}

// hold presses a sim button for a long press that begins after this
// call (the ui takes a hold that began before the screen it acts on
// showed for a press meant for the screen before).
func (a *appliance) hold(t testing.TB, button string) {
	t.Helper()
	const held = 600 * time.Millisecond // sim.LongPress is 500 ms
	time.Sleep(held + 100*time.Millisecond)
	resp, err := http.Post(fmt.Sprintf("%s/api/press/%s?hold=%d", a.webURL, button, held.Milliseconds()), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("POST /api/press/%s?hold=%d = %d", button, held.Milliseconds(), resp.StatusCode)
	}
}

// uiView asks the ui service what it shows.
func (a *appliance) uiView(t testing.TB) ui.View {
	t.Helper()
	return ask[ui.View](t, a.tree, "ui", ui.GetView{})
}

// ask sends msg to one of tree's services and returns its answer, which
// must be a T.
func ask[T any](t testing.TB, tree *supervisor.Tree, service string, msg any) T {
	t.Helper()
	sys := tree.System()
	r, err := sys.Root.RequestFuture(supervisor.ServicePID(sys, service), msg, time.Second).Result()
	if err != nil {
		t.Fatalf("asking %s: %v", service, err)
	}
	v, ok := r.(T)
	if !ok {
		t.Fatalf("%s answered %T, want %T", service, r, v)
	}
	return v
}

// apiState is GET /api/state, decoded loosely.
func (a *appliance) apiState(t testing.TB) map[string]any {
	t.Helper()
	resp, err := http.Get(a.webURL + "/api/state")
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

// e2e skips an end-to-end test under -short, for a quick local run; CI
// runs them all.
func e2e(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end: skipped under -short")
	}
}
