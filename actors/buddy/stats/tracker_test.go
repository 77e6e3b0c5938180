package stats

import (
	"slices"
	"testing"
	"time"
)

var t0 = time.Date(2026, 4, 16, 10, 0, 0, 0, time.UTC)

func newTracker(t testing.TB, s Stats) *Tracker {
	t.Helper()
	s.Version = FormatVersion
	tr, err := NewTracker(s, t0)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// tok is one heartbeat tokens value, or a reconnect when reconnect is set.
type tok struct {
	v         uint64
	reconnect bool
	levelUp   bool
}

func TestTokens(t *testing.T) {
	for _, tt := range []struct {
		name       string
		start      uint64 // lifetime tokens at boot
		seq        []tok
		wantTokens uint64
		wantLevel  uint32
	}{
		{"first value is only the baseline", 0, []tok{{v: 184_502}}, 0, 0},
		{"deltas are credited", 0, []tok{{v: 1000}, {v: 1500}, {v: 4000}}, 3000, 0},
		{"repeat earns nothing", 0, []tok{{v: 10}, {v: 10}, {v: 10}}, 0, 0},
		{"drop is a desktop restart", 0, []tok{{v: 90_000}, {v: 91_000}, {v: 200}, {v: 700}}, 1500, 0},
		{"drop to zero", 100, []tok{{v: 5}, {v: 0}, {v: 3}}, 103, 0},
		{"reconnect re-baselines", 0, []tok{{v: 100}, {v: 200}, {reconnect: true}, {v: 60_000}, {v: 60_100}}, 200, 0},
		{"level up exactly at 50k", 49_000, []tok{{v: 0}, {v: 999}, {v: 1000, levelUp: true}}, 50_000, 1},
		{"one short of 50k", 0, []tok{{v: 1}, {v: 50_000}}, 49_999, 0},
		{"one delta crossing two levels", 10, []tok{{v: 0}, {v: 100_000, levelUp: true}}, 100_010, 2},
		{"level from stored tokens", 250_000, []tok{{v: 7}, {v: 8}}, 250_001, 5},
		{"saturates at the 32-bit level", maxTokens - 5, []tok{{v: 0}, {v: 1 << 62, levelUp: true}}, maxTokens, 1<<32 - 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTracker(t, Stats{Tokens: tt.start})
			for i, s := range tt.seq {
				if s.reconnect {
					tr.Reconnect()
					continue
				}
				if got := tr.Tokens(s.v); got != s.levelUp {
					t.Fatalf("step %d: Tokens(%d) level-up = %v, want %v", i, s.v, got, s.levelUp)
				}
			}
			if got := tr.Stats().Tokens; got != tt.wantTokens {
				t.Fatalf("lifetime tokens = %d, want %d", got, tt.wantTokens)
			}
			if got := tr.Report().Lvl; got != tt.wantLevel {
				t.Fatalf("level = %d, want %d", got, tt.wantLevel)
			}
		})
	}
}

func TestFed(t *testing.T) {
	for _, tt := range []struct {
		tokens uint64
		want   int
	}{{0, 0}, {4_999, 0}, {5_000, 1}, {49_999, 9}, {50_000, 0}, {54_999, 0}, {95_000, 9}} {
		if got := (&Stats{Tokens: tt.tokens}).Fed(); got != tt.want {
			t.Errorf("Fed(%d) = %d, want %d", tt.tokens, got, tt.want)
		}
	}
}

func TestVelocity(t *testing.T) {
	for _, tt := range []struct {
		vel  []uint16
		want uint16
	}{
		{nil, 0},
		{[]uint16{7}, 7},
		{[]uint16{9, 1}, 9}, // upper median for an even count
		{[]uint16{5, 1, 3}, 3},
		{[]uint16{8, 7, 6, 5, 4, 3, 2, 1}, 5},
	} {
		s := Stats{Vel: tt.vel}
		if got := s.Velocity(); got != tt.want {
			t.Errorf("Velocity(%v) = %d, want %d", tt.vel, got, tt.want)
		}
		if tt.vel != nil && !slices.Equal(s.Vel, tt.vel) {
			t.Errorf("Velocity reordered its input to %v", s.Vel)
		}
	}
}

func TestApproveKeepsLastEight(t *testing.T) {
	tr := newTracker(t, Stats{})
	for i := range 10 {
		id := string(rune('a' + i))
		counted, _ := tr.Approve(id, t0, t0.Add(time.Duration(i+1)*time.Second+900*time.Millisecond))
		if !counted {
			t.Fatalf("approval %d not counted", i)
		}
	}
	s := tr.Stats()
	if want := []uint16{3, 4, 5, 6, 7, 8, 9, 10}; !slices.Equal(s.Vel, want) {
		t.Fatalf("vel ring = %v, want %v (whole seconds, oldest dropped)", s.Vel, want)
	}
	if r := tr.Report(); r.Appr != 10 || r.Vel != 7 {
		t.Fatalf("report = %+v", r)
	}
}

