package dock

import (
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/lan"
)

// spokenTexts is the first sentence of every utterance the host asked to
// synthesize since utterance id after.
func spokenTexts(h *host, after uint64) []string {
	var out []string
	for _, e := range h.takeEffects() {
		if s, ok := e.(synthOut); ok && s.Utt > after && s.Index == 0 {
			out = append(out, s.Text)
		}
	}
	return out
}

// Stack-chan says "Claude is waiting for you" once per waiting episode:
// not again when the State repeats it or another Notification comes,
// again for the next episode, and not for an episode long past.
func TestWaitingSaidOncePerEpisode(t *testing.T) {
	t0 := time.Unix(1000, 0)
	h := readyHost(t, t0, func(c *hostConfig) { c.speakPrompts = true })
	state := func(since time.Time) lan.State {
		return lan.State{Sessions: []lan.Session{{ID: "s1", Project: "engine", State: "idle", Updated: t0, WaitingSince: since}}}
	}
	mark := h.NextUtt()
	h.lanState(state(t0), t0)
	said := spokenTexts(h, mark)
	if len(said) != 1 || !strings.HasPrefix(said[0], lan.WaitingText) {
		t.Fatalf("first waiting State: said %q, want %q once", said, lan.WaitingText)
	}
	mark = h.NextUtt()
	h.lanState(state(t0), t0.Add(time.Second))
	h.lanState(state(t0), t0.Add(2*time.Second))
	if n := h.NextUtt() - mark; n != 0 {
		t.Fatalf("the same episode said %d more times", n)
	}
	// The session moves on, then waits again: a new episode.
	h.lanState(state(time.Time{}), t0.Add(3*time.Second))
	t1 := t0.Add(4 * time.Second)
	h.lanState(state(t1), t1)
	if n := h.NextUtt() - mark; n != 1 {
		t.Fatalf("the second episode said %d times, want 1", n)
	}
	// An episode seen only long after it began is not announced.
	mark = h.NextUtt()
	late := t1.Add(time.Hour)
	h.lanState(state(t1.Add(time.Minute)), late)
	if n := h.NextUtt() - mark; n != 0 {
		t.Fatalf("an episode %v old was said", time.Hour)
	}
}

// With prompt announcements muted ([dock] speak_prompts = false), the wait is not
// said either.
func TestWaitingMutedWithPrompts(t *testing.T) {
	t0 := time.Unix(1000, 0)
	h := readyHost(t, t0, nil) // speakPrompts false
	mark := h.NextUtt()
	h.lanState(lan.State{Sessions: []lan.Session{{ID: "s1", WaitingSince: t0}}}, t0)
	if n := h.NextUtt() - mark; n != 0 {
		t.Fatalf("said %d utterances with prompts muted", n)
	}
}
