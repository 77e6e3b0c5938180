package approvals

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func desk(ids ...string) SetPrompts {
	m := SetPrompts{Source: "desktop", LinkUp: true}
	for _, id := range ids {
		m.Prompts = append(m.Prompts, Prompt{ID: id, Tool: "Bash"})
	}
	return m
}

func pr(id string) Prompt {
	return Prompt{Source: "desktop", ID: id, Tool: "Bash", Arrived: t0}
}

// op is one step of a scripted state test.
type op struct {
	at     time.Duration // since t0
	set    *SetPrompts
	decide *Decide
	report *Delivery
	tick   bool
	want   []any
	err    error // for decide
}

func TestState(t *testing.T) {
	dec := func(id string, d Decision, by string) *Decide {
		return &Decide{Source: "desktop", ID: id, Decision: d, By: by}
	}
	set := func(m SetPrompts) *SetPrompts { return &m }
	dropped := func(id string, attempt int) *Delivery {
		return &Delivery{Source: "desktop", ID: id, Attempt: attempt, Err: "ble: no central subscribed"}
	}
	went := func(id string, attempt int) *Delivery {
		return &Delivery{Source: "desktop", ID: id, Attempt: attempt, Sent: true}
	}
	up := LinkChanged{Source: "desktop", Up: true}
	tests := []struct {
		name string
		ops  []op
	}{
		{"appear then answered elsewhere", []op{
			{set: set(desk("a")), want: []any{up, PromptAppeared{pr("a")}}},
			{at: time.Second, set: set(desk("a"))},
			{at: 2 * time.Second, set: set(desk()), want: []any{PromptResolved{Prompt: pr("a"), How: AnsweredElsewhere}}},
		}},
		{"approved here", []op{
			{set: set(desk("a")), want: []any{up, PromptAppeared{pr("a")}}},
			{decide: dec("a", AllowOnce, "Claude_Pi"), want: []any{
				&Decided{Source: "desktop", ID: "a", Decision: AllowOnce, By: "Claude_Pi", Attempt: 1},
				PromptDecided{Prompt: pr("a"), Decision: AllowOnce, By: "Claude_Pi"}}},
			{set: set(desk()), want: []any{PromptResolved{Prompt: pr("a"), How: ApprovedHere, By: "Claude_Pi"}}},
		}},
		{"denied here", []op{
			{set: set(desk("a")), want: []any{up, PromptAppeared{pr("a")}}},
			{decide: dec("a", Deny, "CoreS3"), want: []any{
				&Decided{Source: "desktop", ID: "a", Decision: Deny, By: "CoreS3", Attempt: 1},
				PromptDecided{Prompt: pr("a"), Decision: Deny, By: "CoreS3"}}},
			{set: set(desk()), want: []any{PromptResolved{Prompt: pr("a"), How: DeniedHere, By: "CoreS3"}}},
		}},
		{"second decision refused", []op{
			{set: set(desk("a")), want: []any{up, PromptAppeared{pr("a")}}},
			{decide: dec("a", AllowOnce, "Claude_Pi"), want: []any{
				&Decided{Source: "desktop", ID: "a", Decision: AllowOnce, By: "Claude_Pi", Attempt: 1},
				PromptDecided{Prompt: pr("a"), Decision: AllowOnce, By: "Claude_Pi"}}},
			{decide: dec("a", Deny, "CoreS3"), err: ErrAlreadyDecided},
		}},
		{"no prompt, unknown id, stale id", []op{
			{decide: dec("a", AllowOnce, "Claude_Pi"), err: ErrNoPrompt},
			{set: set(desk("a")), want: []any{up, PromptAppeared{pr("a")}}},
			{decide: dec("b", AllowOnce, "Claude_Pi"), err: ErrUnknownPrompt},
			{set: set(desk("b")), want: []any{
				PromptAppeared{pr("b")}, PromptResolved{Prompt: pr("a"), How: AnsweredElsewhere}}},
			{decide: dec("a", AllowOnce, "Claude_Pi"), err: ErrUnknownPrompt},
		}},
		{"re-arm after 5 s, decide again", []op{
			{set: set(desk("a")), want: []any{up, PromptAppeared{pr("a")}}},
			{decide: dec("a", AllowOnce, "Claude_Pi"), want: []any{
				&Decided{Source: "desktop", ID: "a", Decision: AllowOnce, By: "Claude_Pi", Attempt: 1},
				PromptDecided{Prompt: pr("a"), Decision: AllowOnce, By: "Claude_Pi"}}},
			{at: RearmAfter - time.Millisecond, tick: true},
			{at: RearmAfter, tick: true, want: []any{PromptRearmed{pr("a")}}},
			{at: RearmAfter, tick: true},
			{at: 6 * time.Second, decide: dec("a", Deny, "voice"), want: []any{
				&Decided{Source: "desktop", ID: "a", Decision: Deny, By: "voice", Attempt: 2},
				PromptDecided{Prompt: pr("a"), Decision: Deny, By: "voice"}}},
			{at: 7 * time.Second, set: set(desk()), want: []any{PromptResolved{Prompt: pr("a"), How: DeniedHere, By: "voice"}}},
		}},
		{"re-armed then dropped still counts as ours", []op{
			{set: set(desk("a")), want: []any{up, PromptAppeared{pr("a")}}},
			{decide: dec("a", AllowOnce, "CoreS3"), want: []any{
				&Decided{Source: "desktop", ID: "a", Decision: AllowOnce, By: "CoreS3", Attempt: 1},
				PromptDecided{Prompt: pr("a"), Decision: AllowOnce, By: "CoreS3"}}},
			{at: 5 * time.Second, tick: true, want: []any{PromptRearmed{pr("a")}}},
			{at: 6 * time.Second, set: set(desk()), want: []any{PromptResolved{Prompt: pr("a"), How: ApprovedHere, By: "CoreS3"}}},
		}},
		// The desktop answers the prompt itself while our line was
		// dropped: its next set must not make the Pi claim the answer.
		{"dropped, then answered on the desktop: not ours", []op{
			{set: set(desk("a")), want: []any{up, PromptAppeared{pr("a")}}},
			{decide: dec("a", AllowOnce, "Claude_Pi"), want: []any{
				&Decided{Source: "desktop", ID: "a", Decision: AllowOnce, By: "Claude_Pi", Attempt: 1},
				PromptDecided{Prompt: pr("a"), Decision: AllowOnce, By: "Claude_Pi"}}},
			// It certainly never left: the buttons come back at once.
			{report: dropped("a", 1), want: []any{PromptRearmed{pr("a")}}},
			{at: time.Second, set: set(desk()), want: []any{PromptResolved{Prompt: pr("a"), How: AnsweredElsewhere}}},
		}},
		{"confirmed sent: ours", []op{
			{set: set(desk("a")), want: []any{up, PromptAppeared{pr("a")}}},
			{decide: dec("a", Deny, "CoreS3"), want: []any{
				&Decided{Source: "desktop", ID: "a", Decision: Deny, By: "CoreS3", Attempt: 1},
				PromptDecided{Prompt: pr("a"), Decision: Deny, By: "CoreS3"}}},
			{report: went("a", 1)},
			{decide: dec("a", AllowOnce, "Claude_Pi"), err: ErrAlreadyDecided},
			{set: set(desk()), want: []any{PromptResolved{Prompt: pr("a"), How: DeniedHere, By: "CoreS3"}}},
		}},
		{"dropped, re-decided, sent: the second answer is ours", []op{
			{set: set(desk("a")), want: []any{up, PromptAppeared{pr("a")}}},
			{decide: dec("a", AllowOnce, "Claude_Pi"), want: []any{
				&Decided{Source: "desktop", ID: "a", Decision: AllowOnce, By: "Claude_Pi", Attempt: 1},
				PromptDecided{Prompt: pr("a"), Decision: AllowOnce, By: "Claude_Pi"}}},
			{report: dropped("a", 1), want: []any{PromptRearmed{pr("a")}}},
			{decide: dec("a", Deny, "voice"), want: []any{
				&Decided{Source: "desktop", ID: "a", Decision: Deny, By: "voice", Attempt: 2},
				PromptDecided{Prompt: pr("a"), Decision: Deny, By: "voice"}}},
			{report: went("a", 2)},
			{set: set(desk()), want: []any{PromptResolved{Prompt: pr("a"), How: DeniedHere, By: "voice"}}},
		}},
		{"a late drop report of a re-armed attempt leaves the newer one in flight", []op{
			{set: set(desk("a")), want: []any{up, PromptAppeared{pr("a")}}},
			{decide: dec("a", AllowOnce, "Claude_Pi"), want: []any{
				&Decided{Source: "desktop", ID: "a", Decision: AllowOnce, By: "Claude_Pi", Attempt: 1},
				PromptDecided{Prompt: pr("a"), Decision: AllowOnce, By: "Claude_Pi"}}},
			{at: RearmAfter, tick: true, want: []any{PromptRearmed{pr("a")}}},
			{at: RearmAfter, decide: dec("a", Deny, "voice"), want: []any{
				&Decided{Source: "desktop", ID: "a", Decision: Deny, By: "voice", Attempt: 2},
				PromptDecided{Prompt: pr("a"), Decision: Deny, By: "voice"}}},
			{at: RearmAfter, report: dropped("a", 1)},
			{at: RearmAfter, decide: dec("a", AllowOnce, "Claude_Pi"), err: ErrAlreadyDecided},
			{at: 6 * time.Second, set: set(desk()), want: []any{PromptResolved{Prompt: pr("a"), How: DeniedHere, By: "voice"}}},
		}},
		// A set that drops the prompt while the newer attempt is still
		// unreported was read before that line was written (resolved).
		{"a confirmed answer wins over a newer unreported one", []op{
			{set: set(desk("a")), want: []any{up, PromptAppeared{pr("a")}}},
			{decide: dec("a", AllowOnce, "Claude_Pi"), want: []any{
				&Decided{Source: "desktop", ID: "a", Decision: AllowOnce, By: "Claude_Pi", Attempt: 1},
				PromptDecided{Prompt: pr("a"), Decision: AllowOnce, By: "Claude_Pi"}}},
			{report: went("a", 1)},
			{at: RearmAfter, tick: true, want: []any{PromptRearmed{pr("a")}}},
			{at: RearmAfter, decide: dec("a", Deny, "voice"), want: []any{
				&Decided{Source: "desktop", ID: "a", Decision: Deny, By: "voice", Attempt: 2},
				PromptDecided{Prompt: pr("a"), Decision: Deny, By: "voice"}}},
			{at: 6 * time.Second, set: set(desk()), want: []any{PromptResolved{Prompt: pr("a"), How: ApprovedHere, By: "Claude_Pi"}}},
		}},
		{"a report on a prompt no longer pending changes nothing", []op{
			{report: dropped("a", 1)},
			{set: set(desk("a")), want: []any{up, PromptAppeared{pr("a")}}},
			{report: went("a", 1)},
			{set: set(desk()), want: []any{PromptResolved{Prompt: pr("a"), How: AnsweredElsewhere}}},
		}},
		{"link down clears as gone", []op{
			{set: set(desk("a")), want: []any{up, PromptAppeared{pr("a")}}},
			{decide: dec("a", AllowOnce, "Claude_Pi"), want: []any{
				&Decided{Source: "desktop", ID: "a", Decision: AllowOnce, By: "Claude_Pi", Attempt: 1},
				PromptDecided{Prompt: pr("a"), Decision: AllowOnce, By: "Claude_Pi"}}},
			{set: &SetPrompts{Source: "desktop"}, want: []any{
				LinkChanged{Source: "desktop"}, PromptResolved{Prompt: pr("a"), How: Gone}}},
			{decide: dec("a", AllowOnce, "Claude_Pi"), err: ErrNoPrompt},
			{set: &SetPrompts{Source: "desktop"}},
			{set: set(desk("a")), want: []any{up, PromptAppeared{pr("a")}}},
		}},
		{"held through a reconnect, confirmed, answered once", []op{
			{set: set(desk("a")), want: []any{up, PromptAppeared{pr("a")}}},
			{at: time.Second, set: &SetPrompts{Source: "desktop", Hold: 15 * time.Second}, want: []any{
				LinkChanged{Source: "desktop"}, PromptReconnecting{Prompt: pr("a"), Until: t0.Add(16 * time.Second)}}},
			{at: 2 * time.Second, decide: dec("a", AllowOnce, "Claude_Pi"), err: ErrReconnecting},
			{at: 3 * time.Second, decide: dec("a", Deny, "CoreS3"), err: ErrReconnecting},
			{at: 14 * time.Second, tick: true},
			// The first heartbeat after the reconnect: same id, same arrival.
			{at: 15 * time.Second, set: set(desk("a")), want: []any{up, PromptRestored{pr("a")}}},
			{at: 16 * time.Second, tick: true},
			{at: 16 * time.Second, decide: dec("a", AllowOnce, "Claude_Pi"), want: []any{
				&Decided{Source: "desktop", ID: "a", Decision: AllowOnce, By: "Claude_Pi", Attempt: 1},
				PromptDecided{Prompt: pr("a"), Decision: AllowOnce, By: "Claude_Pi"}}},
		}},
		{"held, then the source no longer lists it", []op{
			{set: set(desk("a", "b")), want: []any{up, PromptAppeared{pr("a")}, PromptAppeared{pr("b")}}},
			{set: &SetPrompts{Source: "desktop", Hold: 15 * time.Second}, want: []any{
				LinkChanged{Source: "desktop"},
				PromptReconnecting{Prompt: pr("a"), Until: t0.Add(15 * time.Second)},
				PromptReconnecting{Prompt: pr("b"), Until: t0.Add(15 * time.Second)}}},
			{at: 9 * time.Second, set: set(desk("b")), want: []any{
				PromptResolved{Prompt: pr("a"), How: AnsweredElsewhere}, up, PromptRestored{pr("b")}}},
		}},
		{"held past the hold resolves as gone", []op{
			{set: set(desk("a")), want: []any{up, PromptAppeared{pr("a")}}},
			{set: &SetPrompts{Source: "desktop", Hold: 15 * time.Second}, want: []any{
				LinkChanged{Source: "desktop"}, PromptReconnecting{Prompt: pr("a"), Until: t0.Add(15 * time.Second)}}},
			// A second drop before any confirmation keeps the first deadline.
			{at: 10 * time.Second, set: &SetPrompts{Source: "desktop", Hold: 15 * time.Second}},
			{at: 15*time.Second - time.Millisecond, tick: true},
			{at: 15 * time.Second, tick: true, want: []any{PromptResolved{Prompt: pr("a"), How: Gone}}},
			{at: 16 * time.Second, decide: dec("a", AllowOnce, "Claude_Pi"), err: ErrNoPrompt},
			// A heartbeat after that is a new appearance.
			{at: 17 * time.Second, set: set(desk("a")), want: []any{up, PromptAppeared{Prompt{Source: "desktop", ID: "a", Tool: "Bash", Arrived: t0.Add(17 * time.Second)}}}},
		}},
		{"held, then the link times out: gone at once", []op{
			{set: set(desk("a")), want: []any{up, PromptAppeared{pr("a")}}},
			{set: &SetPrompts{Source: "desktop", Hold: 15 * time.Second}, want: []any{
				LinkChanged{Source: "desktop"}, PromptReconnecting{Prompt: pr("a"), Until: t0.Add(15 * time.Second)}}},
			{at: time.Second, set: &SetPrompts{Source: "desktop"}, want: []any{PromptResolved{Prompt: pr("a"), How: Gone}}},
		}},
		{"decided before the drop: never re-armed while held", []op{
			{set: set(desk("a")), want: []any{up, PromptAppeared{pr("a")}}},
			{decide: dec("a", AllowOnce, "Claude_Pi"), want: []any{
				&Decided{Source: "desktop", ID: "a", Decision: AllowOnce, By: "Claude_Pi", Attempt: 1},
				PromptDecided{Prompt: pr("a"), Decision: AllowOnce, By: "Claude_Pi"}}},
			{at: time.Second, set: &SetPrompts{Source: "desktop", Hold: 15 * time.Second}, want: []any{
				LinkChanged{Source: "desktop"}, PromptReconnecting{Prompt: pr("a"), Until: t0.Add(16 * time.Second)}}},
			{at: RearmAfter, tick: true},
			{at: 8 * time.Second, tick: true},
			{at: 9 * time.Second, decide: dec("a", Deny, "voice"), err: ErrReconnecting},
			// Still listed after the reconnect: the line never arrived.
			{at: 10 * time.Second, set: set(desk("a")), want: []any{up, PromptRestored{pr("a")}, PromptRearmed{pr("a")}}},
			{at: 11 * time.Second, decide: dec("a", Deny, "voice"), want: []any{
				&Decided{Source: "desktop", ID: "a", Decision: Deny, By: "voice", Attempt: 2},
				PromptDecided{Prompt: pr("a"), Decision: Deny, By: "voice"}}},
		}},
		{"decided before the drop, landed: resolved as ours", []op{
			{set: set(desk("a")), want: []any{up, PromptAppeared{pr("a")}}},
			{decide: dec("a", AllowOnce, "CoreS3"), want: []any{
				&Decided{Source: "desktop", ID: "a", Decision: AllowOnce, By: "CoreS3", Attempt: 1},
				PromptDecided{Prompt: pr("a"), Decision: AllowOnce, By: "CoreS3"}}},
			{set: &SetPrompts{Source: "desktop", Hold: 15 * time.Second}, want: []any{
				LinkChanged{Source: "desktop"}, PromptReconnecting{Prompt: pr("a"), Until: t0.Add(15 * time.Second)}}},
			{at: 9 * time.Second, set: set(desk()), want: []any{
				PromptResolved{Prompt: pr("a"), How: ApprovedHere, By: "CoreS3"}, up}},
		}},
		// buddy got the decision just as the link dropped, and dropped it.
		{"dropped while held: re-armed once the source lists it again", []op{
			{set: set(desk("a")), want: []any{up, PromptAppeared{pr("a")}}},
			{decide: dec("a", AllowOnce, "Claude_Pi"), want: []any{
				&Decided{Source: "desktop", ID: "a", Decision: AllowOnce, By: "Claude_Pi", Attempt: 1},
				PromptDecided{Prompt: pr("a"), Decision: AllowOnce, By: "Claude_Pi"}}},
			{set: &SetPrompts{Source: "desktop", Hold: 15 * time.Second}, want: []any{
				LinkChanged{Source: "desktop"}, PromptReconnecting{Prompt: pr("a"), Until: t0.Add(15 * time.Second)}}},
			// Not answerable until the source confirms it: no re-arm yet.
			{report: dropped("a", 1)},
			{at: time.Second, decide: dec("a", Deny, "CoreS3"), err: ErrReconnecting},
			{at: 9 * time.Second, set: set(desk("a")), want: []any{up, PromptRestored{pr("a")}, PromptRearmed{pr("a")}}},
			{at: 10 * time.Second, decide: dec("a", Deny, "CoreS3"), want: []any{
				&Decided{Source: "desktop", ID: "a", Decision: Deny, By: "CoreS3", Attempt: 2},
				PromptDecided{Prompt: pr("a"), Decision: Deny, By: "CoreS3"}}},
		}},
		{"dropped while held, answered on the desktop meanwhile: not ours", []op{
			{set: set(desk("a")), want: []any{up, PromptAppeared{pr("a")}}},
			{decide: dec("a", AllowOnce, "Claude_Pi"), want: []any{
				&Decided{Source: "desktop", ID: "a", Decision: AllowOnce, By: "Claude_Pi", Attempt: 1},
				PromptDecided{Prompt: pr("a"), Decision: AllowOnce, By: "Claude_Pi"}}},
			{set: &SetPrompts{Source: "desktop", Hold: 15 * time.Second}, want: []any{
				LinkChanged{Source: "desktop"}, PromptReconnecting{Prompt: pr("a"), Until: t0.Add(15 * time.Second)}}},
			{report: dropped("a", 1)},
			{at: 9 * time.Second, set: set(desk()), want: []any{
				PromptResolved{Prompt: pr("a"), How: AnsweredElsewhere}, up}},
		}},
		{"a hold touches only its own source", []op{
			{set: set(desk("a")), want: []any{up, PromptAppeared{pr("a")}}},
			{set: &SetPrompts{Source: "cli:1", LinkUp: true, Prompts: []Prompt{{ID: "a", Tool: "Edit"}}}, want: []any{
				LinkChanged{Source: "cli:1", Up: true},
				PromptAppeared{Prompt{Source: "cli:1", ID: "a", Tool: "Edit", Arrived: t0}}}},
			{set: &SetPrompts{Source: "desktop", Hold: 15 * time.Second}, want: []any{
				LinkChanged{Source: "desktop"}, PromptReconnecting{Prompt: pr("a"), Until: t0.Add(15 * time.Second)}}},
			{decide: &Decide{Source: "cli:1", ID: "a", Decision: AllowOnce, By: "Claude_Pi"}, want: []any{
				&Decided{Source: "cli:1", ID: "a", Decision: AllowOnce, By: "Claude_Pi", Attempt: 1},
				PromptDecided{Prompt: Prompt{Source: "cli:1", ID: "a", Tool: "Edit", Arrived: t0}, Decision: AllowOnce, By: "Claude_Pi"}}},
		}},
		{"prompts of a link going down are ignored", []op{
			{set: &SetPrompts{Source: "desktop", Prompts: []Prompt{{ID: "a"}}}},
		}},
		{"sources are independent; arrival order kept", []op{
			{set: set(desk("a")), want: []any{up, PromptAppeared{pr("a")}}},
			{set: &SetPrompts{Source: "cli:1", LinkUp: true, Prompts: []Prompt{{ID: "a", Tool: "Edit"}}}, want: []any{
				LinkChanged{Source: "cli:1", Up: true},
				PromptAppeared{Prompt{Source: "cli:1", ID: "a", Tool: "Edit", Arrived: t0}}}},
			{set: set(desk()), want: []any{PromptResolved{Prompt: pr("a"), How: AnsweredElsewhere}}},
		}},
		{"empty and duplicate ids ignored", []op{
			{set: set(desk("", "a", "a")), want: []any{up, PromptAppeared{pr("a")}}},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newState()
			for i, o := range tc.ops {
				now := t0.Add(o.at)
				var got []any
				var err error
				switch {
				case o.set != nil:
					got = s.setPrompts(*o.set, now)
				case o.decide != nil:
					got, err = s.decide(*o.decide, now)
				case o.report != nil:
					got = s.delivery(*o.report)
				case o.tick:
					got = s.tick(now)
				}
				if !errors.Is(err, o.err) || (err == nil) != (o.err == nil) {
					t.Fatalf("op %d: err %v, want %v", i, err, o.err)
				}
				if !reflect.DeepEqual(got, o.want) && (len(got) > 0 || len(o.want) > 0) {
					t.Fatalf("op %d:\n got %#v\nwant %#v", i, got, o.want)
				}
			}
		})
	}
}

