package lan

import (
	"slices"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

func TestFollowUps(t *testing.T) {
	t0 := time.Unix(1000, 0)
	w := 10 * time.Second
	none := hookbridge.FollowUp{State: hookbridge.FollowUpNone}
	listening := hookbridge.FollowUp{State: hookbridge.FollowUpListening}
	text := hookbridge.FollowUp{State: hookbridge.FollowUpText, Text: "go on"}
	dock := func(state, text string) FollowUp { return FollowUp{Session: "s1", State: state, Text: text} }
	for _, tc := range []struct {
		name   string
		run    func(f *followUps, lines chan hookbridge.FollowUp) (polled bool)
		lines  []hookbridge.FollowUp
		polled bool
		left   int // offers kept at the end
	}{
		{"nothing offered: the poll is refused", func(f *followUps, l chan hookbridge.FollowUp) bool {
			return f.poll("s1", "fp", l, t0, w)
		}, nil, false, 0},
		{"another client's session is refused", func(f *followUps, l chan hookbridge.FollowUp) bool {
			f.offer("s1", "fp", t0)
			return f.poll("s1", "other", l, t0, w)
		}, nil, false, 1},
		{"a stale offer is refused", func(f *followUps, l chan hookbridge.FollowUp) bool {
			f.offer("s1", "fp", t0)
			return f.poll("s1", "fp", l, t0.Add(w), w)
		}, nil, false, 1},
		{"listening then text, in order", func(f *followUps, l chan hookbridge.FollowUp) bool {
			f.offer("s1", "fp", t0)
			ok := f.poll("s1", "fp", l, t0, w)
			f.fromDock(dock(hookbridge.FollowUpListening, ""))
			f.fromDock(dock(hookbridge.FollowUpText, "go on"))
			f.fromDock(dock(hookbridge.FollowUpText, "late")) // the offer is over
			return ok
		}, []hookbridge.FollowUp{listening, text}, true, 0},
		{"the dock's lines before the poll wait for it", func(f *followUps, l chan hookbridge.FollowUp) bool {
			f.offer("s1", "fp", t0)
			f.fromDock(dock(hookbridge.FollowUpListening, ""))
			return f.poll("s1", "fp", l, t0, w)
		}, []hookbridge.FollowUp{listening}, true, 1},
		{"a final line before the poll replaces the rest", func(f *followUps, l chan hookbridge.FollowUp) bool {
			f.offer("s1", "fp", t0)
			f.fromDock(dock(hookbridge.FollowUpListening, ""))
			f.fromDock(dock(hookbridge.FollowUpNone, ""))
			return f.poll("s1", "fp", l, t0, w)
		}, []hookbridge.FollowUp{none}, true, 0},
		{"a newer Stop closes the waiting hook", func(f *followUps, l chan hookbridge.FollowUp) bool {
			f.offer("s1", "fp", t0)
			ok := f.poll("s1", "fp", l, t0, w)
			f.offer("s1", "fp", t0.Add(time.Second))
			return ok
		}, []hookbridge.FollowUp{none}, true, 1},
		{"a second poll of one offer is refused", func(f *followUps, l chan hookbridge.FollowUp) bool {
			f.offer("s1", "fp", t0)
			ok := f.poll("s1", "fp", l, t0, w)
			return ok && !f.poll("s1", "fp", make(chan hookbridge.FollowUp, 1), t0, w)
		}, nil, true, 1},
		{"the hook gone forgets the offer", func(f *followUps, l chan hookbridge.FollowUp) bool {
			f.offer("s1", "fp", t0)
			ok := f.poll("s1", "fp", l, t0, w)
			f.gone("s1", make(chan hookbridge.FollowUp)) // someone else's: kept
			if len(f.bySession) != 1 {
				t.Error("another poll's end dropped the offer")
			}
			f.gone("s1", l)
			return ok
		}, nil, true, 0},
		{"unpolled offers are pruned after the window", func(f *followUps, l chan hookbridge.FollowUp) bool {
			f.offer("s1", "fp", t0)
			f.offer("s2", "fp", t0.Add(5*time.Second))
			f.prune(t0.Add(w), w)
			return false
		}, nil, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f followUps
			lines := make(chan hookbridge.FollowUp, followUpLines)
			polled := tc.run(&f, lines)
			close(lines)
			var got []hookbridge.FollowUp
			for l := range lines {
				got = append(got, l)
			}
			if polled != tc.polled || !slices.Equal(got, tc.lines) || len(f.bySession) != tc.left {
				t.Errorf("polled %v, lines %+v, %d offers left; want %v, %+v, %d", polled, got, len(f.bySession), tc.polled, tc.lines, tc.left)
			}
		})
	}
}
