// Package voice is the dock's voice: the speech queue, the microphone and
// STT, spoken answers, follow-ups and conversation.start/stop. It is pure,
// like the dock's host: frames and messages in, frames and effects out
// through a Sink, time as an argument. The dock's host embeds a Part and is
// its Sink; the port, HELLO, the wire, EVENT, the approvals mirror and
// trust stay the host's. This package imports nothing of the dock
// (internal/layout_test.go holds that), so voice logic cannot reach past
// Sink into the host.
package voice

import (
	"log/slog"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// Config is what the voice part needs of the dock's options. The host
// embeds it in its own config and hands the part a pointer to it, so the
// two never disagree.
type Config struct {
	HasTTS            bool          // speech can be synthesized
	SpeakConversation bool          // answer conversation.start aloud
	Voice             bool          // an STT command is configured
	ListenFor         time.Duration // longest answer recorded
	Token             string        // per-incarnation part of our requestIds
	Log               *slog.Logger
}

// Part is the voice part. New makes one; its zero value is not usable.
type Part struct {
	out Sink
	cfg *Config

	speech speech
	voice  voice
	fu     followUp
	conv   convCache
	desk   Desk
}

// New returns a voice part that reaches the host through out and reads
// cfg, which stays the caller's.
func New(out Sink, cfg *Config) Part {
	p := Part{out: out, cfg: cfg}
	p.conv.init()
	return p
}

// Sink is what the voice part needs of the host.
type Sink interface {
	// EventReady: EVENT frames may flow both ways; SendEvent sends one
	// application event, dropping it when EVENT is not ready.
	EventReady() bool
	SendEvent(appevent.Event)
	// SendControl appends a CONTROL frame with the next control sequence;
	// AppendFrame appends a media frame as it is.
	SendControl(wire.Frame)
	AppendFrame(wire.Frame)
	// SendStatus sends STATUS now (the speech's or voice's state changed).
	SendStatus()
	// Effect hands the actor an effect (SynthOut, STTOut, Decide, ...).
	Effect(any)
	// Ready: the handshake is done.
	Ready() bool
	// Negotiated is what HELLO_ACK agreed (capabilities, payload size).
	Negotiated() wire.Negotiated
	// MediaStarted records that a media session began since the handshake.
	MediaStarted()
	// OldestPrompt is the prompt mirrored longest (nil when none);
	// PromptByReq the one mirrored under an approval request id.
	OldestPrompt() *Prompt
	PromptByReq(reqID string) *Prompt
	// MarkDecided records that a Decide was sent for the prompt
	// mirrored under reqID, so it is not decided twice.
	MarkDecided(reqID string)
}

// Prompt is a prompt as the CoreS3 mirrors it: what the voice part asks
// about and decides.
type Prompt struct {
	Prompt    approvals.Prompt
	ReqID     string // the approval request id on the CoreS3
	Suspended bool   // its source's link is down
	Decided   bool   // a Decide was sent for it (MarkDecided)
}

// Effects the actor performs (beside writing the frames).
type (
	// Decide asks the actor to send approvals.Decide{By: By or "CoreS3"}.
	Decide struct {
		Source, ID string
		Approve    bool
		By         string // "" means "CoreS3"
		// Answer answers a question prompt (the mirror's CoreS3 cards;
		// a spoken answer never sets it).
		Answer *approvals.Answer
	}
	// SynthOut asks for one sentence of utterance Utt at Rate.
	SynthOut struct {
		Utt   uint64
		Index int
		Text  string
		Rate  int
	}
	// CancelSynthOut cancels the synthesis of utterance Utt.
	CancelSynthOut struct{ Utt uint64 }
)

// SayAssistant queues assistant text (a turn, a terminal's reply or its
// waiting note) to be spoken.
func (h *Part) SayAssistant(text string, now time.Time) {
	h.say(utterance{kind: sayAssistant, text: text}, now)
}

// Announce queues a prompt's announcement; Unannounce drops it again.
func (h *Part) Announce(reqID, text string, now time.Time) {
	h.say(utterance{kind: sayPrompt, text: text, prompt: reqID}, now)
}

// SetDesk records what the buddy actor says of the desktop, for the
// spoken summary.
func (h *Part) SetDesk(d Desk) { h.desk = d }

// Desk is what SetDesk recorded last.
func (h *Part) Desk() Desk { return h.desk }

// NextUtt is the id of the last utterance queued (0 before the first).
// QueuedSince, given NextUtt from before a say, is the utterance that say
// queued, or 0 when it queued none (nothing to say, muted, no TTS).
func (h *Part) NextUtt() uint64                  { return h.speech.nextUtt }
func (h *Part) QueuedSince(before uint64) uint64 { return h.speech.queuedSince(before) }

// FollowUpPresented takes approval.presented: true when it is the
// follow-up card's, so the mirror need not look at it.
func (h *Part) FollowUpPresented(reqID string, now time.Time) bool {
	return h.fu.presented(reqID, now)
}

// LastSpeakerStream is the stream id of the last speaker session started
// (0 before the first): late errors on it are stale, not a reset.
func (h *Part) LastSpeakerStream() uint16 { return h.speech.nextStream }

// Wake returns when the voice part's timers are next due, or false.
func (h *Part) Wake() (time.Time, bool) {
	var at time.Time
	for _, w := range [...]func() (time.Time, bool){h.speech.wake, h.voice.wake, h.fu.wake} {
		if t, ok := w(); ok && (at.IsZero() || t.Before(at)) {
			at = t
		}
	}
	return at, !at.IsZero()
}

// Status is the STATUS icon speech and voice call for: voice's while it
// owns the screen and nothing is being said, else speech's.
func (h *Part) Status() wire.Status {
	if s, ok := h.voice.status(); ok && h.speech.cur == nil {
		return s
	}
	return h.speech.status()
}

// Activity is the voice part's word for the dock's description.
func (h *Part) Activity() string {
	if v := h.voice.activity(); v != "" {
		return v
	}
	return h.speech.activity()
}

// Speaking reports whether an utterance is being said.
func (h *Part) Speaking() bool { return h.speech.cur != nil }

// MaxCreditWait is the longest the speaker waited for SPEAKER_CREDIT.
func (h *Part) MaxCreditWait() time.Duration { return h.speech.maxCreditWait }