func TestStatePendingAndRearmDeadline(t *testing.T) {
	s := newState()
	s.setPrompts(desk("a", "b"), t0)
	if _, ok := s.nextDeadline(); ok {
		t.Fatal("nextDeadline with nothing decided")
	}
	if _, err := s.decide(Decide{Source: "desktop", ID: "b", Decision: AllowOnce, By: "CoreS3"}, t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if next, ok := s.nextDeadline(); !ok || !next.Equal(t0.Add(time.Second+RearmAfter)) {
		t.Fatalf("nextDeadline = %v %v", next, ok)
	}
	p := s.pending()
	if len(p.Prompts) != 2 || p.Prompts[0].ID != "a" || p.Prompts[1].ID != "b" {
		t.Fatalf("pending order %+v", p.Prompts)
	}
	if p.Prompts[0].Decided || !p.Prompts[1].Decided || p.Prompts[1].By != "CoreS3" || p.Prompts[1].Decision != AllowOnce {
		t.Fatalf("pending decided flags %+v", p.Prompts)
	}
	if got := s.describe(t0.Add(12 * time.Second)); got != "2 pending: Bash (desktop), 12 s" {
		t.Errorf("describe = %q", got)
	}
	s.setPrompts(SetPrompts{Source: "desktop", Hold: 15 * time.Second}, t0.Add(2*time.Second))
	p = s.pending()
	if !p.Prompts[0].Reconnecting || !p.Prompts[0].HoldUntil.Equal(t0.Add(17*time.Second)) || !p.Prompts[1].Decided {
		t.Fatalf("pending after the drop %+v", p.Prompts)
	}
	if next, ok := s.nextDeadline(); !ok || !next.Equal(t0.Add(17*time.Second)) {
		t.Fatalf("nextDeadline while held = %v %v, want the end of the hold (no re-arm while held)", next, ok)
	}
	if got := s.describe(t0.Add(12 * time.Second)); got != "2 pending: Bash (desktop), 12 s, reconnecting (gone in 5 s)" {
		t.Errorf("describe while held = %q", got)
	}
	if got := newState().describe(t0); got != "no prompt pending" {
		t.Errorf("describe empty = %q", got)
	}
}

func TestStateKeepsLongUnicodeIDVerbatim(t *testing.T) {
	id := longID()
	s := newState()
	s.setPrompts(SetPrompts{Source: "desktop", LinkUp: true, Prompts: []Prompt{{ID: id}}}, t0)
	out, err := s.decide(Decide{Source: "desktop", ID: id, Decision: AllowOnce, By: "Claude_Pi"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if d := out[0].(*Decided); d.ID != id {
		t.Fatalf("id changed: %q", d.ID)
	}
	if _, err := s.decide(Decide{Source: "desktop", ID: id[:len(id)-1], Decision: AllowOnce}, t0); !errors.Is(err, ErrUnknownPrompt) {
		t.Fatalf("a truncated id must not match: %v", err)
	}
}

// longID is 200 characters of mixed scripts, quotes, backslashes and
// astral-plane runes: everything that breaks a fixed-size C buffer.
func longID() string {
	parts := []string{"req_", "é", "漢", "🐙", `"`, `\`, "Ω", "a", "\u200d", "ß"}
	var b strings.Builder
	for i := 0; b.Len() >= 0 && len([]rune(b.String())) < 200; i++ {
		b.WriteString(parts[i%len(parts)])
	}
	return string([]rune(b.String())[:200])
}
