package cli

import (
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/internal/appliance/appliancetest"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// TestHookTurnStartArrivingLateKeepsItsPrompt plays, with real hook
// processes, the race the real CLI lost a prompt to: Claude Code spawns a
// turn's UserPromptSubmit hook in the background, then the
// PermissionRequest hook of the turn's first tool call, and under load the
// event reaches the Pi second. The event's process is held on its stdin so
// that it arrives after the prompt every time. Judged by arrival, the Pi
// took the prompt off and answered the hook "moved on", and the call was
// refused in the terminal; judged by spawn order (the
// Claude-Pi-Hook-Started header), the prompt stays. A turn-start event
// spawned after the prompt still ends it.
func TestHookTurnStartArrivingLateKeepsItsPrompt(t *testing.T) {
	t.Setenv("CLAUDE_CODE_ENTRYPOINT", "cli")
	bin := filepath.Join(t.TempDir(), "claude-pi")
	appliancetest.Build(t, bin)
	p := startPi(t)
	dir := pairCLI(t, p, "laptop")
	submit := strings.NewReplacer(`"hook_event_name":"PermissionRequest"`, `"hook_event_name":"UserPromptSubmit","prompt":"rebuild it"`).Replace(hookPermissionJSON)
	if submit == hookPermissionJSON {
		t.Fatal("the UserPromptSubmit input is the PermissionRequest's")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	hook := func(kind string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, bin, "hook", kind, "--config", dir)
		cmd.Env = append(cmd.Environ(), "CLAUDE_CODE_ENTRYPOINT=cli")
		return cmd
	}

	// The turn's UserPromptSubmit hook is spawned first and held.
	early := hook("event")
	stdin, err := early.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := early.Start(); err != nil {
		t.Fatal(err)
	}
	// Linux stamps spawns in 10 ms ticks: the permission hook comes a
	// tick later, as a real one comes a model reply later.
	time.Sleep(30 * time.Millisecond)
	perm := hook("permission")
	perm.Stdin = strings.NewReader(hookPermissionJSON)
	var permOut strings.Builder
	perm.Stdout = &permOut
	if err := perm.Start(); err != nil {
		t.Fatal(err)
	}
	permDone := make(chan error, 1)
	go func() { permDone <- perm.Wait() }()
	pv := waitPrompt(t, p)

	// Now the early event arrives. Its process exits once the Pi has
	// taken it (the event answers 204 after the actor applied it).
	io.WriteString(stdin, submit)
	stdin.Close()
	if err := early.Wait(); err != nil {
		t.Fatalf("the UserPromptSubmit hook: %v", err)
	}
	if ps := p.pending(t); len(ps) != 1 || ps[0].ID != pv.ID {
		t.Fatalf("a UserPromptSubmit spawned before the prompt took it off the Pi: pending %+v", ps)
	}
	select {
	case err := <-permDone:
		t.Fatalf("the permission hook ended (%v) with %q: the Pi answered it", err, permOut.String())
	default:
	}

	// A UserPromptSubmit spawned after the prompt is a new turn: the
	// prompt is stale, leaves the Pi, and its hook gets no decision.
	late := hook("event")
	late.Stdin = strings.NewReader(submit)
	if out, err := late.CombinedOutput(); err != nil {
		t.Fatalf("the second UserPromptSubmit hook: %v\n%s", err, out)
	}
	supervisortest.WaitFor(t, "the stale prompt off the Pi", func() bool { return len(p.pending(t)) == 0 })
	select {
	case <-permDone:
	case <-time.After(15 * time.Second):
		t.Fatal("the permission hook still waits after its turn ended")
	}
	if permOut.Len() != 0 {
		t.Fatalf("the stale prompt's hook printed %q, want no decision", permOut.String())
	}
}
