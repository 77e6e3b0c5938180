package approvals

import (
	"errors"
	"fmt"
	"time"

	"github.com/claude-pi/claude-pi/protocols/buddy"
)

// RearmAfter is how long a decided prompt may stay in its source's set
// before the decision is presumed lost and the buttons come back (buddy
// spec §7.1: resending is harmless, a stuck prompt is not).
const RearmAfter = 5 * time.Second

// Reasons a Decide is refused. They are wrapped with the prompt's key.
var (
	// ErrNoPrompt: nothing is pending for that source at all.
	ErrNoPrompt = errors.New("no prompt pending")
	// ErrUnknownPrompt: the id is not pending (never seen, or resolved).
	ErrUnknownPrompt = errors.New("prompt is not pending")
	// ErrAlreadyDecided: a decision for this prompt is already on its way.
	ErrAlreadyDecided = errors.New("prompt already decided")
)

// key identifies a prompt: ids are only unique within their source.
type key struct{ source, id string }

// entry is one pending prompt and what has been decided about it.
type entry struct {
	p         Prompt
	decided   bool // a decision is in flight; further ones are refused
	decision  buddy.Decision
	by        string
	decidedAt time.Time
	// sent survives a re-arm: a write that looked lost may still land, so a
	// prompt we answered at least once resolves as ours, not "elsewhere".
	sent       bool
	lastSent   buddy.Decision
	lastSentBy string
}

// state is the pure bookkeeping behind the actor: no I/O, no clock of its
// own. Every method takes now and returns the messages to deliver, in
// order: a *Decided goes to the source's owner, everything else to the
// subscribers.
type state struct {
	order []*entry // arrival order
	byKey map[key]*entry
	links map[string]bool // source → link up; absent means never seen (down)
}

func newState() *state {
	return &state{byKey: make(map[key]*entry), links: make(map[string]bool)}
}

// setPrompts replaces the complete set of one source's prompts.
func (s *state) setPrompts(m SetPrompts, now time.Time) []any {
	var out []any
	if m.LinkUp != s.links[m.Source] {
		s.links[m.Source] = m.LinkUp
		out = append(out, LinkChanged{Source: m.Source, Up: m.LinkUp})
	}
	present := make(map[string]bool, len(m.Prompts))
	if m.LinkUp {
		for _, p := range m.Prompts {
			if p.ID == "" || present[p.ID] {
				continue // an id-less prompt cannot be answered; duplicates add nothing
			}
			present[p.ID] = true
			p.Source = m.Source
			if e, ok := s.byKey[key{m.Source, p.ID}]; ok {
				// Same prompt, maybe reworded: keep when it arrived.
				p.Arrived = e.p.Arrived
				e.p = p
				continue
			}
			if p.Arrived.IsZero() {
				p.Arrived = now
			}
			e := &entry{p: p}
			s.order = append(s.order, e)
			s.byKey[key{m.Source, p.ID}] = e
			out = append(out, PromptAppeared{Prompt: p})
		}
	}
	kept := s.order[:0]
	for _, e := range s.order {
		if e.p.Source != m.Source || present[e.p.ID] {
			kept = append(kept, e)
			continue
		}
		delete(s.byKey, key{e.p.Source, e.p.ID})
		out = append(out, resolved(e, m.LinkUp))
	}
	clear(s.order[len(kept):])
	s.order = kept
	return out
}

// resolved classifies how e left its source's set.
func resolved(e *entry, linkUp bool) PromptResolved {
	switch {
	case !linkUp:
		return PromptResolved{Prompt: e.p, How: Gone}
	case e.sent && e.lastSent == buddy.Once:
		return PromptResolved{Prompt: e.p, How: ApprovedHere, By: e.lastSentBy}
	case e.sent:
		return PromptResolved{Prompt: e.p, How: DeniedHere, By: e.lastSentBy}
	}
	return PromptResolved{Prompt: e.p, How: AnsweredElsewhere}
}

// decide accepts at most one decision per prompt until it is re-armed.
func (s *state) decide(m Decide, now time.Time) ([]any, error) {
	e, ok := s.byKey[key{m.Source, m.ID}]
	if !ok {
		if !s.hasSource(m.Source) {
			return nil, fmt.Errorf("%s %q: %w", m.Source, m.ID, ErrNoPrompt)
		}
		return nil, fmt.Errorf("%s %q: %w", m.Source, m.ID, ErrUnknownPrompt)
	}
	if e.decided {
		return nil, fmt.Errorf("%s %q: %w (%s by %s %v ago)", m.Source, m.ID, ErrAlreadyDecided,
			e.decision, e.by, now.Sub(e.decidedAt).Round(100*time.Millisecond))
	}
	e.decided, e.decision, e.by, e.decidedAt = true, m.Decision, m.By, now
	e.sent, e.lastSent, e.lastSentBy = true, m.Decision, m.By
	return []any{
		&Decided{Source: m.Source, ID: m.ID, Decision: m.Decision, By: m.By},
		PromptDecided{Prompt: e.p, Decision: m.Decision, By: m.By},
	}, nil
}

func (s *state) hasSource(source string) bool {
	for _, e := range s.order {
		if e.p.Source == source {
			return true
		}
	}
	return false
}

// tick re-arms every prompt decided at least RearmAfter ago.
func (s *state) tick(now time.Time) []any {
	var out []any
	for _, e := range s.order {
		if e.decided && now.Sub(e.decidedAt) >= RearmAfter {
			e.decided, e.by, e.decidedAt = false, "", time.Time{}
			out = append(out, PromptRearmed{Prompt: e.p})
		}
	}
	return out
}

// nextRearm is when tick next has work, if any prompt is decided.
func (s *state) nextRearm() (time.Time, bool) {
	var next time.Time
	for _, e := range s.order {
		if e.decided && (next.IsZero() || e.decidedAt.Before(next)) {
			next = e.decidedAt
		}
	}
	if next.IsZero() {
		return next, false
	}
	return next.Add(RearmAfter), true
}

// pending lists the prompts in arrival order.
func (s *state) pending() Pending {
	views := make([]PromptView, len(s.order))
	for i, e := range s.order {
		views[i] = PromptView{Prompt: e.p, Decided: e.decided}
		if e.decided {
			views[i].Decision, views[i].By, views[i].DecidedAt = e.decision, e.by, e.decidedAt
		}
	}
	return Pending{Prompts: views}
}

// describe is the supervisorctl status line.
func (s *state) describe(now time.Time) string {
	if len(s.order) == 0 {
		return "no prompt pending"
	}
	e := s.order[0]
	d := fmt.Sprintf("%d pending: %s (%s), %d s", len(s.order), orDash(e.p.Tool), e.p.Source,
		max(0, int(now.Sub(e.p.Arrived)/time.Second)))
	if e.decided {
		d += fmt.Sprintf(", %s sent by %s", e.decision, e.by)
	}
	return d
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
