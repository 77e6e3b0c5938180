package voice

import (
	"time"

	"github.com/claude-pi/claude-pi/drivers/tts"
	"github.com/claude-pi/claude-pi/protocols/stackchan/session"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// Speech limits.
const (
	// localQueue is how far synthesis runs ahead of credit (spec §12.6.7).
	localQueue = 5 * time.Second
	// maxQueued utterances wait behind the one playing; the least
	// important are dropped first.
	maxQueued = 8
	// StaleSpeech: an utterance not started within this is dropped, since
	// news read out late is noise.
	StaleSpeech = 30 * time.Second
)

// sayKind is why something is spoken; a higher kind preempts a lower one.
type sayKind uint8

const (
	sayAssistant    sayKind = iota + 1 // assistant text from a turn event
	sayPrompt                          // a prompt announcement
	sayConversation                    // the answer to conversation.start
)

// utterance is one spoken response: one SPEAKER_START ... SPEAKER_END.
type utterance struct {
	kind   sayKind
	text   string
	prompt string // requestId of the announced prompt, for sayPrompt

	id        uint64
	at        time.Time
	sentences []string
	next      int  // next sentence to synthesize
	inflight  bool // a synthesis is running
	rate      int
	sender    *session.SpeakerSender
}

// speech is the queue of utterances and the one speaker session. Its
// steps are host methods (say, pumpSpeech, synthDone, speakerCredit, ...):
// the speaker writes frames with the host's control sequence, needs the
// negotiated caps, hands the media to the microphone when an utterance
// ends and yields it while the microphone is open, so a sink would name
// most of the host. What reads only the queue (has, speaking, newStream,
// wake, status, activity) stays here.
type speech struct {
	queue      []*utterance
	cur        *utterance
	nextUtt    uint64
	nextStream uint16
	synthErr   error // the last synthesis failed (STATUS ERROR until one works)

	// Measurements for the report: the longest wait for credit with PCM
	// ready to send.
	waitStart     time.Time
	maxCreditWait time.Duration
}

// say queues u, preempting a less important utterance that is playing.
func (h *Part) say(u utterance, now time.Time) {
	s := &h.speech
	if !h.cfg.HasTTS {
		return
	}
	u.sentences = tts.Split(u.text)
	if len(u.sentences) == 0 {
		return
	}
	s.nextUtt++
	u.id, u.at = s.nextUtt, now
	i := len(s.queue)
	for i > 0 && s.queue[i-1].kind < u.kind {
		i--
	}
	s.queue = append(s.queue[:i], append([]*utterance{&u}, s.queue[i:]...)...)
	if len(s.queue) > maxQueued {
		h.cfg.Log.Info("speech queue full; dropping", "text", Shorten(s.queue[maxQueued].text, 40))
		s.queue = s.queue[:maxQueued]
	}
	if s.cur != nil && s.cur.kind < u.kind {
		h.cfg.Log.Info("speech superseded", "text", Shorten(s.cur.text, 40))
		h.AbortSpeech()
	}
	h.PumpSpeech(now)
}

// PumpSpeech starts the next utterance and keeps synthesis and frames moving.
func (h *Part) PumpSpeech(now time.Time) {
	s := &h.speech
	// The microphone holds the media while it is open (half duplex).
	for s.cur == nil && h.out.Ready() && !h.voice.holdsMedia() && len(s.queue) > 0 {
		u := s.queue[0]
		s.queue = s.queue[1:]
		if now.Sub(u.at) > StaleSpeech {
			h.voiceSpoken(u.id, false, now)
			continue
		}
		u.rate = speakerRate(h.out.Negotiated().Peer)
		s.cur = u
	}
	if s.cur == nil {
		return
	}
	h.requestSynth()
	h.flushSpeech(now)
}

// speakerRate picks 24 kHz when the firmware allows it (spec §12.6).
func speakerRate(c wire.Caps) int {
	switch {
	case c.Has(wire.CapSpeaker24k):
		return 24000
	case c.Has(wire.CapSpeaker16k):
		return 16000
	}
	return 8000
}

// requestSynth asks for the next sentence while less than localQueue is
// buffered.
func (h *Part) requestSynth() {
	s := &h.speech
	u := s.cur
	if u == nil || u.inflight || u.next >= len(u.sentences) {
		return
	}
	if u.sender != nil && u.sender.Buffered() >= localQueue {
		return
	}
	u.inflight = true
	h.out.Effect(SynthOut{Utt: u.id, Index: u.next, Text: u.sentences[u.next], Rate: u.rate})
	u.next++
}

// SynthDone takes the PCM of sentence index of utterance utt.
func (h *Part) SynthDone(utt uint64, index int, pcm []byte, err error, now time.Time) {
	s := &h.speech
	u := s.cur
	if u == nil || u.id != utt {
		return // superseded or lost meanwhile
	}
	u.inflight = false
	if err != nil {
		h.cfg.Log.Warn("speech synthesis failed", "err", err, "sentence", Shorten(u.sentences[index], 40))
		s.synthErr = err
		h.AbortSpeech()
		h.PumpSpeech(now)
		return
	}
	s.synthErr = nil
	if len(pcm) > 0 {
		if u.sender == nil {
			snd, err := session.NewSpeakerSender(session.SpeakerConfig{
				StreamID: s.newStream(), SampleRate: uint32(u.rate),
				MaxPayload: int(h.out.Negotiated().MaxPayload), Captions: h.out.Negotiated().Peer.Has(wire.CapSpeakerText),
			})
			if err != nil {
				h.cfg.Log.Error("BUG: speaker session refused", "err", err)
				s.cur = nil
				return
			}
			u.sender = snd
			h.out.MediaStarted()
		}
		u.sender.QueueCaption(u.sentences[index])
		if err := u.sender.QueuePCM(pcm); err != nil {
			h.cfg.Log.Warn("synthesized audio refused", "err", err)
		}
	}
	if u.next >= len(u.sentences) {
		if u.sender == nil {
			h.out.Effect(CancelSynthOut{Utt: u.id})
			s.cur = nil // nothing to say after all
			h.voiceSpoken(u.id, false, now)
			h.PumpSpeech(now)
			return
		}
		u.sender.Finish()
	}
	h.PumpSpeech(now)
}

// flushSpeech sends what the speaker session may send now and ends it when
// over.
func (h *Part) flushSpeech(now time.Time) {
	s := &h.speech
	u := s.cur
	if u == nil || u.sender == nil {
		return
	}
	for a, ok := u.sender.Next(now); ok; a, ok = u.sender.Next(now) {
		if a.Type == wire.TypeControl {
			h.out.SendControl(a.Frame())
		} else {
			h.out.AppendFrame(a.Frame())
		}
	}
	switch u.sender.State() {
	case session.SenderStreaming:
		if u.sender.Buffered() > 0 && s.waitStart.IsZero() {
			s.waitStart = now
		}
		h.requestSynth()
		return
	case session.SenderStarting, session.SenderAwaitCredit, session.SenderEnding:
		return
	case session.SenderDone:
		h.cfg.Log.Debug("spoke", "text", Shorten(u.text, 60))
		h.out.Effect(CancelSynthOut{Utt: u.id})
	case session.SenderFailed:
		h.cfg.Log.Warn("speech failed", "err", u.sender.Err(), "stream", u.sender.Session().StreamID)
		h.out.Effect(CancelSynthOut{Utt: u.id})
	case session.SenderAborted:
		h.out.Effect(CancelSynthOut{Utt: u.id})
	}
	s.cur, s.waitStart = nil, time.Time{}
	// Before pumpSpeech: a voice approval takes the media for the microphone.
	h.voiceSpoken(u.id, u.sender.State() == session.SenderDone, now)
	h.PumpSpeech(now)
}

func (h *Part) SpeakerCredit(stream uint16, inc uint32, now time.Time) {
	s := &h.speech
	u := s.cur
	if u == nil || u.sender == nil {
		return
	}
	switch u.sender.OnCredit(stream, inc, now) {
	case session.CreditApplied:
		if !s.waitStart.IsZero() {
			s.maxCreditWait = max(s.maxCreditWait, now.Sub(s.waitStart))
			s.waitStart = time.Time{}
		}
	case session.CreditClamped:
		h.cfg.Log.Warn("SPEAKER_CREDIT above the 8 KiB window; clamped", "stream", stream, "increment", inc)
	case session.CreditZero:
		h.cfg.Log.Warn("SPEAKER_CREDIT of 0 bytes", "stream", stream)
	}
	h.flushSpeech(now)
}

func (h *Part) SpeakerDone(stream uint16, now time.Time) {
	s := &h.speech
	if u := s.cur; u != nil && u.sender != nil && u.sender.OnDone(stream) {
		h.flushSpeech(now)
	}
}

// SpeakerError fails the speaker session an ERROR names; other streams
// are not ours.
func (h *Part) SpeakerError(stream uint16, code wire.ErrorCode, now time.Time) bool {
	s := &h.speech
	u := s.cur
	if u == nil || u.sender == nil || !u.sender.OnError(stream, code) {
		return false
	}
	h.cfg.Log.Error("CoreS3 ERROR on the speaker stream; speech dropped", "stream", stream, "code", code.String())
	h.flushSpeech(now)
	return true
}

// SpeechLost: the firmware dropped its sessions (new HELLO_ACK, unplug). The
// interrupted utterance is dropped; what is queued waits for the next
// handshake.
func (h *Part) SpeechLost(now time.Time) {
	s := &h.speech
	u := s.cur
	if u == nil {
		return
	}
	if u.sender != nil {
		u.sender.Reset()
	}
	h.cfg.Log.Info("speech interrupted: the CoreS3 lost its sessions", "text", Shorten(u.text, 40))
	h.out.Effect(CancelSynthOut{Utt: u.id})
	s.cur, s.waitStart = nil, time.Time{}
}

// AbortSpeech stops the current utterance (barge-in), without waiting for DONE.
func (h *Part) AbortSpeech() {
	s := &h.speech
	u := s.cur
	if u == nil {
		return
	}
	if u.sender != nil {
		if a, ok := u.sender.Abort(); ok {
			h.out.SendControl(a.Frame())
		}
	}
	h.out.Effect(CancelSynthOut{Utt: u.id})
	s.cur, s.waitStart = nil, time.Time{}
	h.voiceSpoken(u.id, false, time.Time{})
	// The CoreS3 answers SPEAKER_ABORT with no DONE, and the callers that
	// cut speech short (a prompt answered, a conversation stopped) do not
	// all reach updateStatus, so the badge is put right here; an
	// utterance that starts next sends its own STATUS.
	h.out.SendStatus()
}

// newStream allocates a media stream id, shared by speaker and microphone
// sessions and never 0 (spec §10).
func (s *speech) newStream() uint16 {
	s.nextStream++
	if s.nextStream == 0 {
		s.nextStream = 1
	}
	return s.nextStream
}

// has reports whether utterance id is playing or queued.
func (s *speech) has(id uint64) bool {
	if s.cur != nil && s.cur.id == id {
		return true
	}
	for _, u := range s.queue {
		if u.id == id {
			return true
		}
	}
	return false
}

// speaking reports whether an utterance of kind is playing or queued.
func (s *speech) speaking(kind sayKind) bool {
	if s.cur != nil && s.cur.kind == kind {
		return true
	}
	for _, u := range s.queue {
		if u.kind == kind {
			return true
		}
	}
	return false
}

// Unannounce drops the announcement of a prompt that went away (the
// mirror's sink).
func (h *Part) Unannounce(reqID string) {
	s := &h.speech
	s.drop(func(u *utterance) bool { return u.kind == sayPrompt && u.prompt == reqID })
	if s.cur != nil && s.cur.kind == sayPrompt && s.cur.prompt == reqID {
		h.AbortSpeech()
	}
}

// silenceConversation ends a conversation answer, playing or queued.
func (h *Part) silenceConversation() {
	s := &h.speech
	s.drop(func(u *utterance) bool { return u.kind == sayConversation })
	if s.cur != nil && s.cur.kind == sayConversation {
		h.AbortSpeech()
	}
}

func (s *speech) drop(match func(*utterance) bool) {
	kept := s.queue[:0]
	for _, u := range s.queue {
		if !match(u) {
			kept = append(kept, u)
		}
	}
	s.queue = kept
}

func (s *speech) wake() (time.Time, bool) {
	if s.cur == nil || s.cur.sender == nil {
		return time.Time{}, false
	}
	return s.cur.sender.Wake()
}

// status maps speech onto the STATUS icon (spec §8).
func (s *speech) status() wire.Status {
	switch {
	case s.synthErr != nil:
		return wire.StatusError
	case s.cur == nil:
		return wire.StatusIdle
	case s.cur.sender == nil:
		return wire.StatusRecognizing // preparing what to say
	}
	return wire.StatusSpeaking
}

func (s *speech) activity() string {
	switch {
	case s.synthErr != nil:
		return "speech failing: " + s.synthErr.Error()
	case s.cur == nil:
		return "idle"
	case s.cur.sender == nil:
		return "preparing speech"
	}
	return "speaking"
}
