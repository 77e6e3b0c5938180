package dock

import (
	"errors"
	"regexp"
	"strings"
	"time"

	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
	"github.com/claude-pi/claude-pi/protocols/stackchan/session"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// notCaught is spoken when the answer was neither a clear yes nor a clear no.
const notCaught = "I didn't catch that."

// notReachable is spoken when an answer came while the desktop's link was
// down: it was not sent.
const notReachable = "The desktop is reconnecting. Answer again in a moment."

// voicePhase is where a voice approval is.
type voicePhase uint8

const (
	voiceIdle        voicePhase = iota
	voiceAwaitSpeech            // the conversation summary is being spoken
	voiceMic                    // the microphone session runs (start, listen, stop)
	voiceRecognizing            // the STT command runs
)

// voice is the voice approval after conversation.start (spec §11, §15):
// once the summary has been spoken, listen for up to listenFor, run the STT
// command on what was heard and decide the prompt the summary asked about.
// Its steps are host methods (beginVoice, micPCM, recognized, ...): the
// microphone shares the media, the stream ids and STATUS with the speaker,
// and an answer decides a mirrored prompt or goes to the follow-up, so a
// sink would name most of the host. What reads only the voice's own state
// (holdsMedia, wake, status, activity) stays here.
type voice struct {
	phase       voicePhase
	utt         uint64 // the summary utterance that must finish first
	prompt      string // requestId of the prompt being asked about
	mic         *session.MicReceiver
	listenUntil time.Time
	cancelled   bool // stopped on purpose: nothing is recognized
	pcm         []byte
	job         uint64 // the running STT job
}

// Effects of voice approval, performed by the actor.
type (
	// sttOut runs the STT command on PCM (16 kHz mono s16le).
	sttOut struct {
		Job uint64
		PCM []byte
	}
	// cancelSTTOut stops STT job Job.
	cancelSTTOut struct{ Job uint64 }
)

// voiceAvailable reports whether conversation.start may end by listening.
func (h *voicePart) voiceAvailable() bool {
	return h.cfg.voice && h.out.negotiated().Peer.Has(wire.CapMicPCM) && h.out.oldestPrompt() != nil
}

// beginVoice waits for utterance utt (the summary) to end, then listens for an
// answer about the prompt reqID. Any voice approval under way is cancelled.
func (h *voicePart) beginVoice(utt uint64, reqID string, now time.Time) {
	v := &h.voice
	h.cancelVoice(now)
	v.phase, v.utt, v.prompt = voiceAwaitSpeech, utt, reqID
}

// voiceSpoken is called when an utterance ends (or is dropped unsaid); ok is
// true when it played to its SPEAKER_DONE. The microphone opens only after the summary was heard.
func (h *voicePart) voiceSpoken(utt uint64, ok bool, now time.Time) {
	h.followUpSaid(utt, ok, now)
	v := &h.voice
	if v.phase != voiceAwaitSpeech || utt != v.utt {
		return
	}
	if !ok {
		h.cfg.log.Info("voice approval dropped: the summary was not spoken to its end")
		v.phase = voiceIdle
		return
	}
	if v.prompt != followUpPrompt && h.out.promptByReq(v.prompt) == nil {
		h.cfg.log.Info("voice approval dropped: the prompt was answered meanwhile")
		v.phase = voiceIdle
		return
	}
	mic, err := session.NewMicReceiver(h.speech.newStream())
	if err != nil {
		h.cfg.log.Error("BUG: microphone session refused", "err", err)
		v.phase = voiceIdle
		return
	}
	v.phase, v.mic, v.cancelled, v.pcm = voiceMic, mic, false, v.pcm[:0]
	v.listenUntil = time.Time{}
	h.out.mediaStarted()
	h.flushVoice(now)
}

// holdsMedia: no speaker session may start while the microphone is open
// (half duplex, spec §10).
func (v *voice) holdsMedia() bool { return v.mic != nil }

// voiceMaxPCM is the most audio kept: listenFor at 16 kHz, 16-bit.
func (h *voicePart) voiceMaxPCM() int {
	n := int(h.cfg.listenFor / (20 * time.Millisecond))
	return max(n, 1) * session.MicFrameBytes
}

// flushVoice sends what the microphone session wants sent and moves on when it
// is over.
func (h *voicePart) flushVoice(now time.Time) {
	v := &h.voice
	if v.mic == nil {
		return
	}
	for a, ok := v.mic.Next(now); ok; a, ok = v.mic.Next(now) {
		h.out.sendControl(a.Frame())
	}
	if v.mic.State() != session.MicStopped {
		return
	}
	err := v.mic.Err()
	v.mic = nil
	switch {
	case v.cancelled:
		if v.phase == voiceMic { // not already waiting for a new summary
			v.phase = voiceIdle
		}
	case err != nil && !errors.Is(err, session.ErrMicStopTimeout):
		h.cfg.log.Warn("listening failed; nothing decided", "err", err)
		v.phase = voiceIdle
	case len(v.pcm) == 0:
		h.cfg.log.Info("nothing heard; nothing decided")
		v.phase = voiceIdle
		h.say(utterance{kind: sayConversation, text: notCaught}, now)
	default:
		if err != nil {
			h.cfg.log.Warn("CoreS3 did not confirm MIC_STOP; recognizing what was heard", "err", err)
		}
		v.phase = voiceRecognizing
		v.job++
		h.out.effect(sttOut{Job: v.job, PCM: append([]byte(nil), v.pcm...)})
	}
}

// micStarted handles MIC_STARTED; listening (and STATUS LISTENING) starts now.
func (h *voicePart) micStarted(stream uint16, now time.Time) bool {
	v := &h.voice
	if v.mic == nil || !v.mic.OnStarted(stream) {
		return false
	}
	v.listenUntil = now.Add(h.cfg.listenFor)
	return true
}

// micStopped handles MIC_STOPPED.
func (h *voicePart) micStopped(stream uint16, now time.Time) bool {
	v := &h.voice
	if v.mic == nil || !v.mic.OnStopped(stream) {
		return false
	}
	h.flushVoice(now)
	return true
}

// micError fails the microphone session an ERROR names.
func (h *voicePart) micError(stream uint16, code wire.ErrorCode, now time.Time) bool {
	v := &h.voice
	if v.mic == nil || !v.mic.OnError(stream, code) {
		return false
	}
	h.cfg.log.Error("CoreS3 ERROR on the microphone stream", "stream", stream, "code", code.String())
	h.flushVoice(now)
	return true
}

// micPCM takes one MICROPHONE_PCM frame; gaps of up to 10 frames are
// filled with silence, wrong frames dropped, and listening stops when
// listenFor of audio is in.
func (h *voicePart) micPCM(f wire.Frame, now time.Time) {
	v := &h.voice
	if v.mic == nil {
		return
	}
	mf, err := v.mic.OnPCM(f.StreamID, f.Sequence, f.SampleRate, len(f.Payload))
	if err != nil {
		h.cfg.log.Warn("microphone frame refused", "err", err)
		h.flushVoice(now)
		return
	}
	if !mf.Deliver {
		return
	}
	limit := h.voiceMaxPCM()
	for range mf.Silence {
		if len(v.pcm) < limit {
			v.pcm = append(v.pcm, make([]byte, session.MicFrameBytes)...)
		}
	}
	if len(v.pcm) < limit {
		v.pcm = append(v.pcm, f.Payload...)
	}
	if len(v.pcm) >= limit {
		v.pcm = v.pcm[:limit]
		v.mic.Stop()
		h.flushVoice(now)
	}
}

func (h *voicePart) voiceTick(now time.Time) {
	v := &h.voice
	if v.phase == voiceAwaitSpeech && !h.speech.has(v.utt) {
		v.phase = voiceIdle // dropped from the queue unspoken
	}
	if v.mic == nil {
		return
	}
	if v.mic.State() == session.MicListening && !now.Before(v.listenUntil) {
		v.mic.Stop()
	}
	h.flushVoice(now)
}

func (v *voice) wake() (time.Time, bool) {
	if v.mic == nil {
		return time.Time{}, false
	}
	if v.mic.State() == session.MicListening {
		return v.listenUntil, true
	}
	return v.mic.Wake()
}

// cancelVoice ends the voice approval without deciding: the microphone is
// stopped (MIC_STOP until MIC_STOPPED) and STT is cancelled.
func (h *voicePart) cancelVoice(now time.Time) {
	v := &h.voice
	switch v.phase {
	case voiceMic:
		v.cancelled = true
		if v.mic != nil {
			v.mic.Stop()
			h.flushVoice(now)
			return
		}
	case voiceRecognizing:
		h.out.effect(cancelSTTOut{Job: v.job})
	}
	v.phase = voiceIdle
}

// voiceLost: the firmware dropped its sessions (new HELLO_ACK, unplug); it
// forgot the microphone, so no MIC_STOP is sent.
func (h *voicePart) voiceLost() {
	v := &h.voice
	if v.mic != nil {
		v.mic.Reset()
		v.mic = nil
	}
	if v.phase == voiceRecognizing {
		h.out.effect(cancelSTTOut{Job: v.job})
	}
	if v.phase != voiceIdle {
		h.cfg.log.Info("voice approval cancelled: the CoreS3 lost its sessions")
	}
	v.phase = voiceIdle
}

// recognized takes the STT result of job and decides the prompt at most once.
func (h *voicePart) recognized(job uint64, text string, err error, now time.Time) {
	v := &h.voice
	if v.phase != voiceRecognizing || job != v.job {
		return // cancelled meanwhile
	}
	v.phase = voiceIdle
	if v.prompt == followUpPrompt {
		h.followUpHeard(text, err, now)
		return
	}
	if err != nil {
		h.cfg.log.Warn("speech recognition failed; nothing decided", "err", err)
		h.say(utterance{kind: sayConversation, text: notCaught}, now)
		return
	}
	verdict := parseVerdict(text)
	h.cfg.log.Info("heard", "text", shorten(text, 80), "verdict", verdict.String())
	if verdict == verdictNone {
		h.say(utterance{kind: sayConversation, text: notCaught}, now)
		return
	}
	e := h.out.promptByReq(v.prompt)
	if e == nil || e.decided {
		h.cfg.log.Info("voice answer ignored: the prompt was answered meanwhile", "request", v.prompt)
		return
	}
	if e.suspended {
		// The desktop is reconnecting: nothing can reach it, and
		// approvals would refuse it. The user answers again once the
		// prompt is back.
		h.cfg.log.Info("voice answer not taken: the prompt's link is down", "request", v.prompt)
		h.say(utterance{kind: sayConversation, text: notReachable}, now)
		return
	}
	e.decided = true
	h.out.effect(decideOut{Source: e.prompt.Source, ID: e.prompt.ID,
		Approve: verdict == verdictApprove, By: "voice"})
}

// status is the STATUS icon while voice approval owns the screen; LISTENING
// only after MIC_STARTED (spec §8).
func (v *voice) status() (wire.Status, bool) {
	switch {
	case v.mic != nil && v.mic.State() == session.MicListening:
		return wire.StatusListening, true
	case v.mic != nil && v.mic.State() == session.MicStopping && !v.cancelled && !v.listenUntil.IsZero():
		return wire.StatusRecognizing, true
	case v.phase == voiceRecognizing:
		return wire.StatusRecognizing, true
	}
	return 0, false
}

// convState is the conversation phase for conversation.result (spec §15.2).
func (h *voicePart) convState() appevent.ConversationState {
	v := &h.voice
	switch {
	case v.phase == voiceAwaitSpeech:
		return appevent.StateSpeaking
	case v.mic != nil && v.mic.State() == session.MicListening:
		return appevent.StateListening
	case v.mic != nil && v.listenUntil.IsZero() && !v.cancelled:
		return appevent.StateConnecting
	case v.phase == voiceRecognizing, v.mic != nil && !v.cancelled:
		return appevent.StateRecognizing
	case h.speech.speaking(sayConversation):
		return appevent.StateSpeaking
	}
	return appevent.StateStandby
}

func (v *voice) activity() string {
	switch {
	case v.mic != nil && v.mic.State() == session.MicListening:
		return "listening"
	case v.phase == voiceRecognizing:
		return "recognizing speech"
	}
	return ""
}

// verdict is what an answer means.
type verdict uint8

const (
	verdictNone verdict = iota
	verdictApprove
	verdictDeny
)

func (v verdict) String() string {
	return [...]string{"none", "approve", "deny"}[v]
}

var (
	approveWords = []string{"approve", "yes", "ok", "okay", "allow", "go ahead"}
	denyWords    = []string{"deny", "no", "stop", "reject", "don't"}
	// wordChars keeps letters, digits and the apostrophe of "don't".
	nonWord = regexp.MustCompile(`[^\p{L}\p{N}']+`)
)

// parseVerdict reads an answer: approve or deny words, matched as whole
// words without case or punctuation. Both kinds, or neither, mean nothing.
func parseVerdict(text string) verdict {
	text = strings.NewReplacer("’", "'", "‘", "'").Replace(strings.ToLower(text))
	words := strings.Fields(nonWord.ReplaceAllString(text, " "))
	for i, w := range words {
		words[i] = strings.Trim(w, "'")
		if w == "don't" || w == "dont" {
			words[i] = "don't"
		}
	}
	joined := " " + strings.Join(words, " ") + " "
	has := func(list []string) bool {
		for _, w := range list {
			if strings.Contains(joined, " "+w+" ") {
				return true
			}
		}
		return false
	}
	approve, deny := has(approveWords), has(denyWords)
	switch {
	case approve && !deny:
		return verdictApprove
	case deny && !approve:
		return verdictDeny
	}
	return verdictNone
}
