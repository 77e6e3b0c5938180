package docktest

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
	"github.com/claude-pi/claude-pi/protocols/stackchan/session"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// Firmware is the Core as its Hooks see it, valid only while a hook runs.
type Firmware struct{ c *Core }

// Dock is the firmware's session state.
func (fw Firmware) Dock() *session.Dock { return &fw.c.dock }

// Write sends a frame to the host.
func (fw Firmware) Write(fr wire.Frame) { fw.c.write(fr) }

// WriteRaw sends bytes to the host as they are, e.g. line noise.
func (fw Firmware) WriteRaw(b []byte) { fw.c.writeRaw(b) }

// SendRawEvent sends b (a raw event's JSON) as an EVENT message.
func (fw Firmware) SendRawEvent(b []byte) { fw.c.sendJSON(b) }

// Reply sends the session's answers, as for a frame from the host.
func (fw Firmware) Reply(o session.Outcome) { fw.c.replies(o) }

// Violation records a rule the host broke.
func (fw Firmware) Violation(format string, args ...any) { fw.c.violation(format, args...) }

func (c *Core) next() uint32 { c.seq++; return c.seq - 1 }

func (c *Core) violation(format string, args ...any) {
	c.violations = append(c.violations, fmt.Sprintf(format, args...))
}

func (c *Core) handle(fr wire.Frame) {
	switch fr.Type {
	case wire.TypeControl:
		c.control(fr)
	case wire.TypeSpeakerPCM:
		c.speakerPCM(fr)
	case wire.TypeEvent:
		c.eventFrame(fr)
	default:
		c.violation("unexpected frame type %v", fr.Type)
	}
}

func (c *Core) control(fr wire.Frame) {
	code, _ := fr.Control()
	h := c.opt.Hooks
	switch code {
	case wire.CtrlHello:
		neg, err := wire.CheckHello(fr, c.opt.Caps)
		if err != nil {
			c.violation("bad HELLO: %v", err)
			c.write(wire.ErrorFrame(0, c.next(), wire.ErrInvalidRequest))
			return
		}
		if p := wire.HelloPayload(neg.Ack()); p.MaxPayload != wire.MaxPayload {
			c.violation("HELLO max payload %d", p.MaxPayload)
		}
		c.hellos++
		c.helloed = true
		c.dock.Reset()
		c.reasm.Reset()
		clear(c.owed)
		if h.Hello != nil {
			h.Hello(Firmware{c})
		}
		c.write(wire.HelloAckFrame(c.next(), neg.Ack()))
		return
	case wire.CtrlStatus:
		s, err := wire.FirmwareCheckStatus(fr, c.opt.Caps)
		if err != nil {
			c.violation("STATUS: %v", err)
			return
		}
		if s == wire.StatusListening && !c.dock.Mic.Started() {
			c.violation("STATUS LISTENING before MIC_STARTED")
		}
		if h.Status != nil {
			h.Status(Firmware{c}, s)
		}
		return
	}
	if !c.helloed {
		c.violation("%v before HELLO", code)
		return
	}
	if code == wire.CtrlSpeakerStart {
		c.nextSeq[fr.StreamID] = 0
	}
	if h.Control != nil && h.Control(Firmware{c}, code, fr) {
		return
	}
	o, ok := c.dock.Control(code, fr.StreamID, fr.SampleRate, fr.Payload)
	if !ok {
		c.violation("unexpected control %v", code)
		return
	}
	if o.Result == session.Invalid || o.Result == session.Busy {
		c.violation("%v on stream %d: %v", code, fr.StreamID, o.Result)
	}
	c.replies(o)
}

func (c *Core) speakerPCM(fr wire.Frame) {
	id := fr.StreamID
	if fr.Sequence != c.nextSeq[id] {
		c.violation("PCM sequence gap on stream %d: got %d, want %d", id, fr.Sequence, c.nextSeq[id])
	}
	c.nextSeq[id] = fr.Sequence + 1
	c.sent[id] += int64(len(fr.Payload))
	if c.opt.CreditStep > 0 && c.sent[id] > c.granted[id] {
		c.violation("stream %d: %d PCM bytes sent, only %d granted", id, c.sent[id], c.granted[id])
	}
	if max := session.SpeakerFrameBytes(fr.SampleRate); len(fr.Payload) > max {
		c.violation("PCM frame of %d bytes above 80 ms (%d)", len(fr.Payload), max)
	}
	o := c.dock.SpeakerPCM(id, fr.SampleRate, fr.Sequence, len(fr.Payload))
	if o.Result != session.Accepted {
		c.violation("PCM seq %d on stream %d: %v", fr.Sequence, id, o.Result)
	}
	c.replies(o)
	if c.opt.Hooks.PCM != nil {
		c.opt.Hooks.PCM(Firmware{c}, fr)
	}
}

