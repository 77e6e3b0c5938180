package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/lan"
	"github.com/claude-pi/claude-pi/internal/appliance"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
	"github.com/claude-pi/claude-pi/supervisor"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// hookStop is a Stop of session as Claude Code writes it, with a reply.
func hookStop(session string) string {
	return `{"session_id":"` + session + `","cwd":"/home/ada/src/engine","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"I looked around. What next?"}`
}

// stopHook runs `claude-pi hook event` on a Stop, as Claude Code does, and
// returns what it printed and how long it took.
func stopHook(dir, input string) (<-chan string, time.Time) {
	out := make(chan string, 1)
	start := time.Now()
	go func() {
		var b bytes.Buffer
		run(context.Background(), []string{"hook", "event", "--config", dir}, strings.NewReader(input), &b, io.Discard)
		out <- b.String()
	}()
	return out, start
}

func waitOut(t *testing.T, out <-chan string, within time.Duration) string {
	t.Helper()
	select {
	case s := <-out:
		return s
	case <-time.After(within):
		t.Fatalf("the Stop hook still waits after %v", within)
		return ""
	}
}

// TestStopHookFollowUp: the Stop hook over the real LAN API, with the
// dock's side played by the test (lan.FollowUp to the lan service).
func TestStopHookFollowUp(t *testing.T) {
	const window = 3 * time.Second
	p := startPi(t, func(c *appliance.Config) {
		c.Voice.STTCommand, c.Voice.FollowUp, c.Voice.FollowUpSeconds = "true", true, int(window/time.Second)
	})
	dir := pairCLI(t, p, "laptop")
	dock := func(session, state, text string) {
		p.system.Root.Send(supervisor.ServicePID(p.system, lan.ServiceName),
			lan.FollowUp{Session: session, State: state, Text: text})
	}
	// stopped waits until the lan has taken session's Stop: its reply
	// is offered, and the dock's lines reach the hook from then on.
	stopped := func(session string) {
		supervisortest.WaitFor(t, "the Stop of "+session+" on the Pi", func() bool {
			return slices.ContainsFunc(p.state(t).Sessions, func(s lan.Session) bool { return s.ID == session })
		})
	}

	t.Run("the heard text blocks the stop with it", func(t *testing.T) {
		out, _ := stopHook(dir, hookStop("s1"))
		stopped("s1")
		dock("s1", hookbridge.FollowUpListening, "")
		time.Sleep(window) // past the window: a swipe came, so it waits on
		dock("s1", hookbridge.FollowUpText, "are you look at the")
		got := waitOut(t, out, 5*time.Second)
		var o struct{ Decision, Reason string }
		if err := json.Unmarshal([]byte(got), &o); err != nil || o.Decision != "block" || o.Reason != "are you look at the" {
			t.Fatalf("the Stop hook printed %q, want a block with the heard text", got)
		}
	})
	t.Run("nobody swiped: Claude stops when the window ends", func(t *testing.T) {
		out, start := stopHook(dir, hookStop("s2"))
		got := waitOut(t, out, window+2*time.Second)
		if got != "" {
			t.Fatalf("printed %q", got)
		}
		if d := time.Since(start); d < window-500*time.Millisecond || d > window+time.Second {
			t.Errorf("the Stop hook took %v, want the %v window", d, window)
		}
	})
	t.Run("the dock says none: at once", func(t *testing.T) {
		out, start := stopHook(dir, hookStop("s3"))
		stopped("s3")
		dock("s3", hookbridge.FollowUpNone, "")
		if got := waitOut(t, out, window); got != "" {
			t.Fatalf("printed %q", got)
		}
		if d := time.Since(start); d > window-time.Second {
			t.Errorf("the Stop hook took %v after the dock's none", d)
		}
	})
	t.Run("a Stop without a reply is not held", func(t *testing.T) {
		out, start := stopHook(dir, `{"session_id":"s4","hook_event_name":"Stop"}`)
		if got := waitOut(t, out, window); got != "" {
			t.Fatalf("printed %q", got)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("the Stop hook took %v", d)
		}
	})
}

// TestStopHookFollowUpOff: without [voice] follow_up the Pi answers at
// once and the hook prints nothing.
func TestStopHookFollowUpOff(t *testing.T) {
	p := startPi(t)
	dir := pairCLI(t, p, "laptop")
	out, start := stopHook(dir, hookStop("s1"))
	if got := waitOut(t, out, 3*time.Second); got != "" {
		t.Fatalf("printed %q", got)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("the Stop hook took %v with follow-ups off", d)
	}
}
