package approvals

import (
	"errors"
	"fmt"
	"slices"
	"time"
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
	// ErrReconnecting: the source's link is down; nothing could be sent,
	// and the source has not yet confirmed the prompt is still pending.
	ErrReconnecting = errors.New("prompt is waiting for its source to reconnect")
	// ErrQuestion: a question is answered with an Answer, not once/deny.
	ErrQuestion = errors.New("prompt is a question: answer it with its options")
	// ErrNotAQuestion: an Answer for a prompt that asks no question.
	ErrNotAQuestion = errors.New("prompt asks no question: decide it with once or deny")
	// ErrBadAnswer: the choices do not fit the prompt's questions.
	ErrBadAnswer = errors.New("answer does not fit the questions")
)

// key identifies a prompt: ids are only unique within their source.
type key struct{ source, id string }

// entry is one pending prompt and what has been decided about it.
type entry struct {
	p         Prompt
	decided   bool // a decision is in flight; further ones are refused
	decision  Decision
	by        string
	decidedAt time.Time
	// attempts counts the decisions handed to the owner (Decided.Attempt),
	// and out holds those not reported dropped, oldest first. It survives
	// a re-arm: a write that looked lost may still land, so a prompt we
	// answered at least once resolves as ours, not "elsewhere" (resolved).
	attempts int
	out      []attempt
	// reconnecting: the source's link dropped with a hold; the prompt
	// cannot be decided and resolves as Gone at holdUntil unless a set
	// with the link up lists it first.
	reconnecting bool
	droppedAt    time.Time
	holdUntil    time.Time
}

