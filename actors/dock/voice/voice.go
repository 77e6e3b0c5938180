package voice

import (
	"errors"
	"regexp"
	"strings"
	"time"

	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
	"github.com/claude-pi/claude-pi/protocols/stackchan/session"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// NotCaught is spoken when the answer was neither a clear yes nor a clear no.
const NotCaught = "I didn't catch that."

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
	// STTOut runs the STT command on PCM (16 kHz mono s16le).
	STTOut struct {
		Job uint64
		PCM []byte
	}
	// CancelSTTOut stops STT job Job.
	CancelSTTOut struct{ Job uint64 }
)

// voiceAvailable reports whether conversation.start may end by listening.
func (h *Part) voiceAvailable() bool {
	return h.cfg.Voice && h.out.Negotiated().Peer.Has(wire.CapMicPCM) && h.out.OldestPrompt() != nil
}

// beginVoice waits for utterance utt (the summary) to end, then listens for an
// answer about the prompt reqID. Any voice approval under way is cancelled.
func (h *Part) beginVoice(utt uint64, reqID string, now time.Time) {
	v := &h.voice
	h.cancelVoice(now)
	v.phase, v.utt, v.prompt = voiceAwaitSpeech, utt, reqID
}

// voiceSpoken is called when an utterance ends (or is dropped unsaid); ok is
// true when it played to its SPEAKER_DONE. The microphone opens only after the summary was heard.
func (h *Part) voiceSpoken(utt uint64, ok bool, now time.Time) {
	h.followUpSaid(utt, ok, now)
	v := &h.voice
	if v.phase != voiceAwaitSpeech || utt != v.utt {
		return
	}
	if !ok {
		h.cfg.Log.Info("voice approval dropped: the summary was not spoken to its end")
		v.phase = voiceIdle
		return
	}
	if v.prompt != followUpPrompt && h.out.PromptByReq(v.prompt) == nil {
		h.cfg.Log.Info("voice approval dropped: the prompt was answered meanwhile")
		v.phase = voiceIdle
		return
	}
	mic, err := session.NewMicReceiver(h.speech.newStream())
	if err != nil {
		h.cfg.Log.Error("BUG: microphone session refused", "err", err)
		v.phase = voiceIdle
		return
	}
	v.phase, v.mic, v.cancelled, v.pcm = voiceMic, mic, false, v.pcm[:0]
	v.listenUntil = time.Time{}
	h.out.MediaStarted()
	h.flushVoice(now)
}

// holdsMedia: no speaker session may start while the microphone is open
// (half duplex, spec §10).
func (v *voice) holdsMedia() bool { return v.mic != nil }

// voiceMaxPCM is the most audio kept: listenFor at 16 kHz, 16-bit.
func (h *Part) voiceMaxPCM() int {
	n := int(h.cfg.ListenFor / (20 * time.Millisecond))
	return max(n, 1) * session.MicFrameBytes
}

// flushVoice sends what the microphone session wants sent and moves on when it
// is over.
func (h *Part) flushVoice(now time.Time) {
	v := &h.voice
	if v.mic == nil {
		return
	}
	for a, ok := v.mic.Next(now); ok; a, ok = v.mic.Next(now) {
		h.out.SendControl(a.Frame())
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
		h.cfg.Log.Warn("listening failed; nothing decided", "err", err)
		v.phase = voiceIdle
	case len(v.pcm) == 0:
		h.cfg.Log.Info("nothing heard; nothing decided")
		v.phase = voiceIdle
		h.say(utterance{kind: sayConversation, text: NotCaught}, now)
	default:
		if err != nil {
			h.cfg.Log.Warn("CoreS3 did not confirm MIC_STOP; recognizing what was heard", "err", err)
		}
		v.phase = voiceRecognizing
		v.job++
		h.out.Effect(STTOut{Job: v.job, PCM: append([]byte(nil), v.pcm...)})
	}
}

// MicStarted handles MIC_STARTED; listening (and STATUS LISTENING) starts now.
func (h *Part) MicStarted(stream uint16, now time.Time) bool {
	v := &h.voice
	if v.mic == nil || !v.mic.OnStarted(stream) {
		return false
	}
	v.listenUntil = now.Add(h.cfg.ListenFor)
	return true
}

// MicStopped handles MIC_STOPPED.
func (h *Part) MicStopped(stream uint16, now time.Time) bool {
	v := &h.voice
	if v.mic == nil || !v.mic.OnStopped(stream) {
		return false
	}
	h.flushVoice(now)
	return true
}

// MicError fails the microphone session an ERROR names.
func (h *Part) MicError(stream uint16, code wire.ErrorCode, now time.Time) bool {
	v := &h.voice
	if v.mic == nil || !v.mic.OnError(stream, code) {
		return false
	}
	h.cfg.Log.Error("CoreS3 ERROR on the microphone stream", "stream", stream, "code", code.String())
	h.flushVoice(now)
	return true
}

// MicPCM takes one MICROPHONE_PCM frame; gaps of up to 10 frames are
// filled with silence, wrong frames dropped, and listening stops when
// listenFor of audio is in.
func (h *Part) MicPCM(f wire.Frame, now time.Time) {
	v := &h.voice
	if v.mic == nil {
		return
	}
	mf, err := v.mic.OnPCM(f.StreamID, f.Sequence, f.SampleRate, len(f.Payload))
	if err != nil {
		h.cfg.Log.Warn("microphone frame refused", "err", err)
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

func (h *Part) VoiceTick(now time.Time) {
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
func (h *Part) cancelVoice(now time.Time) {
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
		h.out.Effect(CancelSTTOut{Job: v.job})
	}
	v.phase = voiceIdle
}

// VoiceLost: the firmware dropped its sessions (new HELLO_ACK, unplug); it
// forgot the microphone, so no MIC_STOP is sent.
func (h *Part) VoiceLost() {
	v := &h.voice
	if v.mic != nil {
		v.mic.Reset()
		v.mic = nil
	}
	if v.phase == voiceRecognizing {
		h.out.Effect(CancelSTTOut{Job: v.job})
	}
	if v.phase != voiceIdle {
		h.cfg.Log.Info("voice approval cancelled: the CoreS3 lost its sessions")
	}
	v.phase = voiceIdle
}

// Recognized takes the STT result of job and decides the prompt at most once.
func (h *Part) Recognized(job uint64, text string, err error, now time.Time) {
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
		h.cfg.Log.Warn("speech recognition failed; nothing decided", "err", err)
		h.say(utterance{kind: sayConversation, text: NotCaught}, now)
		return
	}
	verdict := parseVerdict(text)
	h.cfg.Log.Info("heard", "text", Shorten(text, 80), "verdict", verdict.String())
	if verdict == verdictNone {
		h.say(utterance{kind: sayConversation, text: NotCaught}, now)
		return
	}
	e := h.out.PromptByReq(v.prompt)
	if e == nil || e.Decided {
		h.cfg.Log.Info("voice answer ignored: the prompt was answered meanwhile", "request", v.prompt)
		return
	}
	if e.Suspended {
		// The desktop is reconnecting: nothing can reach it, and
		// approvals would refuse it. The user answers again once the
		// prompt is back.
		h.cfg.Log.Info("voice answer not taken: the prompt's link is down", "request", v.prompt)
		h.say(utterance{kind: sayConversation, text: notReachable}, now)
		return
	}
	h.out.MarkDecided(e.ReqID)
	h.out.Effect(Decide{Source: e.Prompt.Source, ID: e.Prompt.ID,
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
func (h *Part) convState() appevent.ConversationState {
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
