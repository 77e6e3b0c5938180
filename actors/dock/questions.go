package dock

import (
	"strings"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
)

// A question prompt (AskUserQuestion from a terminal) reaches the CoreS3
// as a sequence of approval cards: the spec's approval.request carries no
// options (§16.1), so each card is one approval.request of its own, with
// its own requestId, and approve/decline mean "choose this" and "next
// card" (approvals.CardFlow, the same cards as on the Pi). A card
// answered is resolved on the CoreS3 ("next" or "chosen") before the
// next is requested, so the firmware's queue holds one card at a time; a
// late response for an old card gets approval.resolved again, as for any
// resolved id.

// DesktopQuestionNote is what the CoreS3 shows for a desktop
// AskUserQuestion: Bluetooth carries neither its text nor an answer.
const DesktopQuestionNote = "Claude is asking you something: answer at the computer"

func isDesktopQuestion(p approvals.Prompt) bool {
	return p.Source == "desktop" && p.Tool == hookbridge.ToolAskUserQuestion
}

func isQuestion(p approvals.Prompt) bool {
	return p.Questions != nil && len(p.Questions.List) > 0
}

// cardRequestID is the requestId of the flow's card: the prompt's and the
// card's, hashed when long (requestID).
func cardRequestID(p approvals.Prompt, f *approvals.CardFlow) string {
	return requestID(p.Source, p.ID+"#"+f.ID())
}

// cardRequest is the approval.request for the flow's card. The summary
// says what the buttons do, since the CoreS3 labels them approve and
// deny.
func cardRequest(reqID string, p approvals.Prompt, f *approvals.CardFlow) appevent.ApprovalRequest {
	clean := func(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }
	c := f.Text(p.Questions.List)
	summary := clean(c.Choice) + "\n(approve: " + c.Verb + " · deny: next)"
	detail := summary + "\n" + clean(c.Detail)
	r := appevent.NewApprovalRequest(reqID, appevent.KindCommand, clean(c.Title), summary, detail)
	return r
}

// card acts on the CoreS3's answer to the card shown: approve chooses,
// decline steps. The answered card is resolved there and the next one
// requested; the last choice sends the Decide.
func (m *mirror) card(e *mirrored, approve bool, now time.Time) {
	qs := e.prompt.Questions.List
	old := e.reqID
	var answer *approvals.Answer
	done, msg := false, "next"
	if approve {
		answer, done = e.flow.Choose(qs)
		msg = "chosen"
	} else {
		e.flow.Step(qs)
	}
	if done {
		e.decided = true
		m.out.decide(decideOut{Source: e.prompt.Source, ID: e.prompt.ID, Approve: true, Answer: answer})
		return // the card stays until the prompt resolves
	}
	delete(m.byReq, old)
	m.order = append(m.order, old)
	if len(m.order) > resolvedKeep {
		delete(m.resolved, m.order[0])
		m.order = m.order[1:]
	}
	m.resolved[old] = msg
	m.out.sendEvent(appevent.NewApprovalResolved(old, msg))
	e.reqID = cardRequestID(e.prompt, e.flow)
	m.byReq[e.reqID] = e
	e.presented = false
	m.send(e, now)
}
