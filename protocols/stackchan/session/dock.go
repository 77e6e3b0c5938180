package session

import (
	"time"

	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// Dock is the CoreS3's media side: one microphone and one speaker guard under
// the half-duplex rule (spec §10). It is what our firmware core mirrors and the
// fake CoreS3 the host's tests talk to. The zero value has media enabled and
// both directions idle; the handshake layer calls Reset on every valid HELLO.
type Dock struct {
	Mic      MicGuard
	Speaker  SpeakerGuard
	disabled bool
}

// MicStart handles MIC_START; BUSY while a speaker session exists (even one
// draining after END) or media is disabled.
func (d *Dock) MicStart(id uint16, rate uint32, payloadLen int) Outcome {
	return d.Mic.Start(id, rate, payloadLen, d.disabled || d.Speaker.Active().StreamID != 0)
}

// SpeakerStart handles SPEAKER_START; BUSY while the microphone is active or
// media is disabled.
func (d *Dock) SpeakerStart(id uint16, rate uint32, payloadLen int) Outcome {
	return d.Speaker.Start(id, rate, payloadLen, d.disabled || d.Mic.Active() != 0)
}

// Control dispatches a host media control frame. ok is false for codes that
// are not media controls (HELLO, STATUS and unknown codes belong to the
// handshake layer, which answers unknown codes with ERROR 1).
func (d *Dock) Control(code wire.Control, stream uint16, rate uint32, payload []byte) (o Outcome, ok bool) {
	switch code {
	case wire.CtrlMicStart:
		return d.MicStart(stream, rate, len(payload)), true
	case wire.CtrlMicStop:
		return d.Mic.Stop(stream, rate, len(payload)), true
	case wire.CtrlSpeakerStart:
		return d.SpeakerStart(stream, rate, len(payload)), true
	case wire.CtrlSpeakerEnd:
		return d.Speaker.End(stream, rate, len(payload)), true
	case wire.CtrlSpeakerAbort:
		return d.Speaker.Abort(stream, rate, len(payload)), true
	case wire.CtrlSpeakerText:
		return d.Speaker.Text(stream, rate, payload), true
	}
	return Outcome{}, false
}

// SpeakerPCM handles a SPEAKER_PCM frame.
func (d *Dock) SpeakerPCM(stream uint16, rate uint32, seq uint32, payloadLen int) Outcome {
	return d.Speaker.PCM(stream, rate, seq, payloadLen)
}

// Advance runs the simulated speaker output for dt (see SpeakerGuard.Advance).
func (d *Dock) Advance(dt time.Duration) Outcome { return d.Speaker.Advance(dt) }

// SetMediaEnabled switches media on or off. Switching off stops both sessions
// silently but, unlike Reset, keeps the last ids (spec §11.3).
func (d *Dock) SetMediaEnabled(on bool) {
	d.disabled = !on
	if !on {
		d.Mic.ForceStop(0)
		d.Speaker.ForceStop(0)
	}
}

// MediaEnabled reports whether media sessions may start.
func (d *Dock) MediaEnabled() bool { return !d.disabled }

// Reset is the HELLO / USB-disconnect reset of both directions.
func (d *Dock) Reset() {
	d.Mic.Reset()
	d.Speaker.Reset()
}
