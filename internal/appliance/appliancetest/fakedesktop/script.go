package fakedesktop

import (
	"context"
	"fmt"
	"time"
)

// Scripts names the scripted sessions Play knows.
var Scripts = []string{"default", "prompts"}

// Event is something the scripted session did or saw, for the demo to
// print.
type Event struct {
	At   time.Time
	Kind string // "session", "entry", "turn", "prompt", "decision", "status"
	Text string
}

// step is one thing a scripted session does.
type step struct {
	session string // starts a new session with this first user line
	entry   string // a transcript line, also sent as an assistant turn
	tool    string // with hint: a prompt that waits for the device
	hint    string
	tokens  uint64 // output tokens the step produced
	pause   time.Duration
}

// scripts are the scenarios, played in a loop. The default one paces like
// a real session: a few lines a second, a prompt now and then.
var scripts = map[string][]step{
	"default": {
		{session: "fix the flaky auth test", pause: 1200 * time.Millisecond},
		{entry: "Reading internal/auth/session_test.go", tokens: 1400, pause: 1500 * time.Millisecond},
		{entry: "Found a race on the token cache", tokens: 2600, pause: 1500 * time.Millisecond},
		{tool: "Bash", hint: "go test -race ./internal/auth/...", pause: time.Second},
		{entry: "Running go test -race ./internal/auth/...", tokens: 900, pause: 2 * time.Second},
		{entry: "Editing internal/auth/cache.go", tokens: 3100, pause: 1500 * time.Millisecond},
		{tool: "Edit", hint: "auth/cache.go", pause: time.Second},
		{session: "write the release notes", pause: 1500 * time.Millisecond},
		{entry: "Reading CHANGELOG.md", tokens: 1200, pause: 1500 * time.Millisecond},
		{tool: "WebFetch", hint: "github.com/claude-pi/claude-pi/pulls", pause: time.Second},
		{entry: "Drafted 6 bullet points", tokens: 4200, pause: 3 * time.Second},
	},
	"prompts": {
		{session: "try the buttons", pause: 500 * time.Millisecond},
		{tool: "Bash", hint: "rm -rf build/ && make", pause: 500 * time.Millisecond},
		{tool: "Write", hint: "docs/README.md", pause: 500 * time.Millisecond},
		{tool: "create issue", hint: "Flaky test in auth", pause: 500 * time.Millisecond},
	},
}

// Play runs the named script on d in a loop until ctx ends or the link
// drops, reporting what happens to report (which may be nil). Prompts
// wait for the device's decision: Play reads d.Decisions().
func Play(ctx context.Context, d *Desktop, script string, report func(Event)) error {
	steps, ok := scripts[script]
	if !ok {
		return fmt.Errorf("desktop: unknown script %q (have %v)", script, Scripts)
	}
	if report == nil {
		report = func(Event) {}
	}
	say := func(kind, format string, args ...any) {
		report(Event{At: time.Now(), Kind: kind, Text: fmt.Sprintf(format, args...)})
	}
	wait := func(dur time.Duration) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-d.Done():
			return d.Err()
		case <-time.After(dur):
			return nil
		}
	}
	clock := func() string { return time.Now().Format("15:04") }
	n := 0
	for round := 1; ; round++ {
		for _, st := range steps {
			switch {
			case st.session != "":
				d.Update(func(s *Session) {
					s.Total = min(s.Total+1, 3)
					s.Running = 1
					s.Entries = append(s.Entries, clock()+" user: "+st.session)
					s.Msg = s.Entries[len(s.Entries)-1]
				})
				say("session", "session started: %q", st.session)
			case st.entry != "":
				line := clock() + " " + st.entry
				d.Update(func(s *Session) {
					s.Entries = append(s.Entries, line)
					if len(s.Entries) > 8 {
						s.Entries = s.Entries[len(s.Entries)-8:]
					}
					s.Msg = line
					s.Tokens += st.tokens
					s.TokensToday += st.tokens
				})
				if err := d.SendTurn("assistant", []map[string]string{{"type": "text", "text": st.entry}}); err != nil {
					return err
				}
				say("entry", "%s (+%d tokens)", st.entry, st.tokens)
			case st.tool != "":
				n++
				id := fmt.Sprintf("toolu_demo_%d_%d", round, n)
				d.SetPrompt(id, st.tool, st.hint)
				say("prompt", "prompt %s: %s %q — press A to approve, B to deny (on the web page or with curl -X POST .../api/press/A)", id, st.tool, st.hint)
				if err := awaitDecision(ctx, d, id, say); err != nil {
					return err
				}
			}
			if err := wait(st.pause); err != nil {
				return err
			}
		}
	}
}

// awaitDecision waits until the device answers prompt id.
func awaitDecision(ctx context.Context, d *Desktop, id string, say func(kind, format string, args ...any)) error {
	shown := time.Now()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-d.Done():
			return d.Err()
		case p := <-d.Decisions():
			if p.ID != id {
				say("decision", "ignored a decision for %q (not pending)", p.ID)
				continue
			}
			say("decision", "device said %q after %v", p.Decision.String(), time.Since(shown).Round(time.Millisecond))
			return nil
		}
	}
}
