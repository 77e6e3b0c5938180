package dock

import (
	"github.com/claude-pi/claude-pi/actors/dock/voice"
	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// The host is its voice part's voice.Sink: the one way from speech, voice,
// STT, follow-ups and the conversation to the port, the wire, EVENT and
// the approvals mirror.
var _ voice.Sink = (*host)(nil)

func (h *host) EventReady() bool            { return h.eventReady() }
func (h *host) SendEvent(e appevent.Event)  { h.sendEvent(e) }
func (h *host) SendControl(f wire.Frame)    { h.sendControl(f) }
func (h *host) AppendFrame(f wire.Frame)    { h.appendFrame(f) }
func (h *host) SendStatus()                 { h.sendStatus() }
func (h *host) Effect(e any)                { h.effects = append(h.effects, e) }
func (h *host) Ready() bool                 { return h.phase == ready }
func (h *host) Negotiated() wire.Negotiated { return h.neg }
func (h *host) MediaStarted()               { h.mediaSince = true }
func (h *host) PromptByReq(reqID string) *voice.Prompt {
	return voicePrompt(h.mirror.byReq[reqID])
}

func (h *host) OldestPrompt() *voice.Prompt {
	if len(h.mirror.list) == 0 {
		return nil
	}
	return voicePrompt(h.mirror.list[0])
}

func (h *host) MarkDecided(reqID string) {
	if m := h.mirror.byReq[reqID]; m != nil {
		m.decided = true
	}
}

// voicePrompt is a copy of a mirrored prompt as the voice part sees it.
func voicePrompt(m *mirrored) *voice.Prompt {
	if m == nil {
		return nil
	}
	return &voice.Prompt{Prompt: m.prompt, ReqID: m.reqID, Suspended: m.suspended, Decided: m.decided}
}

// unannounce is the mirror's sink: a prompt that went away is not said.
func (h *host) unannounce(reqID string) { h.Unannounce(reqID) }

// shorten is the voice part's, for the mirror's announcements and STT's
// errors.
func shorten(s string, n int) string { return voice.Shorten(s, n) }