// attempt is one decision handed to the owner and not reported dropped.
type attempt struct {
	n        int
	decision Decision
	by       string
	// confirmed: the owner reported it went out (Delivery.Sent).
	confirmed bool
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
	linkChanged := m.LinkUp != s.links[m.Source]
	s.links[m.Source] = m.LinkUp
	if linkChanged && !m.LinkUp {
		out = append(out, LinkChanged{Source: m.Source, Up: false})
	}
	if !m.LinkUp && m.Hold > 0 {
		return append(out, s.hold(m.Source, m.Hold, now)...)
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
				if e.reconnecting {
					out = append(out, s.restore(e)...)
				}
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
	gone := s.drop(func(e *entry) bool { return e.p.Source == m.Source && !present[e.p.ID] },
		func(e *entry) PromptResolved { return resolved(e, m.LinkUp) })
	if linkChanged && m.LinkUp {
		// A source coming back first drops what it no longer lists, then
		// says it is up: a mirror that re-presents the source's prompts on
		// the way up (the dock) must not flash the ones it just dropped.
		return append(append(gone, LinkChanged{Source: m.Source, Up: true}), out...)
	}
	return append(out, gone...)
}

// hold marks the source's prompts reconnecting. A prompt already held keeps
// its deadline: a link that keeps dropping before the source confirms
// anything must not keep a prompt on screen for ever.
func (s *state) hold(source string, hold time.Duration, now time.Time) []any {
	var out []any
	for _, e := range s.order {
		if e.p.Source != source || e.reconnecting {
			continue
		}
		e.reconnecting, e.droppedAt, e.holdUntil = true, now, now.Add(hold)
		out = append(out, PromptReconnecting{Prompt: e.p, Until: e.holdUntil})
	}
	return out
}

// restore makes a held prompt that its source listed again answerable.
//
// A decision sent before the drop is the delicate case. The desktop acts on
// a permission line the moment it arrives (buddy spec §7.1: it answers the
// session and pushes a fresh heartbeat, which a dropped link loses) and
// drops the prompt from its set; it sends its first heartbeat after a
// reconnect only 8-10 s later (§2.3), and the BLE service never queues a
// line across connections. So a set after the reconnect that still lists
// the prompt proves the line never reached the desktop: it is re-armed
// here (PromptRearmed: the buttons come back with a chime, visibly, and
// the user answers again; the first answer took no effect, so the tool
// call is still answered once). A set that no longer lists it resolves it
// as ours (resolved). What must never happen is a re-arm on the reconnect
// alone, before the source confirmed, or by the 5-s rule while held: the
// line might have landed, and the user would be asked twice.
//
// A decision the owner reported dropped (buddy got it just as the link
// went down) is the easy case: it certainly never reached the desktop.
// It still waits for this confirmation like any held prompt, because the
// desktop may have answered the prompt itself meanwhile; it is re-armed
// here when listed, and when not, it resolves as AnsweredElsewhere
// (unless an earlier answer of ours did go out).
func (s *state) restore(e *entry) []any {
	e.reconnecting, e.droppedAt, e.holdUntil = false, time.Time{}, time.Time{}
	out := []any{PromptRestored{Prompt: e.p}}
	if e.decided {
		e.decided, e.by, e.decidedAt = false, "", time.Time{}
		out = append(out, PromptRearmed{Prompt: e.p})
	}
	return out
}

// drop removes every entry gone says, in arrival order, with how says.
func (s *state) drop(gone func(*entry) bool, how func(*entry) PromptResolved) []any {
	var out []any
	kept := s.order[:0]
	for _, e := range s.order {
		if !gone(e) {
			kept = append(kept, e)
			continue
		}
		delete(s.byKey, key{e.p.Source, e.p.ID})
		out = append(out, how(e))
	}
	clear(s.order[len(kept):])
	s.order = kept
	return out
}

// resolved classifies how e left its source's set. The answer credited is
// the newest one confirmed sent, else the newest whose fate is unreported.
//
// Why the confirmed one wins: buddy's report on a line reaches approvals
// before any set built from a heartbeat the link read after writing that
// line (the ble actor closes its heartbeat slot before the report, and
// buddy sends the report at once, ahead of the sets it queues). So when
// a set drops the prompt while a later attempt is still unreported, the
// desktop read that set's heartbeat before the later line was written:
// the earlier, confirmed line is the one it acted on. An unreported
// attempt with nothing confirmed is presumed delivered: the lan never
// reports, and buddy loses a report only when it or the link restarts.
// Every attempt reported dropped: nothing of ours left the Pi, so the
// source answered it some other way.
func resolved(e *entry, linkUp bool) PromptResolved {
	if !linkUp {
		return PromptResolved{Prompt: e.p, How: Gone}
	}
	var ours *attempt
	for i := range e.out {
		if a := &e.out[i]; a.confirmed || ours == nil || !ours.confirmed {
			ours = a
		}
	}
	switch {
	case ours == nil:
		return PromptResolved{Prompt: e.p, How: AnsweredElsewhere}
	case ours.decision == AllowOnce:
		return PromptResolved{Prompt: e.p, How: ApprovedHere, By: ours.by}
	}
	return PromptResolved{Prompt: e.p, How: DeniedHere, By: ours.by}
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
	if e.reconnecting {
		return nil, fmt.Errorf("%s %q: %w (its link dropped %v ago; it resolves in %v unless the source lists it again)",
			m.Source, m.ID, ErrReconnecting, now.Sub(e.droppedAt).Round(100*time.Millisecond),
			max(0, e.holdUntil.Sub(now)).Round(100*time.Millisecond))
	}
	if e.decided {
		return nil, fmt.Errorf("%s %q: %w (%s by %s %v ago)", m.Source, m.ID, ErrAlreadyDecided,
			e.decision, e.by, now.Sub(e.decidedAt).Round(100*time.Millisecond))
	}
	if err := checkAnswer(e.p, m); err != nil {
		return nil, fmt.Errorf("%s %q: %w", m.Source, m.ID, err)
	}
	if m.Answer != nil {
		m.Decision = AllowOnce
	}
	e.decided, e.decision, e.by, e.decidedAt = true, m.Decision, m.By, now
	e.attempts++
	e.out = append(e.out, attempt{n: e.attempts, decision: m.Decision, by: m.By})
	return []any{
		&Decided{Source: m.Source, ID: m.ID, Decision: m.Decision, By: m.By, Attempt: e.attempts, Answer: m.Answer},
		PromptDecided{Prompt: e.p, Decision: m.Decision, By: m.By},
	}, nil
}

// checkAnswer refuses a decision that does not fit the prompt: a
// question needs an Answer whose choices fit its questions, anything
// else must not have one.
func checkAnswer(p Prompt, m Decide) error {
	switch {
	case p.Questions == nil && m.Answer != nil:
		return ErrNotAQuestion
	case p.Questions == nil:
		return nil
	case m.Answer == nil:
		return ErrQuestion
	case m.Answer.Choices == nil:
		return nil // answer at the computer
	}
	if err := checkChoices(p.Questions.List, m.Answer.Choices); err != nil {
		return fmt.Errorf("%w: %v", ErrBadAnswer, err)
	}
	return nil
}

// checkChoices says whether choices answer qs: one list per question,
// exactly one option for a single-select question and at least one for a
// multi-select one, each an option of its question and none repeated.
// (The hook checks them again against its own copy of the questions.)
func checkChoices(qs []Question, choices [][]int) error {
	if len(choices) != len(qs) {
		return fmt.Errorf("%d answers for %d questions", len(choices), len(qs))
	}
	for i, c := range choices {
		q := qs[i]
		if len(c) == 0 || (!q.MultiSelect && len(c) != 1) {
			return fmt.Errorf("question %d answered with %d options", i+1, len(c))
		}
		seen := map[int]bool{}
		for _, j := range c {
			if j < 0 || j >= len(q.Options) || seen[j] {
				return fmt.Errorf("question %d: option index %d is not one of its %d options, or repeats", i+1, j, len(q.Options))
			}
			seen[j] = true
		}
	}
	return nil
}

// delivery applies the owner's report on one attempt. A report for a
// prompt no longer pending changes nothing: what was shown stays shown.
//
// A dropped attempt no longer counts as ours (resolved). If it is the
// decision in flight, the buttons come back at once instead of after
// RearmAfter: the answer certainly never left, so asking again cannot
// answer the tool call twice. A held prompt stays decided: its link is
// down and nothing can be decided now; restore re-arms it when the
// source lists it again, which it would do anyway (the reasoning there
// holds a fortiori for a line known to be dropped), and if the source no
// longer lists it, the dropped answer is not credited to the Pi.
func (s *state) delivery(m Delivery) []any {
	e, ok := s.byKey[key{m.Source, m.ID}]
	if !ok {
		return nil
	}
	i := slices.IndexFunc(e.out, func(a attempt) bool { return a.n == m.Attempt })
	if i < 0 {
		return nil
	}
	if m.Sent {
		e.out[i].confirmed = true
		return nil
	}
	e.out = slices.Delete(e.out, i, i+1)
	if !e.decided || e.reconnecting || m.Attempt != e.attempts {
		return nil
	}
	e.decided, e.by, e.decidedAt = false, "", time.Time{}
	return []any{PromptRearmed{Prompt: e.p}}
}

func (s *state) hasSource(source string) bool {
	for _, e := range s.order {
		if e.p.Source == source {
			return true
		}
	}
	return false
}

// tick re-arms every prompt decided at least RearmAfter ago, and resolves
// as Gone every held prompt whose hold has passed. A held prompt is never
// re-armed: see restore.
func (s *state) tick(now time.Time) []any {
	var out []any
	for _, e := range s.order {
		if e.decided && !e.reconnecting && now.Sub(e.decidedAt) >= RearmAfter {
			e.decided, e.by, e.decidedAt = false, "", time.Time{}
			out = append(out, PromptRearmed{Prompt: e.p})
		}
	}
	return append(out, s.drop(func(e *entry) bool { return e.reconnecting && !now.Before(e.holdUntil) },
		func(e *entry) PromptResolved { return PromptResolved{Prompt: e.p, How: Gone} })...)
}

// nextDeadline is when tick next has work: the earliest re-arm of a
// decided prompt or end of a hold; ok is false when there is none.
func (s *state) nextDeadline() (next time.Time, ok bool) {
	for _, e := range s.order {
		var at time.Time
		switch {
		case e.reconnecting:
			at = e.holdUntil
		case e.decided:
			at = e.decidedAt.Add(RearmAfter)
		default:
			continue
		}
		if next.IsZero() || at.Before(next) {
			next = at
		}
	}
	return next, !next.IsZero()
}

// pending lists the prompts in arrival order.
func (s *state) pending() Pending {
	views := make([]PromptView, len(s.order))
	for i, e := range s.order {
		views[i] = PromptView{Prompt: e.p, Decided: e.decided, Reconnecting: e.reconnecting, HoldUntil: e.holdUntil}
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
	if e.reconnecting {
		d += fmt.Sprintf(", reconnecting (gone in %d s)", max(0, int(e.holdUntil.Sub(now)/time.Second)))
	}
	return d
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
