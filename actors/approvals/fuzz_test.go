package approvals

import (
	"fmt"
	"testing"
	"time"
)

// FuzzState plays random operation sequences (each byte pair is one
// operation) and checks the promises the rest of the appliance relies on:
// at most one Decided per prompt and arming, Decided only for a pending
// prompt, every resolution matches an appearance, a prompt held while its
// link is down is never decided nor re-armed until its source lists it
// again and never outlives its hold, a prompt is credited to the Pi
// exactly when one of its decisions was not reported dropped, and nothing
// panics.
func FuzzState(f *testing.F) {
	f.Add([]byte{0x00, 0x03, 0x10, 0x00, 0x10, 0x00, 0x20, 0x50, 0x10, 0x01})
	f.Add([]byte{0x00, 0x01, 0x11, 0x00, 0x31, 0x01, 0x20, 0xff, 0x11, 0x00, 0x30, 0x00})
	f.Add([]byte{0x01, 0x07, 0x13, 0x02, 0x12, 0x01, 0x02, 0x00, 0x13, 0x02})
	// appear, decide, drop with a hold, decide (refused), come back listing
	// it (re-armed), decide again.
	f.Add([]byte{0x00, 0x01, 0x10, 0x04, 0x00, 0xc0, 0x10, 0x00, 0x00, 0x01, 0x10, 0x00})
	// appear, drop with a hold, 16 s pass, tick (gone).
	f.Add([]byte{0x00, 0x03, 0x00, 0xc0, 0x20, 0xa0, 0x30, 0x00})
	// appear, decide, reported dropped (re-armed), decide, reported sent,
	// the set drops it (ours).
	f.Add([]byte{0x00, 0x01, 0x10, 0x04, 0x40, 0x08, 0x10, 0x00, 0x40, 0x14, 0x00, 0x00})
	// appear, decide, drop with a hold, reported dropped, back without it.
	f.Add([]byte{0x00, 0x01, 0x10, 0x04, 0x00, 0xc0, 0x40, 0x08, 0x00, 0x00})
	f.Fuzz(func(t *testing.T, ops []byte) {
		s := newState()
		now := t0
		sources := []string{"desktop", "cli:1"}
		type k = key
		armed := map[k]bool{}        // a decision is in flight
		present := map[k]bool{}      // appeared and not yet resolved
		held := map[k]time.Time{}    // reconnecting, until
		live := map[k]map[int]bool{} // attempts handed over and not reported dropped
		lastAttempt := map[k]int{}
		for len(ops) >= 2 {
			code, arg := ops[0], ops[1]
			ops = ops[2:]
			src := sources[int(code&1)]
			var out []any
			op := code >> 4 & 3
			if code&0x40 != 0 {
				op = 4
			}
			switch op {
			case 0: // set: arg bits choose which of ids 0..3 are present; bit 7 = link down, bit 6 = with a hold
				m := SetPrompts{Source: src, LinkUp: arg&0x80 == 0}
				if arg&0x40 != 0 {
					m.Hold = 15 * time.Second
				}
				for i := range 4 {
					if arg&(1<<i) != 0 {
						m.Prompts = append(m.Prompts, Prompt{ID: fmt.Sprint("id", i), Tool: "T"})
					}
				}
				out = s.setPrompts(m, now)
			case 1: // decide id arg&3
				var err error
				d := Deny
				if arg&4 != 0 {
					d = AllowOnce
				}
				id := fmt.Sprint("id", arg&3)
				wasArmed := armed[k{src, id}]
				out, err = s.decide(Decide{Source: src, ID: id, Decision: d, By: "x"}, now)
				_, wasHeld := held[k{src, id}]
				if err == nil && (wasArmed || wasHeld || !present[k{src, id}]) {
					t.Fatalf("decision accepted for %s/%s (armed %v, held %v, present %v)", src, id, wasArmed, wasHeld, present[k{src, id}])
				}
			case 2: // time passes
				now = now.Add(time.Duration(arg) * 100 * time.Millisecond)
			case 3:
				out = s.tick(now)
			case 4: // the owner reports attempt arg>>3&7 of id arg&3: bit 2 = sent
				kk := k{src, fmt.Sprint("id", arg&3)}
				m := Delivery{Source: src, ID: kk.id, Attempt: int(arg >> 3 & 7), Sent: arg&4 != 0}
				out = s.delivery(m)
				if !m.Sent {
					delete(live[kk], m.Attempt)
				}
				for _, o := range out {
					if _, ok := o.(PromptRearmed); !ok {
						t.Fatalf("a report produced %#v", o)
					}
				}
			}
			for _, m := range out {
				switch m := m.(type) {
				case *Decided:
					kk := k{m.Source, m.ID}
					if armed[kk] {
						t.Fatalf("second Decided for %v while armed", kk)
					}
					if _, ok := held[kk]; ok {
						t.Fatalf("Decided for %v while it waits for its source", kk)
					}
					armed[kk] = true
					if m.Attempt != lastAttempt[kk]+1 {
						t.Fatalf("%v: attempt %d after %d", kk, m.Attempt, lastAttempt[kk])
					}
					lastAttempt[kk] = m.Attempt
					if live[kk] == nil {
						live[kk] = map[int]bool{}
					}
					live[kk][m.Attempt] = true
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
					if until, ok := held[kk]; ok && m.How == Gone && now.Before(until) && op == 3 {
						t.Fatalf("%v held until %v resolved by the clock at %v", kk, until, now)
					}
					ours := m.How == ApprovedHere || m.How == DeniedHere
					if m.How != Gone && ours != (len(live[kk]) > 0) {
						t.Fatalf("%v resolved %v with %d attempts not reported dropped", kk, m.How, len(live[kk]))
					}
					delete(present, kk)
					delete(armed, kk)
					delete(held, kk)
					delete(live, kk)
					delete(lastAttempt, kk)
				case PromptRearmed:
					kk := k{m.Prompt.Source, m.Prompt.ID}
					if !armed[kk] {
						t.Fatalf("%v re-armed without a decision", kk)
					}
					if _, ok := held[kk]; ok {
						t.Fatalf("%v re-armed while it waits for its source", kk)
					}
					delete(armed, kk)
				case PromptReconnecting:
					kk := k{m.Prompt.Source, m.Prompt.ID}
					if _, ok := held[kk]; ok || !present[kk] {
						t.Fatalf("%v held twice or without being present", kk)
					}
					held[kk] = m.Until
				case PromptRestored:
					kk := k{m.Prompt.Source, m.Prompt.ID}
					if _, ok := held[kk]; !ok {
						t.Fatalf("%v restored without being held", kk)
					}
					delete(held, kk)
				}
			}
			if op == 3 {
				for kk, until := range held {
					if !now.Before(until) {
						t.Fatalf("%v still held at %v after its hold ended at %v", kk, now, until)
					}
				}
			}
			for _, v := range s.pending().Prompts {
				if _, ok := held[k{v.Source, v.ID}]; ok != v.Reconnecting {
					t.Fatalf("%s/%s: Reconnecting %v, tracked %v", v.Source, v.ID, v.Reconnecting, ok)
				}
			}
			if got := len(s.pending().Prompts); got != len(present) {
				t.Fatalf("pending %d, tracked %d", got, len(present))
			}
			if _, ok := s.nextDeadline(); ok != (len(armed) > 0 || len(held) > 0) {
				t.Fatalf("nextDeadline %v with %d armed, %d held", ok, len(armed), len(held))
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
	d := Decide{Source: "desktop", ID: "req_0123456789abcdef", Decision: AllowOnce, By: "Claude_Pi"}
	now := t0
	for b.Loop() {
		s.setPrompts(with, now)
		if _, err := s.decide(d, now); err != nil {
			b.Fatal(err)
		}
		s.setPrompts(without, now)
	}
}
