package dock

import (
	"strconv"
	"time"

	"github.com/claude-pi/claude-pi/actors/lan"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// Spoken follow-ups to a terminal session ([voice] follow_up): after a
// terminal session's reply (lan.Reply with a window), a forward head swipe
// within the window says followUpCue, listens, recognises, and shows what
// was heard as an approval card. The card's OK sends it at once, its NG
// or a backward swipe cancels it, and with neither it goes
// followUpConfirm after the CoreS3 presented it. The lan service holds
// the session's Stop hook for the window (longer once swiped) and gives
// it the text, which Claude Code takes as the user's next message.
const (
	followUpCue     = "Go ahead."
	followUpConfirm = 5 * time.Second
	// followUpMargin: a swipe must come this long before the lan's
	// window ends, so that "listening" reaches it while the hook waits.
	followUpMargin = time.Second
	// followUpShowFor bounds the wait for approval.presented: the card
	// may queue behind a prompt's, and is never sent unseen.
	followUpShowFor = 30 * time.Second
	// followUpPrompt marks a voice session as a follow-up's; no mirrored
	// prompt has this requestId.
	followUpPrompt = "\x00follow-up"
	followUpTitle  = "Send to Claude?"
	followUpSent   = "Sent to Claude"
	followUpKept   = "Not sent"
)

type followUpPhase uint8

const (
	fuIdle    followUpPhase = iota
	fuArmed                 // a reply came; a swipe before until starts one
	fuVoice                 // the cue, the microphone, the recogniser
	fuShowing               // the heard text is on the CoreS3's card
)

// followUpOut tells the lan service where the follow-up to Session is.
type followUpOut lan.FollowUp

// followUp is the host's one follow-up at a time. Its steps that drive the
// speaker, the microphone and the lan are host methods (followUpReply,
// followUpSwiped, ...): a follow-up is a sequence across those parts, so a
// sink would name most of the host. What reads only its own state
// (armed, presented, wake) stays here.
type followUp struct {
	phase   followUpPhase
	session string
	until   time.Time // fuArmed: the last moment a swipe counts
	text    string    // fuShowing: what was heard
	reqID   string    // fuShowing: the card's requestId
	shownBy time.Time // fuShowing, not yet presented: cancelled then
	sendAt  time.Time // fuShowing, presented: sent then
	n       int       // cards shown, for their requestIds
	// done is the last card's requestId and its resolution, for the
	// firmware's resent approval.response.
	done, doneMsg string
}

// followUpAvailable reports whether a follow-up can be heard now: STT and TTS
// set up, a dock that may decide, EVENT ready and a microphone.
func (h *host) followUpAvailable() bool {
	return h.cfg.voice && h.eventReady() && h.neg.Peer.Has(wire.CapMicPCM)
}

// followUpReply takes a terminal session's reply. With a window and a
// microphone dock it arms; otherwise the session's hook is let go at once.
func (h *host) followUpReply(r lan.Reply, now time.Time) {
	f := &h.fu
	if r.FollowUp <= 0 {
		return
	}
	if !h.followUpAvailable() || f.phase == fuVoice || f.phase == fuShowing {
		h.tellFollowUp(r.Session, hookbridge.FollowUpNone, "")
		return
	}
	if f.phase == fuArmed && f.session != r.Session {
		h.tellFollowUp(f.session, hookbridge.FollowUpNone, "")
	}
	f.phase, f.session, f.until = fuArmed, r.Session, now.Add(r.FollowUp-followUpMargin)
}

// armed reports whether a forward swipe now is a follow-up.
func (f *followUp) armed(now time.Time) bool {
	return f.phase == fuArmed && now.Before(f.until)
}

// followUpSwiped starts listening: the cue (preempting the reply, if it still
// plays), then the microphone once the cue was heard.
func (h *host) followUpSwiped(now time.Time) {
	f := &h.fu
	h.cancelVoice(now)
	before := h.speech.nextUtt
	h.say(utterance{kind: sayConversation, text: followUpCue}, now)
	if h.speech.nextUtt == before {
		h.endFollowUp(hookbridge.FollowUpNone, "")
		return
	}
	h.beginVoice(h.speech.nextUtt, followUpPrompt, now)
	f.phase = fuVoice
	h.tellFollowUp(f.session, hookbridge.FollowUpListening, "")
}

// followUpHeard takes the recogniser's answer to the follow-up's recording.
func (h *host) followUpHeard(text string, err error, now time.Time) {
	f := &h.fu
	if f.phase != fuVoice {
		return
	}
	text = hookbridge.Printable(text, hookbridge.MaxFollowUp)
	if err != nil || text == "" {
		if err != nil {
			h.cfg.log.Warn("speech recognition failed; no follow-up sent", "err", err)
		}
		h.say(utterance{kind: sayConversation, text: notCaught}, now)
		h.endFollowUp(hookbridge.FollowUpNone, "")
		return
	}
	f.n++
	f.phase, f.text = fuShowing, text
	f.reqID = "followup-" + h.cfg.token + "-" + strconv.Itoa(f.n)
	f.shownBy, f.sendAt = now.Add(followUpShowFor), time.Time{}
	h.cfg.log.Info("follow-up heard; shown on the CoreS3 before it is sent", "session", f.session, "text", shorten(text, 80))
	h.sendEvent(appevent.NewApprovalRequest(f.reqID, appevent.KindCommand, followUpTitle, text, text))
}

// presented starts the confirmation time once the card is on screen.
func (f *followUp) presented(reqID string, now time.Time) bool {
	if f.phase != fuShowing || reqID != f.reqID {
		return false
	}
	if f.sendAt.IsZero() {
		f.sendAt = now.Add(followUpConfirm)
	}
	return true
}

// followUpResponse takes the card's OK (send now) or NG (cancel); false when
// the response is not for a follow-up card.
func (h *host) followUpResponse(r appevent.ApprovalResponse, now time.Time) bool {
	f := &h.fu
	switch {
	case f.phase == fuShowing && r.RequestID == f.reqID:
		if r.Decision == appevent.Approve {
			h.sendFollowUp()
		} else {
			h.cancelFollowUp("cancelled on the CoreS3")
		}
		return true
	case r.RequestID != "" && r.RequestID == f.done:
		h.sendEvent(appevent.NewApprovalResolved(f.done, f.doneMsg))
		return true
	}
	return false
}

// followUpStopped is a backward swipe (conversation.stop): it cancels a
// follow-up being heard or shown.
func (h *host) followUpStopped() {
	f := &h.fu
	switch f.phase {
	case fuVoice:
		h.endFollowUp(hookbridge.FollowUpNone, "")
	case fuShowing:
		h.cancelFollowUp("cancelled by a backward swipe")
	}
}

func (h *host) sendFollowUp() {
	f := &h.fu
	h.cfg.log.Info("follow-up sent to its terminal session", "session", f.session)
	h.resolveFollowUp(followUpSent)
	h.endFollowUp(hookbridge.FollowUpText, f.text)
}

func (h *host) cancelFollowUp(why string) {
	f := &h.fu
	h.cfg.log.Info("follow-up not sent: "+why, "session", f.session)
	h.resolveFollowUp(followUpKept)
	h.endFollowUp(hookbridge.FollowUpNone, "")
}

func (h *host) resolveFollowUp(msg string) {
	f := &h.fu
	h.sendEvent(appevent.NewApprovalResolved(f.reqID, msg))
	f.done, f.doneMsg = f.reqID, msg
}

// endFollowUp tells the session's hook the outcome and goes idle.
func (h *host) endFollowUp(state, text string) {
	f := &h.fu
	h.tellFollowUp(f.session, state, text)
	*f = followUp{n: f.n, done: f.done, doneMsg: f.doneMsg}
}

func (h *host) tellFollowUp(session, state, text string) {
	h.effects = append(h.effects, followUpOut{Session: session, State: state, Text: text})
}

// syncFollowUp notices a voice session that ended without a recognition
// (nothing heard, the cue not spoken, the microphone failed, another
// conversation took over).
func (h *host) syncFollowUp() {
	f := &h.fu
	if f.phase == fuVoice && (h.voice.phase == voiceIdle || h.voice.prompt != followUpPrompt) {
		h.endFollowUp(hookbridge.FollowUpNone, "")
	}
}

// followUpTick sends or drops the card when its time comes, and disarms.
func (h *host) followUpTick(now time.Time) {
	f := &h.fu
	switch {
	case f.phase == fuArmed && !now.Before(f.until):
		h.endFollowUp(hookbridge.FollowUpNone, "") // the hook goes before the lan's window ends
	case f.phase == fuShowing && !f.sendAt.IsZero() && !now.Before(f.sendAt):
		h.sendFollowUp()
	case f.phase == fuShowing && f.sendAt.IsZero() && !now.Before(f.shownBy):
		h.cancelFollowUp("the CoreS3 did not show it")
	}
	h.syncFollowUp()
}

func (f *followUp) wake() (time.Time, bool) {
	switch {
	case f.phase == fuArmed:
		return f.until, true
	case f.phase == fuShowing && !f.sendAt.IsZero():
		return f.sendAt, true
	case f.phase == fuShowing:
		return f.shownBy, true
	}
	return time.Time{}, false
}

// followUpLost: the CoreS3 dropped its sessions; what it was hearing or showing
// is gone with them, and nothing is sent unseen.
func (h *host) followUpLost() {
	f := &h.fu
	switch f.phase {
	case fuVoice, fuShowing:
		h.cfg.log.Info("follow-up not sent: the CoreS3 lost its sessions", "session", f.session)
		h.endFollowUp(hookbridge.FollowUpNone, "")
	case fuArmed:
		h.endFollowUp(hookbridge.FollowUpNone, "")
	}
}
