package dock

import (
	"time"

	"github.com/claude-pi/claude-pi/actors/dock/voice"
	"github.com/claude-pi/claude-pi/actors/lan"
)

// terminalQuiet is how long a terminal session counts as running after its
// last hook event. Claude Code sends no Stop when its process is killed
// mid-turn, so a session could otherwise spin the CoreS3's task indicator
// for ever; a tool call running longer than this without a hook event
// (a long build) shows idle until its PostToolUse arrives.
const terminalQuiet = 10 * time.Minute

// terminals are Claude Code sessions reported over the LAN bridge
// (lan.State), each as the time it stops counting as running.
type terminals struct {
	runningUntil []time.Time
	// endsAt is when the last running session stops counting, as of the
	// last updateTask; zero while none runs. The host wakes then.
	endsAt time.Time
	// saidWaiting is, per waiting session, the lan.Session.WaitingSince
	// of the episode already said: one utterance per episode, however
	// often the State repeats it.
	saidWaiting map[string]time.Time
}

// set takes the lan service's sessions: "running" ones light the task
// indicator, as the desktop's running sessions do; "waiting" ones (a prompt
// pending) and idle ones do not.
func (t *terminals) set(sessions []lan.Session) {
	t.runningUntil = t.runningUntil[:0]
	for _, s := range sessions {
		if s.State == "running" {
			t.runningUntil = append(t.runningUntil, s.Updated.Add(terminalQuiet))
		}
	}
}

// running reports whether a terminal session runs at now, and when that
// next changes by itself (zero if it does not).
func (t *terminals) running(now time.Time) (bool, time.Time) {
	var until time.Time
	for _, u := range t.runningUntil {
		if now.Before(u) && u.After(until) {
			until = u
		}
	}
	return !until.IsZero(), until
}

// updateTask sets task.status from the desktop and the terminals.
func (h *host) updateTask(now time.Time) {
	cli, until := h.terms.running(now)
	h.terms.endsAt = until
	h.task.set((h.Desk().Connected && h.Desk().Running > 0) || cli, now)
}

// lanState takes a lan.State.
func (h *host) lanState(s lan.State, now time.Time) {
	h.terms.set(s.Sessions)
	h.updateTask(now)
	if h.terms.newlyWaiting(s.Sessions, now) && h.cfg.speakPrompts {
		h.SayAssistant(lan.WaitingText+".", now)
	}
}

// newlyWaiting records the sessions' waiting episodes and reports whether
// one of them is new and recent enough to say. An episode older than
// voice.StaleSpeech when first seen (the dock restarted, or plugged in late) is
// recorded unsaid: Stack-chan announcing a wait long past would be noise.
// Several sessions starting to wait together are said as one.
func (t *terminals) newlyWaiting(sessions []lan.Session, now time.Time) bool {
	seen := make(map[string]time.Time, len(t.saidWaiting))
	say := false
	for _, s := range sessions {
		if s.WaitingSince.IsZero() {
			continue
		}
		if said, ok := t.saidWaiting[s.ID]; !ok || !said.Equal(s.WaitingSince) {
			say = say || now.Sub(s.WaitingSince) <= voice.StaleSpeech
		}
		seen[s.ID] = s.WaitingSince
	}
	t.saidWaiting = seen
	return say
}
