package session

import "github.com/claude-pi/claude-pi/protocols/stackchan/wire"

// MicGuard is the firmware's microphone session state (spec §11.3):
// IDLE(last) or ACTIVE(id, started). The zero value is IDLE with no last
// session. It does not know about the speaker; Dock adds the half-duplex rule.
type MicGuard struct {
	id      uint16 // active id, 0 when idle
	started bool   // capture running, MIC_STARTED sent
	last    uint16 // last stopped id, 0 = none
	seq     uint32 // next MICROPHONE_PCM sequence
}

// Active returns the active microphone id, or 0 when idle.
func (g *MicGuard) Active() uint16 { return g.id }

// Started reports whether capture runs (MIC_STARTED has been sent).
func (g *MicGuard) Started() bool { return g.id != 0 && g.started }

// Last returns the id of the last stopped session (0 = none).
func (g *MicGuard) Last() uint16 { return g.last }

func micRequestValid(id uint16, rate uint32, payloadLen int) bool {
	return id != 0 && rate == MicRate && payloadLen == 0
}

// Start handles MIC_START(id). busy is true when a speaker session exists or
// media is disabled. An accepted start only opens capture: MIC_STARTED follows
// from CaptureStarted, because the host must not see it before audio flows.
func (g *MicGuard) Start(id uint16, rate uint32, payloadLen int, busy bool) Outcome {
	var o Outcome
	s := Session{id, MicRate}
	switch {
	case !micRequestValid(id, rate, payloadLen):
		o.Result = Invalid
		o.fail(wire.ErrInvalidStreamData, id)
	case busy || (g.id != 0 && g.id != id):
		o.Result = Busy
		o.fail(wire.ErrBusy, id)
	case g.id == id:
		o.Result = Idempotent
		if g.started {
			o.reply(wire.CtrlMicStarted, s, 0)
		}
	default:
		o.Result = Accepted
		g.id, g.started, g.seq = id, false, 0
	}
	return o
}

// CaptureStarted records that audio input runs and returns MIC_STARTED.
// It does nothing when idle or already started.
func (g *MicGuard) CaptureStarted() Outcome {
	var o Outcome
	if g.id == 0 || g.started {
		return o
	}
	g.started = true
	o.Result = Accepted
	o.reply(wire.CtrlMicStarted, Session{g.id, MicRate}, 0)
	return o
}

// Stop handles MIC_STOP(id). A repeated stop for the last stopped id answers
// MIC_STOPPED again, so a host resending MIC_STOP always gets its reply.
func (g *MicGuard) Stop(id uint16, rate uint32, payloadLen int) Outcome {
	var o Outcome
	s := Session{id, MicRate}
	switch {
	case !micRequestValid(id, rate, payloadLen):
		o.Result = Invalid
		o.fail(wire.ErrInvalidStreamData, id)
	case g.id == id:
		o.Result = Accepted
		g.id, g.started, g.last = 0, false, id
		o.reply(wire.CtrlMicStopped, s, 0)
	case g.id == 0 && g.last == id:
		o.Result = Idempotent
		o.reply(wire.CtrlMicStopped, s, 0)
	default:
		o.Result = Stale
	}
	return o
}

// NextFrame returns the sequence number for the next MICROPHONE_PCM frame of
// the active session and advances it; ok is false until capture has started.
func (g *MicGuard) NextFrame() (s Session, seq uint32, ok bool) {
	if g.id == 0 || !g.started {
		return Session{}, 0, false
	}
	seq = g.seq
	g.seq++
	return Session{g.id, MicRate}, seq, true
}

// ForceStop stops the active session without MIC_STOPPED (TX overflow, capture
// failure). code is sent as ERROR on the stream unless it is 0. The stopped id
// stays "last stopped" so the host's MIC_STOP still gets MIC_STOPPED.
func (g *MicGuard) ForceStop(code wire.ErrorCode) (Session, Outcome) {
	var o Outcome
	if g.id == 0 {
		return Session{}, o
	}
	stopped := Session{g.id, MicRate}
	g.id, g.started, g.last = 0, false, stopped.StreamID
	if code != 0 {
		o.fail(code, stopped.StreamID)
	}
	return stopped, o
}

// Reset is the HELLO / USB-disconnect reset: stop silently and forget the last id.
func (g *MicGuard) Reset() { *g = MicGuard{} }
