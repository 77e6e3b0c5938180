package dock

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/claude-pi/claude-pi/actors/dock/voice"
	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
	"github.com/claude-pi/claude-pi/protocols/stackchan/event"
	"github.com/claude-pi/claude-pi/protocols/stackchan/realtime"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// Handshake timing (spec §9.1, §25).
const (
	helloResend  = 500 * time.Millisecond
	helloGiveUp  = 8 * time.Second
	dupAckWindow = time.Second // [OURS] duplicate HELLO_ACKs ignored this long
	// recentEvents: an ERROR naming one of the last this many EVENT
	// message ids is taken as an answer to our EVENT.
	recentEvents = 64
)

// audioOnlyNote is what the user sees for firmware without EVENT (spec §7).
const audioOnlyNote = "CoreS3 without EVENT: audio only — update its firmware for approvals"

// phase is where the host is with the CoreS3.
type phase uint8

const (
	detached  phase = iota // no port
	handshake              // HELLO sent, waiting for HELLO_ACK
	ready                  // valid HELLO_ACK
)

// errHandshakeTimeout: no valid HELLO_ACK within 8 s.
var errHandshakeTimeout = errors.New("dock: no valid HELLO_ACK within 8s of the first HELLO")

// hostConfig is what the pure host needs from Options.
// Its voice.Config is the voice part's, which reads it through a pointer.
type hostConfig struct {
	voice.Config
	speakPrompts, speakAssistant bool
	assistantMax                 int  // runes spoken of one assistant text
	displayOnly                  bool // dock.approvals = false
	volume                       *int // dock.volume, nil = not sent
}

// Effects the actor performs after each host call (beside writing tx).
type (
	// decideOut (the mirror's and voice's), synthOut and cancelSynthOut
	// (voice's) are the voice package's effects.
	decideOut      = voice.Decide
	synthOut       = voice.SynthOut
	cancelSynthOut = voice.CancelSynthOut
	// closeOut asks the actor to close the port and retry after a back-off.
	closeOut struct{ Err error }
)

// host is the dock host as a pure state machine: frames and actor messages
// in, bytes to write and effects out, time as an argument. The actor calls a
// method, then writes takeTx() and performs takeEffects().
type host struct {
	cfg hostConfig

	phase      phase
	helloStart time.Time
	helloNext  time.Time
	ackAt      time.Time // when the accepted HELLO_ACK arrived
	mediaSince bool      // a media session was started since ackAt
	neg        wire.Negotiated
	ctrlSeq    uint32
	reasm      event.Reassembler
	ids        event.IDs
	lastEvent  uint16 // the id of the last EVENT message sent; 0 = none since the handshake

	statusSent   bool
	status       wire.Status
	settingsSent int // claude_pi.settings events sent, for their event_id

	mirror mirror
	task   taskState
	terms  terminals
	// Part is speech, voice, STT, follow-ups and the conversation
	// (package voice), behind its voice.Sink, which is this host
	// (voicesink.go).
	voice.Part
	// rt is the session layer (Stack-chan's tools, tools.go);
	// toolsVersion counts its catalog changes.
	rt           *realtime.Host
	toolsVersion uint64

	tx      []byte
	effects []any
	frames  []wire.Frame // scratch for event chunks
}

func newHost(cfg hostConfig) *host {
	if cfg.volume != nil {
		cfg.volume = new(*cfg.volume) // the caller's variable is not ours to keep
	}
	h := &host{cfg: cfg, rt: realtime.NewHost("pi-" + cfg.Token)}
	h.mirror.init(h, cfg.displayOnly, cfg.Log)
	h.task.out, h.task.token = h, cfg.Token
	h.Part = voice.New(h, &h.cfg.Config)
	return h
}

// eventReady reports whether EVENT frames may flow both ways (spec §9.3).
func (h *host) eventReady() bool { return h.phase == ready && h.neg.Event }

// attach starts the handshake on a freshly opened port.
func (h *host) attach(now time.Time) {
	h.dropSessions(now)
	// The CoreS3's parser may still hold part of a frame from before (our
	// restart, a failed write): the fill completes it, so HELLO is read
	// as HELLO (wire's README, "Cut-off frames").
	h.tx = wire.AppendFill(h.tx)
	h.phase, h.helloStart, h.helloNext = handshake, now, now
	h.ctrlSeq = 0
	h.tick(now)
}

// detach records an unplug or a closed port: every session is lost.
func (h *host) detach(now time.Time) {
	h.dropSessions(now)
	h.phase = detached
}

