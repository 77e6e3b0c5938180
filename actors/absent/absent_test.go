package absent

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/supervisor"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

func TestAbsentRunsReloadsAndStops(t *testing.T) {
	var logs supervisortest.SyncBuffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	const why = "no audio output on this board"
	tree, err := supervisor.New(supervisor.Options{Logger: log},
		supervisor.Service{Name: "audio", Policy: supervisor.DefaultPolicy, New: New(why)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := tree.Start(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		p, err := tree.Process("audio")
		return err == nil && p.State == supervisor.Running && p.Description == why
	}, "audio RUNNING with its description")

	if err := tree.SignalProcess("audio", "HUP"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return strings.Contains(logs.String(), "reload: nothing to re-read") }, "the reload to be logged")
	p, _ := tree.Process("audio")
	if p.State != supervisor.Running {
		t.Errorf("after HUP: state %v, want RUNNING", p.State)
	}

	if err := tree.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if p, _ := tree.Process("audio"); p.State != supervisor.Stopped {
		t.Errorf("after Shutdown: state %v, want STOPPED", p.State)
	}
}

func waitFor(t *testing.T, ok func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
