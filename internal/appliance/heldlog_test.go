package appliance

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

func TestHeldLogLetsTheFirstLineComeFirst(t *testing.T) {
	var out bytes.Buffer
	var hl heldLog
	log := slog.New(hl.handler(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug})))
	log.Info("service started", "name", "ui")
	log.With("actor", "lan").Debug("listening")
	log.Warn("the sim web page is reachable from the network")
	out.WriteString("Claude_Pi on board sim: web http://127.0.0.1:8330\n")
	hl.release()
	log.Info("after")
	hl.release()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{"reachable from the network", "Claude_Pi on board sim", "service started", "actor=lan", "after"}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), out.String())
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("line %d = %q, want it to hold %q", i, lines[i], w)
		}
	}
}

// TestFirstLineComesFirst: `claude-pi run` on the sim board, stdout and
// stderr one stream as in a terminal: the line that says where everything
// is comes before any log line.
func TestFirstLineComesFirst(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	writeFile(t, cfg, "board = \"sim\"\nhttp = \"127.0.0.1:0\"\n[ble]\nnus_listen = \"127.0.0.1:0\"\n[tts]\nengine = \"off\"\n")
	c, err := LoadConfig(cfg, true)
	if err != nil {
		t.Fatal(err)
	}
	c.DataDir, c.ControlSocket = filepath.Join(dir, "data"), filepath.Join(dir, "s.sock")
	s, err := Resolve(c, cfg, laptop())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var terminal supervisortest.SyncBuffer
	ready, done := make(chan Running, 1), make(chan error, 1)
	go func() {
		done <- ServeWith(ctx, s, &terminal, &terminal, Options{Ready: func(r Running) { ready <- r }})
	}()
	defer func() { cancel(); <-done }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("run returned %v\n%s", err, terminal.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("not ready\n%s", terminal.String())
	}
	first, _, _ := strings.Cut(terminal.String(), "\n")
	if !strings.HasPrefix(first, "Claude_Pi on board sim: web http://127.0.0.1:") {
		t.Fatalf("the first line is %q, want the one that says where everything is; all:\n%s", first, terminal.String())
	}
	if !strings.Contains(terminal.String(), "level=INFO msg=started") {
		t.Errorf("the held start-up lines never came:\n%s", terminal.String())
	}
}
