package session

import (
	"fmt"
	"time"

	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// MicState is the phase of a host microphone session.
type MicState uint8

const (
	MicStarting     MicState = iota // MIC_START not yet sent
	MicAwaitStarted                 // MIC_START sent, waiting for MIC_STARTED
	MicListening                    // capture runs; PCM accepted
	MicStopping                     // MIC_STOP sent (resent every 500 ms)
	MicStopped                      // finished; Err says whether cleanly
)

var micStateNames = [...]string{"starting", "await-started", "listening", "stopping", "stopped"}

// String returns a short lowercase name, e.g. "listening".
func (s MicState) String() string {
	if int(s) < len(micStateNames) {
		return micStateNames[s]
	}
	return fmt.Sprintf("mic-state(%d)", uint8(s))
}

// MicFrame says what to do with one accepted MICROPHONE_PCM frame.
type MicFrame struct {
	Silence int  // silent 640-byte frames to deliver first (gap fill)
	Deliver bool // deliver the frame's payload
}

// MicFrameError is a MICROPHONE_PCM frame of the active stream with the wrong
// rate or size. The frame is dropped; the session goes on.
type MicFrameError struct {
	StreamID   uint16
	SampleRate uint32
	Bytes      int
}

// Error names the stream and what was wrong with the frame.
func (e *MicFrameError) Error() string {
	return fmt.Sprintf("microphone stream %d: frame of %d bytes at %d Hz, want %d bytes at %d Hz",
		e.StreamID, e.Bytes, e.SampleRate, MicFrameBytes, MicRate)
}

// MicSequenceError is a sequence gap above MaxGapFill frames or a backwards
// jump. It ends the session: the receiver moves to MicStopping.
type MicSequenceError struct {
	StreamID uint16
	Expected uint32
	Got      uint32
}

// Error names the stream and both sequence numbers.
func (e *MicSequenceError) Error() string {
	return fmt.Sprintf("microphone stream %d: sequence %d, expected %d", e.StreamID, e.Got, e.Expected)
}

// MicReceiver is the host side of one microphone session (spec §11.4).
type MicReceiver struct {
	id       uint16
	state    MicState
	err      error
	next     uint32    // expected sequence
	since    time.Time // MIC_START sent, or first MIC_STOP sent
	lastStop time.Time // last MIC_STOP sent; zero before the first
}

// NewMicReceiver returns a receiver whose first Next is MIC_START(id).
func NewMicReceiver(id uint16) (*MicReceiver, error) {
	if id == 0 {
		return nil, fmt.Errorf("microphone: stream id 0 is reserved")
	}
	return &MicReceiver{id: id}, nil
}

// StreamID returns the session's stream id.
func (r *MicReceiver) StreamID() uint16 { return r.id }

// State returns the current phase.
func (r *MicReceiver) State() MicState { return r.state }

// Err returns why the session ended abnormally, or nil.
func (r *MicReceiver) Err() error { return r.err }

func (r *MicReceiver) session() Session { return Session{r.id, MicRate} }

// Stop asks for the session to end; Next then sends MIC_STOP until MIC_STOPPED.
func (r *MicReceiver) Stop() {
	switch r.state {
	case MicStarting:
		r.state = MicStopped
	case MicAwaitStarted, MicListening:
		r.state = MicStopping
	}
}

// OnStarted handles MIC_STARTED and reports whether it was for this session.
func (r *MicReceiver) OnStarted(stream uint16) bool {
	if stream != r.id || r.state != MicAwaitStarted {
		return false
	}
	r.state = MicListening
	return true
}

// OnStopped handles MIC_STOPPED and reports whether it ended this session.
func (r *MicReceiver) OnStopped(stream uint16) bool {
	if stream != r.id || r.state != MicStopping {
		return false
	}
	r.state = MicStopped
	return true
}

// OnError handles an ERROR frame and reports whether it ended this session.
// The firmware force-stopped it, so no MIC_STOPPED will follow.
func (r *MicReceiver) OnError(stream uint16, code wire.ErrorCode) bool {
	if stream != r.id || r.state == MicStarting || r.state == MicStopped {
		return false
	}
	r.end(&FirmwareError{StreamID: stream, Code: code})
	return true
}

// Reset records that the firmware lost all sessions (a later HELLO_ACK, unplug).
// A session whose MIC_START is not sent yet is unaffected.
func (r *MicReceiver) Reset() {
	if r.state != MicStarting && r.state != MicStopped {
		r.end(ErrSessionLost)
	}
}

func (r *MicReceiver) end(err error) {
	r.state = MicStopped
	if r.err == nil {
		r.err = err
	}
}

// OnPCM checks a MICROPHONE_PCM frame. Frames of other streams, or outside
// capture, are ignored (zero MicFrame, nil error).
func (r *MicReceiver) OnPCM(stream uint16, seq, rate uint32, payloadLen int) (MicFrame, error) {
	if stream != r.id || (r.state != MicListening && r.state != MicStopping) {
		return MicFrame{}, nil
	}
	if rate != MicRate || payloadLen != MicFrameBytes {
		return MicFrame{}, &MicFrameError{StreamID: stream, SampleRate: rate, Bytes: payloadLen}
	}
	gap := seq - r.next // wraps for a backwards jump
	if gap > MaxGapFill {
		err := &MicSequenceError{StreamID: stream, Expected: r.next, Got: seq}
		if r.err == nil {
			r.err = err
		}
		r.state = MicStopping
		return MicFrame{}, err
	}
	r.next = seq + 1
	return MicFrame{Silence: int(gap), Deliver: true}, nil
}

// Wake returns when Next must be called again even if nothing arrives.
func (r *MicReceiver) Wake() (time.Time, bool) {
	switch r.state {
	case MicAwaitStarted:
		return r.since.Add(MicStartTimeout), true
	case MicStopping:
		if r.lastStop.IsZero() {
			return time.Time{}, true // send now
		}
		resend := r.lastStop.Add(MicStopResend)
		if limit := r.since.Add(MicStopTimeout); limit.Before(resend) {
			return limit, true
		}
		return resend, true
	}
	return time.Time{}, false
}

// Next returns the next control frame to send at now, if any: MIC_START
// first, then MIC_STOP on Stop and every 500 ms until MIC_STOPPED or 2 s.
func (r *MicReceiver) Next(now time.Time) (Action, bool) {
	switch r.state {
	case MicStarting:
		r.state, r.since = MicAwaitStarted, now
		return control(wire.CtrlMicStart, r.session()), true
	case MicAwaitStarted:
		if now.Sub(r.since) >= MicStartTimeout {
			// Capture may start late; stop it rather than leave it running.
			r.err = ErrMicStartTimeout
			r.state = MicStopping
			return r.Next(now)
		}
	case MicStopping:
		if r.lastStop.IsZero() {
			r.since, r.lastStop = now, now
			return control(wire.CtrlMicStop, r.session()), true
		}
		if now.Sub(r.since) >= MicStopTimeout {
			r.end(ErrMicStopTimeout)
			return Action{}, false
		}
		if now.Sub(r.lastStop) >= MicStopResend {
			r.lastStop = now
			return control(wire.CtrlMicStop, r.session()), true
		}
	}
	return Action{}, false
}
