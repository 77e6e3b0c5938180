package session

import (
	"errors"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

func listening(t *testing.T) *MicReceiver {
	t.Helper()
	r, err := NewMicReceiver(7)
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := r.Next(t0); !ok || a.Control != wire.CtrlMicStart || a.StreamID != 7 || a.SampleRate != MicRate {
		t.Fatalf("first action %+v, want MIC_START(7, 16000)", a)
	}
	if !r.OnStarted(7) {
		t.Fatal("MIC_STARTED not taken")
	}
	return r
}

func TestMicReceiverGapFill(t *testing.T) {
	tests := []struct {
		name    string
		seqs    []uint32
		silence []int // per frame; -1 marks the fatal frame
	}{
		{"contiguous", []uint32{0, 1, 2}, []int{0, 0, 0}},
		{"first frame late", []uint32{2, 3}, []int{2, 0}},
		{"gap of ten filled", []uint32{0, 11, 12}, []int{0, 10, 0}},
		{"gap of eleven fatal", []uint32{0, 12}, []int{0, -1}},
		{"duplicate is backwards", []uint32{0, 1, 1}, []int{0, 0, -1}},
		{"backwards jump", []uint32{0, 1, 2, 0}, []int{0, 0, 0, -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := listening(t)
			for i, seq := range tt.seqs {
				f, err := r.OnPCM(7, seq, MicRate, MicFrameBytes)
				if tt.silence[i] < 0 {
					var se *MicSequenceError
					if !errors.As(err, &se) || se.Got != seq || f.Deliver || r.State() != MicStopping {
						t.Fatalf("seq %d: %+v %v state %v, want fatal sequence error", seq, f, err, r.State())
					}
					if a, ok := r.Next(t0); !ok || a.Control != wire.CtrlMicStop {
						t.Fatalf("after sequence error Next = %+v, want MIC_STOP", a)
					}
					return
				}
				if err != nil || !f.Deliver || f.Silence != tt.silence[i] {
					t.Fatalf("seq %d: %+v %v, want silence %d", seq, f, err, tt.silence[i])
				}
			}
		})
	}
}

func TestMicReceiverRejectsFrames(t *testing.T) {
	r := listening(t)
	tests := []struct {
		stream uint16
		rate   uint32
		n      int
		isErr  bool
	}{
		{7, 8000, MicFrameBytes, true},
		{7, MicRate, 320, true},
		{7, MicRate, 642, true},
		{8, 8000, 1, false}, // other stream: silently ignored
	}
	for _, tt := range tests {
		f, err := r.OnPCM(tt.stream, 0, tt.rate, tt.n)
		var fe *MicFrameError
		if f.Deliver || (err != nil) != tt.isErr || (tt.isErr && !errors.As(err, &fe)) {
			t.Errorf("OnPCM(%d, %d Hz, %d bytes) = %+v, %v", tt.stream, tt.rate, tt.n, f, err)
		}
	}
	if r.State() != MicListening {
		t.Fatalf("rejected frames ended the session: %v", r.State())
	}
	if f, err := r.OnPCM(7, 0, MicRate, MicFrameBytes); err != nil || !f.Deliver {
		t.Fatalf("good frame after rejects: %+v %v", f, err)
	}
}

func TestMicReceiverStopResends(t *testing.T) {
	r := listening(t)
	r.Stop()
	var sentAt []time.Duration
	for ms := 0; ms <= 2500; ms += 50 {
		now := t0.Add(time.Duration(ms) * time.Millisecond)
		if a, ok := r.Next(now); ok {
			if a.Control != wire.CtrlMicStop || a.StreamID != 7 {
				t.Fatalf("action %+v, want MIC_STOP(7)", a)
			}
			sentAt = append(sentAt, now.Sub(t0))
		}
		if ms == 1200 && r.OnStopped(8) {
			t.Fatal("MIC_STOPPED of another stream taken")
		}
	}
	want := []time.Duration{0, 500 * time.Millisecond, time.Second, 1500 * time.Millisecond}
	if len(sentAt) != len(want) {
		t.Fatalf("MIC_STOP sent at %v, want %v", sentAt, want)
	}
	for i := range want {
		if sentAt[i] != want[i] {
			t.Fatalf("MIC_STOP sent at %v, want %v", sentAt, want)
		}
	}
	if r.State() != MicStopped || !errors.Is(r.Err(), ErrMicStopTimeout) {
		t.Fatalf("state %v err %v, want stop timeout", r.State(), r.Err())
	}
}

func TestMicReceiverAgainstDock(t *testing.T) {
	var d Dock
	r, _ := NewMicReceiver(3)
	a, _ := r.Next(t0)
	d.Control(a.Control, a.StreamID, a.SampleRate, nil)
	if _, ok := r.Next(t0.Add(time.Second)); ok {
		t.Fatal("acted while waiting for MIC_STARTED")
	}
	for _, rep := range d.Mic.CaptureStarted().Replies {
		r.OnStarted(rep.StreamID)
	}
	for i := 0; i < 5; i++ {
		s, seq, _ := d.Mic.NextFrame()
		if i == 2 {
			continue // lost on the way
		}
		f, err := r.OnPCM(s.StreamID, seq, s.SampleRate, MicFrameBytes)
		if err != nil || !f.Deliver || (i == 3) != (f.Silence == 1) {
			t.Fatalf("frame %d: %+v %v", i, f, err)
		}
	}
	r.Stop()
	a, _ = r.Next(t0.Add(2 * time.Second))
	o, _ := d.Control(a.Control, a.StreamID, a.SampleRate, nil)
	for _, rep := range o.Replies {
		if !r.OnStopped(rep.StreamID) {
			t.Fatalf("reply %+v not taken", rep)
		}
	}
	if r.State() != MicStopped || r.Err() != nil {
		t.Fatalf("state %v err %v", r.State(), r.Err())
	}
}

func TestMicReceiverStartTimeoutStops(t *testing.T) {
	r, _ := NewMicReceiver(2)
	r.Next(t0)
	if w, ok := r.Wake(); !ok || !w.Equal(t0.Add(MicStartTimeout)) {
		t.Fatalf("Wake = %v %v", w, ok)
	}
	a, ok := r.Next(t0.Add(MicStartTimeout))
	if !ok || a.Control != wire.CtrlMicStop || !errors.Is(r.Err(), ErrMicStartTimeout) {
		t.Fatalf("at start timeout %+v %v err %v", a, ok, r.Err())
	}
	r.OnStopped(2)
	if r.State() != MicStopped || !errors.Is(r.Err(), ErrMicStartTimeout) {
		t.Fatalf("state %v err %v", r.State(), r.Err())
	}
}

func TestMicReceiverErrorsAndReset(t *testing.T) {
	r := listening(t)
	if r.OnError(9, wire.ErrAudioOutput) {
		t.Fatal("ERROR for another stream taken")
	}
	var fe *FirmwareError
	if !r.OnError(7, wire.ErrTransportOverflow) || !errors.As(r.Err(), &fe) || r.State() != MicStopped {
		t.Fatalf("ERROR on own stream: state %v err %v", r.State(), r.Err())
	}
	q := listening(t)
	q.Reset()
	if !errors.Is(q.Err(), ErrSessionLost) || q.State() != MicStopped {
		t.Fatalf("reset: state %v err %v", q.State(), q.Err())
	}
	if _, err := NewMicReceiver(0); err == nil {
		t.Fatal("stream 0 accepted")
	}
}
