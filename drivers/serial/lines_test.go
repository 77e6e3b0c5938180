package serial

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"syscall"
	"testing"
	"time"

	bugst "go.bug.st/serial"
)

// fakeKernel models what Linux does to a USB CDC-ACM port's modem lines:
// it raises both when the tty is opened, applies each TIOCMSET as one
// SET_CONTROL_LINE_STATE, and drops both on the last close. states is every
// line state the device saw, in order, as usbmon would show it.
type fakeKernel struct {
	states []Lines
	opens  int
}

func (k *fakeKernel) open(path string, mode *bugst.Mode) (bugst.Port, error) {
	k.opens++
	t := &fakeTTY{k: k}
	t.set(LinesRaised)
	if b := mode.InitialStatusBits; b != nil {
		t.set(Lines{DTR: b.DTR, RTS: b.RTS})
	}
	return t, nil
}

type fakeTTY struct {
	k     *fakeKernel
	lines Lines
}

func (t *fakeTTY) set(l Lines) {
	t.lines = l
	t.k.states = append(t.k.states, l)
}

func (t *fakeTTY) SetDTR(v bool) error { l := t.lines; l.DTR = v; t.set(l); return nil }
func (t *fakeTTY) SetRTS(v bool) error { l := t.lines; l.RTS = v; t.set(l); return nil }
func (t *fakeTTY) Close() error        { t.set(Lines{}); return nil }

func (t *fakeTTY) SetMode(*bugst.Mode) error   { return nil }
func (t *fakeTTY) Read([]byte) (int, error)    { return 0, io.EOF }
func (t *fakeTTY) Write(b []byte) (int, error) { return len(b), nil }
func (t *fakeTTY) Drain() error                { return nil }
func (t *fakeTTY) ResetInputBuffer() error     { return nil }
func (t *fakeTTY) ResetOutputBuffer() error    { return nil }
func (t *fakeTTY) GetModemStatusBits() (*bugst.ModemStatusBits, error) {
	return &bugst.ModemStatusBits{}, nil
}
func (t *fakeTTY) SetReadTimeout(time.Duration) error { return nil }
func (t *fakeTTY) Break(time.Duration) error          { return nil }

// TestLineStatesEveryCombination opens the port with each of the nine
// dtr/rts settings (unset, true, false) and checks every line state the
// device passes through: never reset (DTR=0 RTS=1), never download (DTR=1
// RTS=0), from the kernel's open to the close.
func TestLineStatesEveryCombination(t *testing.T) {
	on, off := true, false
	raised, low := LinesRaised, Lines{}
	type setting struct {
		name string
		v    *bool
	}
	settings := []setting{{"unset", nil}, {"true", &on}, {"false", &off}}
	want := map[[2]string]struct {
		held    Lines
		refused string // a word of the error, "" = opened
	}{
		{"unset", "unset"}: {held: raised},
		{"unset", "true"}:  {held: raised},
		{"true", "unset"}:  {held: raised},
		{"true", "true"}:   {held: raised},
		{"false", "false"}: {held: low},
		{"false", "unset"}: {refused: "reset"},
		{"false", "true"}:  {refused: "reset"},
		{"unset", "false"}: {refused: "download"},
		{"true", "false"}:  {refused: "download"},
	}
	for _, d := range settings {
		for _, r := range settings {
			name := "dtr=" + d.name + ",rts=" + r.name
			w := want[[2]string{d.name, r.name}]
			t.Run(name, func(t *testing.T) {
				k := &fakeKernel{}
				p, err := OpenPath(context.Background(), "/dev/ttyACM0", &Opts{DTR: d.v, RTS: r.v, Settle: time.Microsecond, openTTY: k.open})
				if w.refused != "" {
					if err == nil || !strings.Contains(err.Error(), w.refused) || !strings.Contains(err.Error(), "set both false") {
						t.Fatalf("OpenPath = %v, want a refusal naming %q and the fix", err, w.refused)
					}
					if k.opens != 0 {
						t.Fatalf("refused setting opened the device %d times (lines %v)", k.opens, k.states)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				held := k.states[len(k.states)-1]
				p.Close()
				if held != w.held {
					t.Errorf("lines held while open = %v, want %v (states %v)", held, w.held, k.states)
				}
				if k.opens != 1 {
					t.Errorf("opened %d times, want once", k.opens)
				}
				for i, s := range k.states {
					if h := s.Hazard(); h != "" {
						t.Errorf("step %d of %v: %v %s", i, k.states, s, h)
					}
				}
				// One control request per change: unset leaves the kernel's
				// raise alone, a setting adds exactly one TIOCMSET.
				steps := 2 // open, close
				if d.v != nil || r.v != nil {
					steps++
				}
				if len(k.states) != steps {
					t.Errorf("states %v: %d steps, want %d", k.states, len(k.states), steps)
				}
			})
		}
	}
}

// TestOneLineAtATimeWouldPassThroughAHazard is why the lines are set with
// one TIOCMSET: going from the kernel's both-raised to both-low line by
// line passes through reset or download, whichever goes first.
func TestOneLineAtATimeWouldPassThroughAHazard(t *testing.T) {
	for _, dtrFirst := range []bool{true, false} {
		k := &fakeKernel{}
		sp, _ := k.open("/dev/ttyACM0", &bugst.Mode{})
		if dtrFirst {
			sp.SetDTR(false)
			sp.SetRTS(false)
		} else {
			sp.SetRTS(false)
			sp.SetDTR(false)
		}
		if h := k.states[1].Hazard(); h == "" {
			t.Errorf("dtrFirst=%v: %v passed no hazard; the fake does not model the lines", dtrFirst, k.states)
		}
	}
}

func TestWantLines(t *testing.T) {
	on, off := true, false
	for _, tc := range []struct {
		dtr, rts *bool
		want     Lines
		ok       bool
	}{
		{nil, nil, LinesRaised, true},
		{&off, &off, Lines{}, true},
		{&on, nil, LinesRaised, true},
		{&off, nil, Lines{RTS: true}, false},
		{nil, &off, Lines{DTR: true}, false},
	} {
		got, err := WantLines(tc.dtr, tc.rts)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("WantLines(%v, %v) = %v, %v; want %v, ok=%v", tc.dtr, tc.rts, got, err, tc.want, tc.ok)
		}
	}
}

func TestOpenErrorMarksPermission(t *testing.T) {
	denied := func(string, *bugst.Mode) (bugst.Port, error) {
		return nil, fmt.Errorf("open: %w", syscall.EACCES)
	}
	_, err := OpenPath(context.Background(), "/dev/ttyACM0", &Opts{openTTY: denied})
	if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), "/dev/ttyACM0") || !strings.Contains(err.Error(), "dialout") {
		t.Fatalf("OpenPath(denied) = %v, want fs.ErrPermission naming the path and the dialout group", err)
	}
	busy := func(string, *bugst.Mode) (bugst.Port, error) { return nil, syscall.EBUSY }
	if _, err := OpenPath(context.Background(), "/dev/ttyACM0", &Opts{openTTY: busy}); errors.Is(err, fs.ErrPermission) || !errors.Is(err, syscall.EBUSY) {
		t.Fatalf("OpenPath(busy) = %v, want EBUSY and no permission mark", err)
	}
}