// dropSessions is §9.1 step 7 / §19.4: cancel waits, reset credit, forget
// partial EVENT messages. Approvals and task status are re-sent once EVENT
// is ready again.
func (h *host) dropSessions(now time.Time) {
	h.SpeechLost(now)
	h.VoiceLost()
	h.FollowUpLost()
	h.reasm.Reset()
	h.ids, h.lastEvent = event.IDs{}, 0
	h.mirror.transportLost()
	h.rt.Lost()
	h.statusSent = false
	h.mediaSince = false
}

// tick runs every timer that is due at now.
func (h *host) tick(now time.Time) {
	if h.phase == handshake {
		if now.Sub(h.helloStart) >= helloGiveUp {
			h.phase = detached
			h.effects = append(h.effects, closeOut{Err: errHandshakeTimeout})
			return
		}
		if !now.Before(h.helloNext) {
			h.sendControl(wire.HelloFrame(0, wire.HostHello))
			h.helloNext = now.Add(helloResend)
		}
		return
	}
	if h.phase != ready {
		return
	}
	h.mirror.tick(now)
	h.updateTask(now)
	h.task.tick(now)
	h.VoiceTick(now)
	h.rt.Tick(now)
	h.FollowUpTick(now)
	h.PumpSpeech(now)
	h.updateStatus()
}

// wake returns when tick must run next, or false if only input matters.
func (h *host) wake() (time.Time, bool) {
	var at time.Time
	consider := func(t time.Time, ok bool) {
		if ok && (at.IsZero() || t.Before(at)) {
			at = t
		}
	}
	switch h.phase {
	case handshake:
		consider(h.helloNext, true)
		consider(h.helloStart.Add(helloGiveUp), true)
	case ready:
		consider(h.mirror.wake())
		consider(h.task.wake())
		consider(h.terms.endsAt, !h.terms.endsAt.IsZero())
		consider(h.Wake())
		consider(h.rt.Wake())
	}
	return at, !at.IsZero()
}

// frame handles one frame from the parser. f.Payload is only borrowed.
func (h *host) frame(f wire.Frame, now time.Time) {
	switch f.Type {
	case wire.TypeControl:
		h.control(f, now)
	case wire.TypeEvent:
		h.eventFrame(f, now)
	case wire.TypeMicPCM:
		if h.phase == ready {
			h.MicPCM(f, now)
			h.updateStatus()
		}
	default:
		// DIAGNOSTICS, EXPRESSION, MOTION: not asked for.
	}
}

func (h *host) control(f wire.Frame, now time.Time) {
	code, _ := f.Control()
	switch code {
	case wire.CtrlHelloAck:
		h.helloAck(f, now)
		return
	case wire.CtrlError:
		h.firmwareError(f, now)
		return
	}
	if h.phase != ready {
		h.cfg.Log.Debug("control frame before HELLO_ACK ignored", "code", code.String())
		return
	}
	switch code {
	case wire.CtrlSpeakerCredit:
		inc, err := wire.ParseCredit(f.Payload)
		if err != nil {
			h.cfg.Log.Warn("bad SPEAKER_CREDIT ignored", "stream", f.StreamID, "err", err)
			return
		}
		h.SpeakerCredit(f.StreamID, inc, now)
	case wire.CtrlSpeakerDone:
		h.SpeakerDone(f.StreamID, now)
	case wire.CtrlMicStarted:
		if !h.MicStarted(f.StreamID, now) {
			h.cfg.Log.Debug("stale MIC_STARTED ignored", "stream", f.StreamID)
		}
	case wire.CtrlMicStopped:
		if !h.MicStopped(f.StreamID, now) {
			h.cfg.Log.Debug("stale MIC_STOPPED ignored", "stream", f.StreamID)
		}
		h.PumpSpeech(now) // the media is free again
	default:
		h.cfg.Log.Warn("unexpected control frame from the CoreS3 ignored", "code", code.String(), "stream", f.StreamID)
	}
	h.updateStatus()
}

func (h *host) helloAck(f wire.Frame, now time.Time) {
	neg, err := wire.CheckHelloAck(f, wire.HostCaps, wire.HostRequiredCaps)
	if err != nil {
		if h.phase == handshake {
			h.phase = detached
			h.effects = append(h.effects, closeOut{Err: fmt.Errorf("dock: refusing the CoreS3: %w", err)})
		} else {
			h.cfg.Log.Warn("invalid HELLO_ACK ignored", "err", err)
		}
		return
	}
	switch h.phase {
	case detached:
		return
	case ready:
		if now.Sub(h.ackAt) < dupAckWindow && !h.mediaSince {
			h.cfg.Log.Debug("duplicate HELLO_ACK ignored")
			return
		}
		// The firmware answered a HELLO again: it dropped every session.
		h.cfg.Log.Warn("CoreS3 reset its sessions (new HELLO_ACK)")
		h.dropSessions(now)
	}
	h.phase, h.neg, h.ackAt = ready, neg, now
	// The firmware's STATUS is IDLE after a HELLO (§8).
	h.statusSent, h.status = true, wire.StatusIdle
	h.cfg.Log.Info("CoreS3 handshake done", "maxPayload", neg.MaxPayload, "caps", neg.Peer.String(), "event", neg.Event)
	if !neg.Event {
		h.cfg.Log.Warn(audioOnlyNote)
	} else {
		h.sendSettings()
		h.mirror.transportReady(now)
		h.task.transportReady(now)
		h.rt.Ready(now)
	}
	h.PumpSpeech(now)
	h.updateStatus()
}

