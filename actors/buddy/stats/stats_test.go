package stats

import (
	"reflect"
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     Stats
		wantErr  string
	}{
		{name: "full", in: `{"v":1,"appr":42,"deny":3,"nap":12,"tokens":250001,"vel":[8,4,30]}` + "\n",
			want: Stats{Version: 1, Appr: 42, Deny: 3, NapSec: 12, Tokens: 250_001, Vel: []uint16{8, 4, 30}}},
		{name: "empty vel", in: `{"v":1,"vel":[]}`, want: Stats{Version: 1}},
		{name: "minimal", in: `{"v":1}`, want: Stats{Version: 1}},
		{name: "empty file", in: ``, wantErr: "decoding: EOF"},
		{name: "truncated", in: `{"v":1,"appr":4`, wantErr: "decoding"},
		{name: "null", in: `null`, wantErr: "missing version"},
		{name: "no version", in: `{"appr":1}`, wantErr: "missing version"},
		{name: "future version", in: `{"v":2}`, wantErr: "version 2"},
		{name: "unknown field", in: `{"v":1,"lvl":3}`, wantErr: `unknown field "lvl"`},
		{name: "negative", in: `{"v":1,"appr":-1}`, wantErr: "decoding"},
		{name: "fraction", in: `{"v":1,"deny":1.5}`, wantErr: "decoding"},
		{name: "vel too big", in: `{"v":1,"vel":[65536]}`, wantErr: "decoding"},
		{name: "nine vel", in: `{"v":1,"vel":[1,2,3,4,5,6,7,8,9]}`, wantErr: "9 velocity samples"},
		{name: "level overflow", in: `{"v":1,"tokens":18446744073709551615}`, wantErr: "overflow"},
		{name: "trailing data", in: `{"v":1} {"v":1}`, wantErr: "data after"},
		{name: "array", in: `[1]`, wantErr: "decoding"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), "stats: ") {
					t.Fatalf("Decode = %+v, %v; want error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Decode = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestEncode(t *testing.T) {
	b, err := (&Stats{Version: 1, Appr: 1}).Encode()
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"v":1,"appr":1,"deny":0,"nap":0,"tokens":0,"vel":[]}` + "\n"; string(b) != want {
		t.Fatalf("Encode = %q, want %q", b, want)
	}
	if _, err := (&Stats{Version: 1, Vel: make([]uint16, 9)}).Encode(); err == nil {
		t.Fatal("Encode accepted 9 velocity samples")
	}
}

func FuzzDecodeStats(f *testing.F) {
	f.Add([]byte(`{"v":1,"appr":42,"deny":3,"nap":12,"tokens":250001,"vel":[8,4,30]}`))
	f.Add([]byte(`{"v":1,"vel":[]}`))
	f.Add([]byte(`{"v":1,"vel":[1,2,3,4,5,6,7,8,9]}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Decode(data)
		if err != nil {
			return
		}
		// Anything accepted must re-encode and decode to the same value.
		b, err := s.Encode()
		if err != nil {
			t.Fatalf("Encode(%+v): %v", s, err)
		}
		back, err := Decode(b)
		if err != nil || !reflect.DeepEqual(back, s) {
			t.Fatalf("round trip of %x: %+v, %v; want %+v", data, back, err, s)
		}
		// And it must be usable.
		tr, err := NewTracker(s, t0)
		if err != nil {
			t.Fatalf("NewTracker: %v", err)
		}
		if m := tr.Mood(); m < 0 || m > 4 {
			t.Fatalf("mood %d", m)
		}
		if f := tr.Fed(); f < 0 || f > 9 {
			t.Fatalf("fed %d", f)
		}
	})
}

// BenchmarkHeartbeat is the per-heartbeat work: token credit plus the
// derived values the screen redraws.
func BenchmarkHeartbeat(b *testing.B) {
	tr := newTracker(b, Stats{Vel: []uint16{9, 3, 12, 7, 30, 4, 8, 2}})
	var v uint64
	b.ReportAllocs()
	for b.Loop() {
		v += 37
		tr.Tokens(v)
		_ = tr.Report()
		_ = tr.Mood()
		_ = Persona(Scene{Connected: true, Running: 1}, DefaultRules, t0)
	}
}