func TestDecisions(t *testing.T) {
	tr := newTracker(t, Stats{})
	steps := []struct {
		name        string
		approve     bool
		id          string
		latency     time.Duration
		wantCounted bool
		wantHeart   bool
	}{
		{"fast approval", true, "req_1", 4 * time.Second, true, true},
		{"resend of the same prompt", true, "req_1", 9 * time.Second, false, false},
		{"slow approval", true, "req_2", 5 * time.Second, true, false},
		{"denial", false, "req_3", 0, true, false},
		{"denial resent", false, "req_3", 0, false, false},
		{"no id", true, "", 0, false, false},
		{"clock went back", true, "req_4", -time.Minute, true, true},
		{"very slow", true, "req_5", 30 * time.Hour, true, false},
	}
	for _, s := range steps {
		var counted, heart bool
		if s.approve {
			counted, heart = tr.Approve(s.id, t0, t0.Add(s.latency))
		} else {
			counted = tr.Deny(s.id)
		}
		if counted != s.wantCounted || heart != s.wantHeart {
			t.Fatalf("%s: counted %v heart %v, want %v %v", s.name, counted, heart, s.wantCounted, s.wantHeart)
		}
	}
	st := tr.Stats()
	if st.Appr != 4 || st.Deny != 1 || !slices.Equal(st.Vel, []uint16{4, 5, 0, MaxVel}) {
		t.Fatalf("stats = %+v", st)
	}
}

func TestMood(t *testing.T) {
	for _, tt := range []struct {
		name       string
		vel        []uint16
		appr, deny uint32
		want       int
	}{
		{"no data", nil, 0, 0, 2},
		{"fast", []uint16{14}, 1, 0, 4},
		{"15 s", []uint16{15}, 1, 0, 3},
		{"30 s", []uint16{30}, 1, 0, 2},
		{"60 s", []uint16{60}, 1, 0, 1},
		{"120 s", []uint16{120}, 1, 0, 0},
		{"few decisions are not judged", []uint16{5}, 0, 2, 4},
		{"more denials", []uint16{5}, 1, 2, 2},
		{"many denials", []uint16{5}, 3, 2, 3},
		{"denials at a third", []uint16{5}, 4, 2, 4},
		{"clamped at 0", []uint16{100}, 1, 5, 0},
	} {
		s := Stats{Vel: tt.vel, Appr: tt.appr, Deny: tt.deny}
		if got := s.Mood(); got != tt.want {
			t.Errorf("%s: Mood = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestEnergyAndNap(t *testing.T) {
	tr := newTracker(t, Stats{})
	for _, tt := range []struct {
		after time.Duration
		want  int
	}{{0, 3}, {2*time.Hour - time.Second, 3}, {2 * time.Hour, 2}, {6 * time.Hour, 0}, {20 * time.Hour, 0}, {-time.Hour, 3}} {
		if got := tr.Energy(t0.Add(tt.after)); got != tt.want {
			t.Errorf("Energy(boot+%v) = %d, want %d", tt.after, got, tt.want)
		}
	}
	end := t0.Add(10 * time.Hour)
	tr.Nap(end.Add(-90*time.Second-500*time.Millisecond), end)
	if got := tr.Energy(end.Add(3 * time.Hour)); got != 4 {
		t.Errorf("Energy 3 h after a nap = %d, want 4", got)
	}
	if got := tr.Report().Nap; got != 90 {
		t.Errorf("nap seconds = %d, want 90", got)
	}
	// The published value reads the same decay later, on its own.
	e := tr.EnergyState()
	if e.Level != 5 || !e.Since.Equal(end) {
		t.Errorf("EnergyState = %+v, want level 5 since the nap's end", e)
	}
	if got := e.At(end.Add(5 * time.Hour)); got != tr.Energy(end.Add(5*time.Hour)) || got != 3 {
		t.Errorf("Energy.At 5 h after a nap = %d, want 3 as the tracker says", got)
	}
}

func TestSaveDue(t *testing.T) {
	tr := newTracker(t, Stats{})
	if tr.SaveDue(t0.Add(time.Hour)) {
		t.Fatal("save due with nothing changed")
	}
	tr.Tokens(0)
	tr.Tokens(100)
	if tr.SaveDue(t0.Add(59 * time.Second)) {
		t.Fatal("token credit saved within a minute")
	}
	if !tr.SaveDue(t0.Add(time.Minute)) {
		t.Fatal("token credit not saved after a minute")
	}
	tr.Saved(t0.Add(time.Minute))
	tr.Approve("req", t0, t0.Add(time.Minute))
	if !tr.SaveDue(t0.Add(time.Minute + time.Second)) {
		t.Fatal("approval not saved at once")
	}
	tr.Saved(t0.Add(2 * time.Minute))
	tr.Tokens(50_100)
	if !tr.SaveDue(t0.Add(2*time.Minute + time.Second)) {
		t.Fatal("level-up not saved at once")
	}
}

func TestNewTrackerRejectsInvalid(t *testing.T) {
	if _, err := NewTracker(Stats{}, t0); err == nil {
		t.Fatal("NewTracker accepted a Stats without version")
	}
}
