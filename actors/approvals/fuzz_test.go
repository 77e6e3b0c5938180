package approvals

import (
	"fmt"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/protocols/buddy"
)

// FuzzState plays random operation sequences (each byte pair is one
// operation) and checks the promises the rest of the appliance relies on:
// at most one Decided per prompt and arming, Decided only for a pending
// prompt, every resolution matches an appearance, and nothing panics.
func FuzzState(f *testing.F) {
	f.Add([]byte{0x00, 0x03, 0x10, 0x00, 0x10, 0x00, 0x20, 0x50, 0x10, 0x01})
	f.Add([]byte{0x00, 0x01, 0x11, 0x00, 0x31, 0x01, 0x20, 0xff, 0x11, 0x00, 0x30, 0x00})
	f.Add([]byte{0x01, 0x07, 0x13, 0x02, 0x12, 0x01, 0x02, 0x00, 0x13, 0x02})
	f.Fuzz(func(t *testing.T, ops []byte) {
		s := newState()
		now := t0
		sources := []string{"desktop", "cli:1"}
		type k = key
		armed := map[k]bool{}   // a decision is in flight
		present := map[k]bool{} // appeared and not yet resolved
		for len(ops) >= 2 {
			code, arg := ops[0], ops[1]
			ops = ops[2:]
			src := sources[int(code&1)]
			var out []any
			switch code >> 4 & 3 {
			case 0: // set: arg bits choose which of ids 0..3 are present; bit 7 = link down
				m := SetPrompts{Source: src, LinkUp: arg&0x80 == 0}
				for i := range 4 {
					if arg&(1<<i) != 0 {
						m.Prompts = append(m.Prompts, Prompt{ID: fmt.Sprint("id", i), Tool: "T"})
					}
				}
				out = s.setPrompts(m, now)
			case 1: // decide id arg&3
				var err error
				d := buddy.Deny
				if arg&4 != 0 {
					d = buddy.Once
				}
				id := fmt.Sprint("id", arg&3)
				wasArmed := armed[k{src, id}]
				out, err = s.decide(Decide{Source: src, ID: id, Decision: d, By: "x"}, now)
				if err == nil && (wasArmed || !present[k{src, id}]) {
					t.Fatalf("decision accepted for %s/%s (armed %v, present %v)", src, id, wasArmed, present[k{src, id}])
				}
			case 2: // time passes
				now = now.Add(time.Duration(arg) * 100 * time.Millisecond)
			case 3:
				out = s.tick(now)
			}
			for _, m := range out {
				switch m := m.(type) {
				case *Decided:
					kk := k{m.Source, m.ID}
					if armed[kk] {
						t.Fatalf("second Decided for %v while armed", kk)
					}
					armed[kk] = true
				case PromptAppeared:
					kk := k{m.Prompt.Source, m.Prompt.ID}
					if present[kk] {
						t.Fatalf("%v appeared twice", kk)
					}
					present[kk] = true
				case PromptResolved:
					kk := k{m.Prompt.Source, m.Prompt.ID}
					if !present[kk] {
						t.Fatalf("%v resolved without appearing", kk)
					}
					delete(present, kk)
					delete(armed, kk)
				case PromptRearmed:
					kk := k{m.Prompt.Source, m.Prompt.ID}
					if !armed[kk] {
						t.Fatalf("%v re-armed without a decision", kk)
					}
					delete(armed, kk)
				}
			}
			if got := len(s.pending().Prompts); got != len(present) {
				t.Fatalf("pending %d, tracked %d", got, len(present))
			}
			if _, ok := s.nextRearm(); ok != (len(armed) > 0) {
				t.Fatalf("nextRearm %v with %d armed", ok, len(armed))
			}
		}
	})
}

// BenchmarkSetPromptsDecide is one prompt's life: it appears, is decided,
// and the next set drops it.
func BenchmarkSetPromptsDecide(b *testing.B) {
	b.ReportAllocs()
	s := newState()
	with := desk("req_0123456789abcdef")
	without := desk()
	d := Decide{Source: "desktop", ID: "req_0123456789abcdef", Decision: buddy.Once, By: "Claude_Pi"}
	now := t0
	for b.Loop() {
		s.setPrompts(with, now)
		if _, err := s.decide(d, now); err != nil {
			b.Fatal(err)
		}
		s.setPrompts(without, now)
	}
}
