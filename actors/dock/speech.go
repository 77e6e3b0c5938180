package dock

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
	// staleSpeech: an utterance not started within this is dropped, since
	// news read out late is noise.
	staleSpeech = 30 * time.Second
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
func (h *voicePart) say(u utterance, now time.Time) {
	s := &h.speech
	if !h.cfg.hasTTS {
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
		h.cfg.log.Info("speech queue full; dropping", "text", shorten(s.queue[maxQueued].text, 40))
		s.queue = s.queue[:maxQueued]
	}
	if s.cur != nil && s.cur.kind < u.kind {
		h.cfg.log.Info("speech superseded", "text", shorten(s.cur.text, 40))
		h.abortSpeech()
	}
	h.pumpSpeech(now)
}

// pumpSpeech starts the next utterance and keeps synthesis and frames moving.
func (h *voicePart) pumpSpeech(now time.Time) {
	s := &h.speech
	// The microphone holds the media while it is open (half duplex).
	for s.cur == nil && h.out.ready() && !h.voice.holdsMedia() && len(s.queue) > 0 {
		u := s.queue[0]
		s.queue = s.queue[1:]
		if now.Sub(u.at) > staleSpeech {
			h.voiceSpoken(u.id, false, now)
			continue
		}
		u.rate = speakerRate(h.out.negotiated().Peer)
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
func (h *voicePart) requestSynth() {
	s := &h.speech
	u := s.cur
	if u == nil || u.inflight || u.next >= len(u.sentences) {
		return
	}
	if u.sender != nil && u.sender.Buffered() >= localQueue {
		return
	}
	u.inflight = true
	h.out.effect(synthOut{Utt: u.id, Index: u.next, Text: u.sentences[u.next], Rate: u.rate})
	u.next++
}

// synthDone takes the PCM of sentence index of utterance utt.
func (h *voicePart) synthDone(utt uint64, index int, pcm []byte, err error, now time.Time) {
	s := &h.speech
	u := s.cur
	if u == nil || u.id != utt {
		return // superseded or lost meanwhile
	}
	u.inflight = false
	if err != nil {
		h.cfg.log.Warn("speech synthesis failed", "err", err, "sentence", shorten(u.sentences[index], 40))
		s.synthErr = err
		h.abortSpeech()
		h.pumpSpeech(now)
		return
	}
	s.synthErr = nil
	if len(pcm) > 0 {
		if u.sender == nil {
			snd, err := session.NewSpeakerSender(session.SpeakerConfig{
				StreamID: s.newStream(), SampleRate: uint32(u.rate),
				MaxPayload: int(h.out.negotiated().MaxPayload), Captions: h.out.negotiated().Peer.Has(wire.CapSpeakerText),
			})
			if err != nil {
				h.cfg.log.Error("BUG: speaker session refused", "err", err)
				s.cur = nil
				return
			}
			u.sender = snd
			h.out.mediaStarted()
		}
		u.sender.QueueCaption(u.sentences[index])
		if err := u.sender.QueuePCM(pcm); err != nil {
			h.cfg.log.Warn("synthesized audio refused", "err", err)
		}
	}
	if u.next >= len(u.sentences) {
		if u.sender == nil {
			h.out.effect(cancelSynthOut{Utt: u.id})
			s.cur = nil // nothing to say after all
			h.voiceSpoken(u.id, false, now)
			h.pumpSpeech(now)
			return
		}
		u.sender.Finish()
	}
	h.pumpSpeech(now)
}

// flushSpeech sends what the speaker session may send now and ends it when
// over.
func (h *voicePart) flushSpeech(now time.Time) {
	s := &h.speech
	u := s.cur
	if u == nil || u.sender == nil {
		return
	}
	for a, ok := u.sender.Next(now); ok; a, ok = u.sender.Next(now) {
		if a.Type == wire.TypeControl {
			h.out.sendControl(a.Frame())
		} else {
			h.out.appendFrame(a.Frame())
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
		h.cfg.log.Debug("spoke", "text", shorten(u.text, 60))
		h.out.effect(cancelSynthOut{Utt: u.id})
	case session.SenderFailed:
		h.cfg.log.Warn("speech failed", "err", u.sender.Err(), "stream", u.sender.Session().StreamID)
		h.out.effect(cancelSynthOut{Utt: u.id})
	case session.SenderAborted:
		h.out.effect(cancelSynthOut{Utt: u.id})
	}
	s.cur, s.waitStart = nil, time.Time{}
	// Before pumpSpeech: a voice approval takes the media for the microphone.
	h.voiceSpoken(u.id, u.sender.State() == session.SenderDone, now)
	h.pumpSpeech(now)
}

func (h *voicePart) speakerCredit(stream uint16, inc uint32, now time.Time) {
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
		h.cfg.log.Warn("SPEAKER_CREDIT above the 8 KiB window; clamped", "stream", stream, "increment", inc)
	case session.CreditZero:
		h.cfg.log.Warn("SPEAKER_CREDIT of 0 bytes", "stream", stream)
	}
	h.flushSpeech(now)
}

func (h *voicePart) speakerDone(stream uint16, now time.Time) {
	s := &h.speech
	if u := s.cur; u != nil && u.sender != nil && u.sender.OnDone(stream) {
		h.flushSpeech(now)
	}
}

// speakerError fails the speaker session an ERROR names; other streams
// are not ours.
func (h *voicePart) speakerError(stream uint16, code wire.ErrorCode, now time.Time) bool {
	s := &h.speech
	u := s.cur
	if u == nil || u.sender == nil || !u.sender.OnError(stream, code) {
		return false
	}
	h.cfg.log.Error("CoreS3 ERROR on the speaker stream; speech dropped", "stream", stream, "code", code.String())
	h.flushSpeech(now)
	return true
}

// speechLost: the firmware dropped its sessions (new HELLO_ACK, unplug). The
// interrupted utterance is dropped; what is queued waits for the next
// handshake.
func (h *voicePart) speechLost(now time.Time) {
	s := &h.speech
	u := s.cur
	if u == nil {
		return
	}
	if u.sender != nil {
		u.sender.Reset()
	}
	h.cfg.log.Info("speech interrupted: the CoreS3 lost its sessions", "text", shorten(u.text, 40))
	h.out.effect(cancelSynthOut{Utt: u.id})
	s.cur, s.waitStart = nil, time.Time{}
}

// abortSpeech stops the current utterance (barge-in), without waiting for DONE.
func (h *voicePart) abortSpeech() {
	s := &h.speech
	u := s.cur
	if u == nil {
		return
	}
	if u.sender != nil {
		if a, ok := u.sender.Abort(); ok {
			h.out.sendControl(a.Frame())
		}
	}
	h.out.effect(cancelSynthOut{Utt: u.id})
	s.cur, s.waitStart = nil, time.Time{}
	h.voiceSpoken(u.id, false, time.Time{})
	// The CoreS3 answers SPEAKER_ABORT with no DONE, and the callers that
	// cut speech short (a prompt answered, a conversation stopped) do not
	// all reach updateStatus, so the badge is put right here; an
	// utterance that starts next sends its own STATUS.
	h.out.sendStatus()
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

// unannounce drops the announcement of a prompt that went away (the
// mirror's sink).
func (h *voicePart) unannounce(reqID string) {
	s := &h.speech
	s.drop(func(u *utterance) bool { return u.kind == sayPrompt && u.prompt == reqID })
	if s.cur != nil && s.cur.kind == sayPrompt && s.cur.prompt == reqID {
		h.abortSpeech()
	}
}

// silenceConversation ends a conversation answer, playing or queued.
func (h *voicePart) silenceConversation() {
	s := &h.speech
	s.drop(func(u *utterance) bool { return u.kind == sayConversation })
	if s.cur != nil && s.cur.kind == sayConversation {
		h.abortSpeech()
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
