package dock

import "github.com/claude-pi/claude-pi/protocols/stackchan/wire"

// voicePart is the dock's voice: the speech queue, the microphone and
// STT, spoken answers, follow-ups and conversation.start/stop (speech.go,
// voice.go, followup.go, conversation.go). It is pure like the host, and
// reaches the rest of the dock only through voiceSink, the way the mirror
// has mirrorSink: the port, HELLO, the wire, EVENT, the approvals mirror
// and trust stay the host's. The host embeds it, so the host's callers
// (the actor, the tests) keep calling h.say, h.micPCM and so on.
type voicePart struct {
	out voiceSink
	cfg *hostConfig // the host's

	speech speech
	voice  voice
	fu     followUp
	conv   convCache
	desk   desk
}

// voiceSink is what the voice part needs of the host.
type voiceSink interface {
	eventSink
	// sendControl appends a CONTROL frame with the next control sequence;
	// appendFrame appends a media frame as it is.
	sendControl(wire.Frame)
	appendFrame(wire.Frame)
	// sendStatus sends STATUS now (the speech's or voice's state changed).
	sendStatus()
	// effect hands the actor an effect (synthOut, sttOut, decideOut, ...).
	effect(any)
	// ready: the handshake is done (eventSink's eventReady: and EVENT
	// flows both ways).
	ready() bool
	// negotiated is what HELLO_ACK agreed (capabilities, payload size).
	negotiated() wire.Negotiated
	// mediaStarted records that a media session began since the handshake.
	mediaStarted()
	// oldestPrompt is the prompt mirrored longest (nil when none);
	// promptByReq the one mirrored under an approval request id.
	oldestPrompt() *mirrored
	promptByReq(reqID string) *mirrored
}

var _ voiceSink = (*host)(nil)

// The host's side of voiceSink (sendControl, appendFrame, sendStatus,
// sendEvent and eventReady are the host's own, in host.go).

func (h *host) effect(e any)                { h.effects = append(h.effects, e) }
func (h *host) ready() bool                 { return h.phase == ready }
func (h *host) negotiated() wire.Negotiated { return h.neg }
func (h *host) mediaStarted()               { h.mediaSince = true }
func (h *host) promptByReq(reqID string) *mirrored {
	return h.mirror.byReq[reqID]
}
func (h *host) oldestPrompt() *mirrored {
	if len(h.mirror.list) == 0 {
		return nil
	}
	return h.mirror.list[0]
}
