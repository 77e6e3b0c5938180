package stats

import (
	"testing"
	"time"
)

func TestPersona(t *testing.T) {
	now := t0
	conn := Scene{Connected: true}
	with := func(s Scene, f func(*Scene)) Scene { f(&s); return s }
	for _, tt := range []struct {
		name  string
		scene Scene
		rules Rules
		want  State
	}{
		{"disconnected, ours", Scene{Waiting: 1}, DefaultRules, Sleep},
		{"disconnected, reference", Scene{Waiting: 1}, ReferenceRules, Idle},
		{"idle", conn, DefaultRules, Idle},
		{"waiting beats running", with(conn, func(s *Scene) { s.Waiting, s.Running = 1, 5 }), DefaultRules, Attention},
		{"one running, ours", with(conn, func(s *Scene) { s.Running = 1 }), DefaultRules, Busy},
		{"two running, reference", with(conn, func(s *Scene) { s.Running = 2 }), ReferenceRules, Idle},
		{"three running, reference", with(conn, func(s *Scene) { s.Running = 3 }), ReferenceRules, Busy},
		{"zero rules mean busy at 1", with(conn, func(s *Scene) { s.Running = 1 }), Rules{}, Busy},
		{"zero rules never busy at 0", conn, Rules{}, Idle},
		{"one-shot beats attention", with(conn, func(s *Scene) {
			s.Waiting, s.OneShot, s.OneShotUntil = 1, Heart, now.Add(time.Second)
		}), DefaultRules, Heart},
		{"one-shot over", with(conn, func(s *Scene) { s.OneShot, s.OneShotUntil = Dizzy, now }), DefaultRules, Idle},
		{"base state as one-shot is ignored", with(conn, func(s *Scene) {
			s.Running, s.OneShot, s.OneShotUntil = 1, Sleep, now.Add(time.Hour)
		}), DefaultRules, Busy},
		{"just woken idle sleeps", with(conn, func(s *Scene) { s.WokeAt = now.Add(-11 * time.Second) }), DefaultRules, Sleep},
		{"wake-up over", with(conn, func(s *Scene) { s.WokeAt = now.Add(-WakeSleepFor) }), DefaultRules, Idle},
		{"just woken busy stays busy", with(conn, func(s *Scene) { s.Running, s.WokeAt = 1, now }), DefaultRules, Busy},
		{"wake in the future is ignored", with(conn, func(s *Scene) { s.WokeAt = now.Add(time.Second) }), DefaultRules, Idle},
	} {
		if got := Persona(tt.scene, tt.rules, now); got != tt.want {
			t.Errorf("%s: Persona = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestStateNames(t *testing.T) {
	want := []string{"sleep", "idle", "busy", "attention", "celebrate", "dizzy", "heart"}
	for i, w := range want {
		if got := State(i).String(); got != w {
			t.Errorf("State(%d) = %q, want %q", i, got, w)
		}
	}
	if got := State(7).String(); got != "State(7)" {
		t.Errorf("State(7) = %q", got)
	}
	for s, want := range map[State]time.Duration{Celebrate: 3 * time.Second, Dizzy: 2 * time.Second, Heart: 2 * time.Second, Idle: 0} {
		if got := OneShotFor(s); got != want {
			t.Errorf("OneShotFor(%v) = %v, want %v", s, got, want)
		}
	}
}