func (h *host) firmwareError(f wire.Frame, now time.Time) {
	code, err := wire.ParseErrorCode(f.Payload)
	if err != nil {
		h.cfg.Log.Warn("bad ERROR frame ignored", "stream", f.StreamID, "err", err)
		return
	}
	if h.phase == handshake && f.StreamID == 0 && code == wire.ErrInvalidRequest {
		// Our HELLO is the contract's, which every firmware accepts, so
		// this is not its answer: it is the CoreS3 saying it has no
		// session (our firmware sends it when USB comes back, and answers
		// frames that crossed the handshake with it). HELLO again at
		// once; the 8 s give-up still ends a firmware that refuses it.
		h.cfg.Log.Debug("ERROR 1 during the handshake: the CoreS3 has no session yet; HELLO again")
		h.helloNext = now
		h.tick(now)
		return
	}
	if h.phase == handshake && f.StreamID == 0 {
		h.phase = detached
		h.effects = append(h.effects, closeOut{Err: fmt.Errorf("dock: CoreS3 refused HELLO with %s", code)})
		return
	}
	if h.SpeakerError(f.StreamID, code, now) || h.MicError(f.StreamID, code, now) {
		h.PumpSpeech(now)
		h.updateStatus()
		return
	}
	if h.phase == ready && code == wire.ErrInvalidRequest && (f.StreamID == 0 || h.recentEvent(f.StreamID)) {
		// Our STATUS and EVENT are valid, so ERROR 1 for them means the
		// firmware has no HELLO any more (§9.2, §9.3): it reset (USB
		// presence lost and back) while the port stayed open. Without a new
		// HELLO every EVENT would be refused from now on and the mirror
		// would believe the CoreS3 shows the prompts.
		// Our firmware also sends ERROR 1 on stream 0 unasked the moment
		// USB comes back after a session, so a replug is noticed at once
		// rather than at the Pi's next frame.
		h.cfg.Log.Warn("CoreS3 refuses our frames as before a HELLO (it was reset or replugged); handshaking again", "stream", f.StreamID)
		h.attach(now)
		return
	}
	h.cfg.Log.Warn("CoreS3 ERROR for a stream that is not ours any more", "stream", f.StreamID, "code", code.String())
}

// recentEvent reports whether id is one of the last EVENT message ids sent
// since the handshake, and not one of the last speaker streams, whose late
// errors are stale rather than a reset (the two share the stream field).
func (h *host) recentEvent(id uint16) bool {
	return recentEvent(h.lastEvent, h.LastSpeakerStream(), id)
}

// recentEvent is the host's, given the last EVENT id (0: none since the
// handshake) and the last speaker stream (0: none).
func recentEvent(lastEvent, lastSpeaker, id uint16) bool {
	if lastEvent == 0 || id == 0 {
		return false
	}
	if last := lastSpeaker; last != 0 && last-id < 4 {
		return false
	}
	// Ids count up from 1 and skip 0 on wrapping.
	back := int(lastEvent) - int(id)
	if back < 0 {
		back += 0xFFFF
	}
	return back < recentEvents
}

func (h *host) eventFrame(f wire.Frame, now time.Time) {
	if !h.eventReady() {
		return // §9.3: drop silently
	}
	msg, done, err := h.reasm.Add(f)
	if err != nil {
		h.cfg.Log.Warn("EVENT frame discarded", "err", err)
		return
	}
	if !done {
		return
	}
	if r, _ := appevent.Route(msg); r.Kind == appevent.Raw {
		h.rawEvent(msg, now)
		return
	}
	ev, err := appevent.DecodeInbound(msg, appevent.FirmwareToHost)
	if err != nil {
		h.cfg.Log.Warn("EVENT message ignored", "err", err, "bytes", len(msg))
		return
	}
	switch e := ev.(type) {
	case appevent.ApprovalPresented:
		if !h.FollowUpPresented(e.RequestID, now) {
			h.mirror.presented(e.RequestID)
		}
	case appevent.ApprovalResponse:
		if !h.FollowUpResponse(e, now) {
			h.mirror.response(e, now)
		}
	case appevent.ConversationStart:
		h.Conversation(e.RequestID, voice.OpStart, now)
	case appevent.ConversationStop:
		h.Conversation(e.RequestID, voice.OpStop, now)
	}
	h.updateStatus()
}

