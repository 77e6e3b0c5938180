package input

import (
	"testing"
	"time"
)

func TestButton(t *testing.T) {
	const ms = time.Millisecond
	type sample struct {
		at      time.Duration
		pressed bool
	}
	tests := []struct {
		name    string
		samples []sample
		want    []Event // In order; each sample yields at most one.
	}{
		{"idle", []sample{{0, false}, {1000 * ms, false}}, nil},
		{"bounce within debounce is ignored", []sample{
			{0, false}, {100 * ms, true}, {105 * ms, false}, {110 * ms, true}, {115 * ms, false}, {200 * ms, false},
		}, nil},
		{"short", []sample{
			{0, false}, {100 * ms, true}, {120 * ms, true}, {300 * ms, false}, {320 * ms, false},
		}, []Event{{Name: "A", Held: 200 * ms}}},
		{"short with bouncy edges", []sample{
			{0, false}, {100 * ms, true}, {102 * ms, false}, {104 * ms, true}, {124 * ms, true},
			{300 * ms, false}, {303 * ms, true}, {305 * ms, false}, {325 * ms, false},
		}, []Event{{Name: "A", Held: 201 * ms}}},
		{"release shorter than debounce does not end the press", []sample{
			{0, false}, {100 * ms, true}, {120 * ms, true}, {200 * ms, false}, {210 * ms, true}, {400 * ms, false}, {420 * ms, false},
		}, []Event{{Name: "A", Held: 300 * ms}}},
		{"long fires while held, release is silent", []sample{
			{0, false}, {100 * ms, true}, {120 * ms, true}, {800 * ms, true}, {900 * ms, true}, {2000 * ms, false}, {2020 * ms, false},
		}, []Event{{Name: "A", Long: true, Held: 700 * ms}}},
		{"late sample credits the press from its edge", []sample{
			{0, false}, {100 * ms, true}, {1500 * ms, true}, {1600 * ms, false}, {1700 * ms, false},
		}, []Event{{Name: "A", Long: true, Held: 1400 * ms}}},
		{"late release sample still counts the press", []sample{
			{0, false}, {100 * ms, true}, {300 * ms, false}, {400 * ms, false},
		}, []Event{{Name: "A", Held: 200 * ms}}},
		{"two presses", []sample{
			{0, false}, {100 * ms, true}, {120 * ms, true}, {150 * ms, false}, {170 * ms, false},
			{200 * ms, true}, {220 * ms, true}, {1000 * ms, true}, {1100 * ms, false},
		}, []Event{{Name: "A", Held: 50 * ms}, {Name: "A", Long: true, Held: 800 * ms}}},
		{"held at start", []sample{{0, true}, {20 * ms, true}, {720 * ms, true}},
			[]Event{{Name: "A", Long: true, Held: 720 * ms}}},
		{"time going backwards is clamped", []sample{
			{500 * ms, false}, {600 * ms, true}, {100 * ms, true}, {620 * ms, true}, {700 * ms, false}, {720 * ms, false},
		}, []Event{{Name: "A", Held: 100 * ms}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := Button{Name: "A", Debounce: 20 * ms, LongPress: 700 * ms}
			var got []Event
			for _, s := range tt.samples {
				if ev, ok := b.Update(s.at, s.pressed); ok {
					got = append(got, ev)
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("events %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("event %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestButton_deadline(t *testing.T) {
	const ms = time.Millisecond
	b := Button{Debounce: 20 * ms, LongPress: 700 * ms}
	steps := []struct {
		at      time.Duration
		pressed bool
		due     time.Duration
		ok      bool
		down    bool // Debounced level after the sample.
	}{
		{0, false, 0, false, false},             // Idle: wait for an edge.
		{100 * ms, true, 120 * ms, true, false}, // Confirm the press.
		{120 * ms, true, 800 * ms, true, true},  // Then report it long.
		{800 * ms, true, 0, false, true},        // Reported: wait for the release edge.
		{900 * ms, false, 920 * ms, true, true}, // Confirm the release.
		{920 * ms, false, 0, false, false},
	}
	for i, s := range steps {
		b.Update(s.at, s.pressed)
		due, ok := b.Deadline()
		if due != s.due || ok != s.ok {
			t.Fatalf("step %d: Deadline() = %v, %t; want %v, %t", i, due, ok, s.due, s.ok)
		}
		if b.Pressed() != s.down {
			t.Fatalf("step %d: Pressed() = %t, want %t", i, b.Pressed(), s.down)
		}
	}
}

func BenchmarkButton_Update(b *testing.B) {
	btn := Button{Debounce: 20 * time.Millisecond, LongPress: 700 * time.Millisecond}
	b.ReportAllocs()
	var now time.Duration
	for i := 0; b.Loop(); i++ {
		now += 7 * time.Millisecond
		btn.Update(now, i&64 != 0)
	}
}