func (c *Core) eventFrame(fr wire.Frame) {
	if !c.opt.Caps.Has(wire.CapEvent) {
		c.violation("EVENT frame sent to firmware without EVENT")
		c.write(wire.ErrorFrame(fr.StreamID, c.next(), wire.ErrInvalidRequest))
		return
	}
	msg, done, err := c.reasm.Add(fr)
	if err != nil {
		c.violation("EVENT: %v", err)
		return
	}
	if !done {
		return
	}
	if r, _ := appevent.Route(msg); r.Kind == appevent.Raw {
		// Raw events (no schema, spec §18). Claude_Pi's firmware takes
		// claude_pi.settings; a Realtime-shaped event (Stack-chan's tools)
		// is only recorded, and a Raw hook plays the firmware's session.
		if r.Type == appevent.TypeSettings {
			s, err := appevent.DecodeSettings(msg)
			if err != nil {
				c.violation("event %s: %v", msg, err)
				return
			}
			c.settings = append(c.settings, s)
			return
		}
		c.raws = append(c.raws, append([]byte(nil), msg...))
		if c.opt.Hooks.Raw != nil {
			c.opt.Hooks.Raw(Firmware{c}, msg)
		}
		return
	}
	ev, err := appevent.DecodeInbound(msg, appevent.HostToFirmware)
	if err != nil {
		c.violation("event %s: %v", msg, err)
		return
	}
	c.events = append(c.events, ev)
	if c.opt.Hooks.Event != nil {
		c.opt.Hooks.Event(Firmware{c}, ev)
	}
	if r, ok := ev.(appevent.ApprovalRequest); ok && !c.opt.NoPresent {
		c.sendEvent(appevent.NewApprovalPresented(r.RequestID))
	}
}

// replies sends the session's answers, holding credit back in CreditStep mode.
func (c *Core) replies(o session.Outcome) {
	for _, r := range o.Replies {
		if r.Code == wire.CtrlSpeakerCredit && c.opt.CreditStep > 0 {
			c.owed[r.StreamID] += int(r.Value)
			c.owedRate[r.StreamID] = r.SampleRate
			continue
		}
		c.reply(r)
	}
}

func (c *Core) reply(r session.Reply) {
	switch r.Code {
	case wire.CtrlSpeakerCredit:
		c.granted[r.StreamID] += int64(r.Value)
		c.write(wire.SpeakerCreditFrame(r.StreamID, c.next(), r.SampleRate, r.Value))
	case wire.CtrlSpeakerDone:
		c.write(wire.SpeakerDoneFrame(r.StreamID, c.next(), r.SampleRate))
	case wire.CtrlError:
		c.write(wire.ErrorFrame(r.StreamID, c.next(), wire.ErrorCode(r.Value)))
	default:
		c.write(wire.ControlFrame(r.Code, r.StreamID, c.next(), r.SampleRate, nil))
	}
	if c.opt.Hooks.Reply != nil {
		c.opt.Hooks.Reply(Firmware{c}, r)
	}
}

// release hands out owed credit in CreditStep increments, one per tick.
func (c *Core) release() {
	for id, n := range c.owed {
		if n <= 0 {
			continue
		}
		inc := min(n, c.opt.CreditStep)
		c.owed[id] -= inc
		c.reply(session.Reply{Code: wire.CtrlSpeakerCredit, StreamID: id, SampleRate: c.owedRate[id], Value: uint32(inc)})
	}
}

// capture is the simulated microphone: MIC_STARTED one tick after an
// accepted MIC_START (capture "opens"), then MicFrames tone frames per tick.
func (c *Core) capture() {
	if c.dock.Mic.Active() == 0 {
		return
	}
	if !c.dock.Mic.Started() {
		c.replies(c.dock.Mic.CaptureStarted())
		return
	}
	for range c.opt.MicFrames {
		s, seq, ok := c.dock.Mic.NextFrame()
		if !ok {
			return
		}
		pcm := make([]byte, session.MicFrameBytes)
		for i := 0; i < len(pcm); i += 2 {
			v := int16(8000 * math.Sin(2*math.Pi*440*float64(c.tonePhase)/session.MicRate))
			binary.LittleEndian.PutUint16(pcm[i:], uint16(v))
			c.tonePhase++
		}
		c.write(wire.Frame{Type: wire.TypeMicPCM, StreamID: s.StreamID, Sequence: seq, SampleRate: s.SampleRate, Payload: pcm})
	}
}