// announce speaks a prompt's announcement, if prompts are spoken (the
// mirror's sink).
func (h *host) announce(reqID, text string, now time.Time) {
	if h.cfg.speakPrompts {
		h.Announce(reqID, text, now)
	}
}

// decide hands a decision on the CoreS3 to the approvals actor.
func (h *host) decide(d decideOut) { h.effects = append(h.effects, d) }

// sendControl appends a CONTROL frame with the next control sequence.
func (h *host) sendControl(f wire.Frame) {
	f.Sequence = h.ctrlSeq
	h.ctrlSeq++
	h.appendFrame(f)
}

func (h *host) appendFrame(f wire.Frame) {
	var err error
	if h.tx, err = wire.AppendFrame(h.tx, f); err != nil {
		// Only our own bug can get here; never send a broken frame.
		h.cfg.Log.Error("BUG: refusing to send a frame", "type", f.Type.String(), "err", err)
	}
}

// sendEvent encodes e and appends its EVENT frames, if EVENT is ready.
func (h *host) sendEvent(e appevent.Event) {
	if !h.eventReady() {
		return
	}
	b, err := appevent.Marshal(e)
	if err != nil {
		h.cfg.Log.Error("BUG: cannot encode application event", "type", string(e.Type()), "err", err)
		return
	}
	h.sendMessage(string(e.Type()), b)
}

// sendMessage appends the EVENT frames of one encoded message.
func (h *host) sendMessage(typ string, b []byte) {
	var err error
	h.lastEvent = h.ids.Next()
	h.frames, err = event.AppendChunks(h.frames[:0], h.lastEvent, b, int(h.neg.MaxPayload))
	if err != nil {
		h.cfg.Log.Error("BUG: cannot chunk event message", "type", typ, "err", err)
		return
	}
	for _, f := range h.frames {
		h.appendFrame(f)
	}
}

// sendSettings sends dock.volume as the claude_pi.settings raw event, if
// it is set and EVENT is ready. Firmware that does not know the type drops
// it (spec §18), so no capability bit is needed.
func (h *host) sendSettings() {
	if h.cfg.volume == nil || !h.eventReady() {
		return
	}
	h.settingsSent++
	b, err := appevent.MarshalSettings(appevent.Settings{
		EventID: "settings-" + h.cfg.Token + "-" + strconv.Itoa(h.settingsSent), Volume: *h.cfg.volume})
	if err != nil {
		h.cfg.Log.Error("BUG: cannot encode the dock settings", "err", err)
		return
	}
	h.sendMessage(appevent.TypeSettings, b)
}

// setVolume changes dock.volume and sends it at once when it changed.
func (h *host) setVolume(v *int) {
	if (v == nil) == (h.cfg.volume == nil) && (v == nil || *v == *h.cfg.volume) {
		return
	}
	if v != nil {
		v = new(*v) // the caller's variable is not ours to keep
	}
	h.cfg.volume = v
	h.sendSettings()
}

// updateStatus sends STATUS when the wanted value changes (spec §8).
func (h *host) updateStatus() {
	if h.phase != ready {
		return
	}
	h.SyncFollowUp()
	h.sendStatus()
}

// sendStatus sends the STATUS the speech and voice state call for, if it
// changed. It leaves the follow-up alone: abortSpeech calls it in the
// middle of a swipe's hand-over from the reply to the cue, when the
// microphone is not listening yet and syncFollowUp would end the
// follow-up the swipe just started.
func (h *host) sendStatus() {
	if h.phase != ready {
		return
	}
	s, ok := h.neg.StatusToSend(h.Status())
	if !ok || (h.statusSent && s == h.status) {
		return
	}
	h.sendControl(wire.StatusFrame(0, s))
	h.statusSent, h.status = true, s
}

// activity is the short word for the description.
func (h *host) activity() string {
	switch h.phase {
	case detached:
		return "disconnected"
	case handshake:
		return "handshaking"
	}
	if !h.neg.Event {
		return audioOnlyNote
	}
	what := "EVENT ready"
	if n := h.mirror.count(); n > 0 {
		what += fmt.Sprintf(", %d approval(s)", n)
	}
	return what + ", " + h.Activity()
}

func (h *host) takeTx() []byte {
	b := h.tx
	h.tx = nil
	return b
}

func (h *host) takeEffects() []any {
	e := h.effects
	h.effects = nil
	return e
}
