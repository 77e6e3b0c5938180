package main

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/boards/sim"
)

// TestSimScreenSleepsAndWakes: with [ui] screen_timeout the sim's screen
// goes to sleep, /api/state and the PNG's header say so, and a press wakes
// it.
func TestSimScreenSleepsAndWakes(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	writeFile(t, cfg, "[ui]\nscreen_timeout = \"5s\"\n[services.audio]\nautostart = false\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"run", "--config", cfg, "--board", "sim", "--data-dir", filepath.Join(dir, "data"),
			"--control-socket", filepath.Join(dir, "s.sock"), "--http", "127.0.0.1:0", "--nus-listen", "127.0.0.1:0"},
			strings.NewReader(""), &stdout, &stderr)
	}()
	web := waitForWeb(t, &stdout, done, &stderr)
	defer func() { cancel(); <-done }()

	screen := func() (state, header string) {
		t.Helper()
		resp, err := http.Get(web + "/api/state")
		if err != nil {
			t.Fatal(err)
		}
		var st sim.State
		err = json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		resp, err = http.Get(web + "/api/screen.png")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return st.Screen, resp.Header.Get(sim.ScreenStateHeader)
	}
	if st, h := screen(); st != sim.ScreenOn || h != sim.ScreenOn {
		t.Fatalf("just started: state %q, header %q, want on", st, h)
	}
	waitUntil(t, 20*time.Second, "the screen asleep after its 5 s timeout", func() bool {
		st, h := screen()
		return st == sim.ScreenAsleep && h == sim.ScreenAsleep
	})
	resp, err := http.Post(web+"/api/press/A", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	waitUntil(t, 10*time.Second, "a press to wake the screen", func() bool {
		st, h := screen()
		return st == sim.ScreenOn && h == sim.ScreenOn
	})
}
