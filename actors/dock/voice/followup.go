package voice

import (
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

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
//
// Replies from several sessions (and computers) wait their turn to be
// spoken, so a swipe answers the reply the person heard: the one being
// spoken when the swipe came, or else the last utterance spoken to its
// end, if that was a reply. A reply still waiting to be said, or one
// something else was said after, is never answered.
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
	fuIdle    followUpPhase = iota // offers may wait for a swipe
	fuVoice                        // the cue, the microphone, the recogniser
	fuShowing                      // the heard text is on the CoreS3's card
)

// FollowUpOut tells the lan service where the follow-up to Session is.
type FollowUpOut lan.FollowUp

// fuOffer is one terminal session's reply a swipe may answer.
type fuOffer struct {
	session, computer, project string
	utt                        uint64    // the utterance that says the reply
	until                      time.Time // the last moment a swipe counts
}

// followUp is the host's one follow-up at a time. Its steps that drive the
// speaker, the microphone and the lan are host methods (followUpReply,
// followUpSwiped, ...): a follow-up is a sequence across those parts, so a
// sink would name most of the host. What reads only its own state
// (presented, wake) stays here.
type followUp struct {
	phase  followUpPhase
	offers []fuOffer // fuIdle: replies said or waiting to be, oldest first
	// said is the last utterance that ended, saidOK whether it played to
	// its end: a reply is answerable after it only if it is that one.
	said   uint64
	saidOK bool

	to      fuOffer   // fuVoice, fuShowing: the session answered
	text    string    // fuShowing: what is sent, all of it on the card
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
func (h *Part) followUpAvailable() bool {
	return h.cfg.Voice && h.out.EventReady() && h.out.Negotiated().Peer.Has(wire.CapMicPCM)
}

// queuedSince is the utterance say queued after nextUtt was before, or 0
// when it queued none (nothing to say, speech muted or unavailable).
func (s *speech) queuedSince(before uint64) uint64 {
	if s.nextUtt == before || !s.has(s.nextUtt) {
		return 0
	}
	return s.nextUtt
}

// FollowUpReply takes a terminal session's reply, said as utterance utt
// (0: not said). With a window, a microphone dock and a reply that is
// said it waits for a swipe; otherwise the session's hook is let go at
// once.
func (h *Part) FollowUpReply(r lan.Reply, utt uint64, now time.Time) {
	f := &h.fu
	if r.FollowUp <= 0 {
		return
	}
	if !h.followUpAvailable() || f.phase != fuIdle || utt == 0 {
		if utt == 0 && h.followUpAvailable() {
			h.cfg.Log.Info("follow-up not offered: the reply is not said on the dock", "session", r.Session)
		}
		h.tellFollowUp(r.Session, hookbridge.FollowUpNone, "")
		return
	}
	// A newer Stop of the same session replaces its offer; the lan
	// service has closed the old one already.
	f.offers = slices.DeleteFunc(f.offers, func(o fuOffer) bool { return o.session == r.Session })
	f.offers = append(f.offers, fuOffer{session: r.Session, computer: r.Computer, project: r.Project,
		utt: utt, until: now.Add(r.FollowUp - followUpMargin)})
	h.pruneOffers(now)
}

// followUpSaid records the end of utterance utt (voiceSpoken); ok is true
// when it played to its SPEAKER_DONE. now is zero for a barge-in, which
// prunes by what is said only.
func (h *Part) followUpSaid(utt uint64, ok bool, now time.Time) {
	h.fu.said, h.fu.saidOK = utt, ok
	if h.fu.phase == fuIdle {
		h.pruneOffers(now)
	}
}

// heard is the offer a swipe now answers: the reply being spoken, or the
// last utterance spoken to its end; -1 when neither is an offer's reply
// within its window. An utterance still being synthesised has not been
// heard yet: what was heard is the one before it.
func (h *Part) heard(now time.Time) int {
	f := &h.fu
	if f.phase != fuIdle {
		return -1
	}
	match := func(utt uint64) int {
		return slices.IndexFunc(f.offers, func(o fuOffer) bool { return o.utt == utt && now.Before(o.until) })
	}
	if cur := h.speech.cur; cur != nil && cur.sender != nil {
		return match(cur.id)
	}
	if !f.saidOK || f.said == 0 {
		return -1
	}
	return match(f.said)
}

// pruneOffers lets go of the hooks whose reply can no longer be answered:
// the window ended, or the reply is neither queued, playing nor the last
// thing said to its end (dropped unheard, cut short, or followed by
// another utterance).
func (h *Part) pruneOffers(now time.Time) {
	f := &h.fu
	f.offers = slices.DeleteFunc(f.offers, func(o fuOffer) bool {
		live := h.speech.has(o.utt) || (o.utt == f.said && f.saidOK)
		if live && now.Before(o.until) {
			return false
		}
		h.tellFollowUp(o.session, hookbridge.FollowUpNone, "")
		return true
	})
}

// releaseOffers lets go of every waiting hook.
func (h *Part) releaseOffers() {
	f := &h.fu
	for _, o := range f.offers {
		h.tellFollowUp(o.session, hookbridge.FollowUpNone, "")
	}
	f.offers = nil
}

// followUpSwiped starts listening to an answer to offer i (heard): the cue
// (preempting the reply, if it still plays), then the microphone once the
// cue was heard. The other offers' hooks are let go: one follow-up at a
// time, and their replies were not the one heard.
func (h *Part) followUpSwiped(i int, now time.Time) {
	f := &h.fu
	f.to = f.offers[i]
	f.offers = slices.Delete(f.offers, i, i+1)
	h.releaseOffers()
	f.phase = fuVoice
	h.cancelVoice(now)
	before := h.speech.nextUtt
	h.say(utterance{kind: sayConversation, text: followUpCue}, now)
	if h.speech.nextUtt == before {
		h.endFollowUp(hookbridge.FollowUpNone, "")
		return
	}
	h.beginVoice(h.speech.nextUtt, followUpPrompt, now)
	h.cfg.Log.Info("follow-up: listening", "session", f.to.session, "computer", f.to.computer, "project", f.to.project)
	h.tellFollowUp(f.to.session, hookbridge.FollowUpListening, "")
}

// followUpHeard takes the recogniser's answer to the follow-up's recording.
func (h *Part) followUpHeard(text string, err error, now time.Time) {
	f := &h.fu
	if f.phase != fuVoice {
		return
	}
	text = followUpText(text)
	if err != nil || text == "" {
		if err != nil {
			h.cfg.Log.Warn("speech recognition failed; no follow-up sent", "err", err)
		}
		h.say(utterance{kind: sayConversation, text: NotCaught}, now)
		h.endFollowUp(hookbridge.FollowUpNone, "")
		return
	}
	summary, send := followUpCard(text, f.to.computer, f.to.project)
	f.n++
	f.phase, f.text = fuShowing, send
	f.reqID = "followup-" + h.cfg.Token + "-" + strconv.Itoa(f.n)
	f.shownBy, f.sendAt = now.Add(followUpShowFor), time.Time{}
	h.cfg.Log.Info("follow-up heard; shown on the CoreS3 before it is sent", "session", f.to.session,
		"text", Shorten(send, 80), "cut", utf8.RuneCountInString(text)-utf8.RuneCountInString(send))
	h.out.SendEvent(appevent.NewApprovalRequest(f.reqID, appevent.KindCommand, followUpTitle, summary, summary))
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

// FollowUpResponse takes the card's OK (send now) or NG (cancel); false when
// the response is not for a follow-up card.
func (h *Part) FollowUpResponse(r appevent.ApprovalResponse, now time.Time) bool {
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
		h.out.SendEvent(appevent.NewApprovalResolved(f.done, f.doneMsg))
		return true
	}
	return false
}

// followUpStopped is a backward swipe (conversation.stop): it cancels a
// follow-up being heard or shown.
func (h *Part) followUpStopped() {
	f := &h.fu
	switch f.phase {
	case fuVoice:
		h.endFollowUp(hookbridge.FollowUpNone, "")
	case fuShowing:
		h.cancelFollowUp("cancelled by a backward swipe")
	}
}

func (h *Part) sendFollowUp() {
	f := &h.fu
	h.cfg.Log.Info("follow-up sent to its terminal session", "session", f.to.session)
	h.resolveFollowUp(followUpSent)
	h.endFollowUp(hookbridge.FollowUpText, f.text)
}

func (h *Part) cancelFollowUp(why string) {
	f := &h.fu
	h.cfg.Log.Info("follow-up not sent: "+why, "session", f.to.session)
	h.resolveFollowUp(followUpKept)
	h.endFollowUp(hookbridge.FollowUpNone, "")
}

func (h *Part) resolveFollowUp(msg string) {
	f := &h.fu
	h.out.SendEvent(appevent.NewApprovalResolved(f.reqID, msg))
	f.done, f.doneMsg = f.reqID, msg
}

// endFollowUp tells the answered session's hook the outcome and goes idle.
// Offers that came meanwhile were let go at once (followUpReply).
func (h *Part) endFollowUp(state, text string) {
	f := &h.fu
	h.tellFollowUp(f.to.session, state, text)
	*f = followUp{n: f.n, done: f.done, doneMsg: f.doneMsg, said: f.said, saidOK: f.saidOK}
}

func (h *Part) tellFollowUp(session, state, text string) {
	h.out.Effect(FollowUpOut{Session: session, State: state, Text: text})
}

// SyncFollowUp notices a voice session that ended without a recognition
// (nothing heard, the cue not spoken, the microphone failed, another
// conversation took over).
func (h *Part) SyncFollowUp() {
	f := &h.fu
	if f.phase == fuVoice && (h.voice.phase == voiceIdle || h.voice.prompt != followUpPrompt) {
		h.endFollowUp(hookbridge.FollowUpNone, "")
	}
}

// FollowUpTick sends or drops the card when its time comes, and lets go
// of the offers that can no longer be answered.
func (h *Part) FollowUpTick(now time.Time) {
	f := &h.fu
	switch {
	case f.phase == fuIdle:
		h.pruneOffers(now) // each hook goes before the lan's window ends
	case f.phase == fuShowing && !f.sendAt.IsZero() && !now.Before(f.sendAt):
		h.sendFollowUp()
	case f.phase == fuShowing && f.sendAt.IsZero() && !now.Before(f.shownBy):
		h.cancelFollowUp("the CoreS3 did not show it")
	}
	h.SyncFollowUp()
}

func (f *followUp) wake() (time.Time, bool) {
	switch {
	case f.phase == fuIdle && len(f.offers) > 0:
		at := f.offers[0].until
		for _, o := range f.offers[1:] {
			if o.until.Before(at) {
				at = o.until
			}
		}
		return at, true
	case f.phase == fuShowing && !f.sendAt.IsZero():
		return f.sendAt, true
	case f.phase == fuShowing:
		return f.shownBy, true
	}
	return time.Time{}, false
}

// FollowUpLost: the CoreS3 dropped its sessions; what it was hearing or showing
// is gone with them, and nothing is sent unseen. Replies not yet said are
// said after the next handshake, but too late to be answered.
func (h *Part) FollowUpLost() {
	f := &h.fu
	h.releaseOffers()
	f.said, f.saidOK = 0, false
	switch f.phase {
	case fuVoice, fuShowing:
		h.cfg.Log.Info("follow-up not sent: the CoreS3 lost its sessions", "session", f.to.session)
		h.endFollowUp(hookbridge.FollowUpNone, "")
	}
}
