// Package approvals is the single owner of pending permission prompts. It
// turns each source's complete prompt set into appeared/resolved events,
// accepts at most one decision per prompt from any input, forwards it to the
// source's owner, and re-arms a prompt whose answer seems lost.
//
// A supervisor.Subscribe gets a Pending snapshot at once, then
// PromptAppeared, PromptDecided, PromptResolved, PromptRearmed,
// PromptReconnecting, PromptRestored and LinkChanged.
package approvals

import (
	"strconv"
	"time"
)

// ServiceName is the approvals service's name in the supervision tree.
const ServiceName = "approvals"

// Prompt is one pending permission request. Its key is (Source, ID).
type Prompt struct {
	// Source names where the prompt comes from: "desktop", later
	// "cli:<session>". It also selects who receives the decision.
	Source string
	// ID is the prompt id exactly as the source sent it (any length, any
	// Unicode); it is echoed back byte for byte.
	ID string
	// Tool and Hint describe the request for the screen.
	Tool, Hint string
	// Detail is optional longer text (a command line, a path).
	Detail string
	// Warnings are flags of the call that widen what it may do, one per
	// line, for the screens to draw as warnings; Truncated says Detail
	// does not hold the whole call (its text says how much is missing).
	Warnings  string
	Truncated bool
	// Label names the source for the screen in a few words: "desktop",
	// "CLI engine · 9f3c2a10"; a subagent's prompt ends in
	// " · subagent <type>" so the screen can mark it. Empty: the screen
	// derives one from Source.
	Label string
	// Arrived is when approvals first saw the prompt; set by the actor
	// when the source leaves it zero.
	Arrived time.Time
	// Questions, when set, make the prompt an AskUserQuestion: it is
	// answered with Decide.Answer, not once/deny. A pointer keeps Prompt
	// comparable.
	Questions *Questions
}

// Questions are the questions of an AskUserQuestion prompt, checked by
// the source, which translates them from its codec at its edge (lan from
// hookbridge): approvals speaks its own language, and imports no codec.
type Questions struct{ List []Question }

// Question is one question and its options, text exactly as the agent
// wrote it: the screens escape what they cannot show.
type Question struct {
	Question    string
	Header      string
	Options     []Choice
	MultiSelect bool
}

// Choice is one option of a Question.
type Choice struct {
	Label       string
	Description string
}

// Answer is the answer to a prompt with Questions: per question, the
// indices of the chosen options (checkChoices). Nil Choices
// is "answer at the computer": the source is told to leave the question
// to its own dialog.
type Answer struct{ Choices [][]int }

// SetPrompts is the COMPLETE current set of prompts for one source. Prompts
// not seen before appear; known ones missing from the set are resolved.
// LinkUp false means the source is gone: its prompts resolve as Gone, at
// once when Hold is zero.
type SetPrompts struct {
	Source  string
	Prompts []Prompt
	LinkUp  bool
	// Hold, with LinkUp false, says the link dropped but the source may
	// come back: its prompts stay pending, marked reconnecting and not
	// answerable, for this long (counted from the first drop; a second
	// drop before a confirming set does not extend it). A later set with
	// LinkUp true confirms those it lists (PromptRestored) and resolves
	// the others as usual; when Hold passes first they resolve as Gone.
	// Prompts is ignored, as with any set whose link is down.
	Hold time.Duration
}

// Decide is a user's decision from any input (Pi button, CoreS3 tap, voice).
// At most one Decide per (Source, ID) is forwarded; anything else is refused.
// If the sender is known it gets a DecideResult.
type Decide struct {
	Source, ID string
	// Decision is AllowOnce or Deny; nothing else can be expressed.
	Decision Decision
	// By names the input: "Claude_Pi" (Pi button), "CoreS3", "voice".
	By string
	// Answer answers a prompt with Questions, and must be set for one
	// (Decision is then ignored, and recorded as buddy.Once); it is
	// refused for any other prompt.
	Answer *Answer
}

// DecideResult answers a Decide: OK when the decision was forwarded, else
// Err says why it was refused.
type DecideResult struct {
	OK  bool
	Err string
}

// Decided is sent to the owner of the prompt's source (WithOwner; for
// "desktop", the buddy service), which writes the permission line.
type Decided struct {
	Source, ID string
	Decision   Decision
	By         string
	// Attempt numbers the decisions handed over for this prompt, from 1
	// (a re-armed prompt can be decided again); a Delivery names it.
	Attempt int
	// Answer is Decide.Answer, for a prompt with Questions.
	Answer *Answer
}

// Delivery is the owner's report on one Decided: whether its answer went
// out to the source (buddy: the permission line was notified whole) or
// certainly did not (no desktop connected, no central subscribed, the
// write failed). An owner that never reports (the lan) leaves every
// decision presumed delivered. A dropped decision is not credited to the
// Pi when the source drops the prompt (AnsweredElsewhere, not
// ApprovedHere), and its buttons come back at once.
type Delivery struct {
	Source, ID string
	Attempt    int // Decided.Attempt
	// Sent is true when the answer went out, false when it was dropped.
	Sent bool
	// Err says why it was dropped ("" when Sent).
	Err string
}

// Resend asks a source's owner (WithOwner) to send its complete prompt
// sets again. A restarted approvals knows no prompt, and every set sent
// while it was down went to dead letters; so each incarnation after the
// first sends Resend to every owner as it starts. An owner answers with a
// SetPrompts per source that has prompts, and nothing when it has none.
type Resend struct{}

// GetPending asks for the current Pending snapshot (answered with Respond).
type GetPending struct{}

// PromptView is a prompt plus what the screen needs to draw it.
type PromptView struct {
	Prompt
	// Decided is true while a decision is on its way: the UI shows
	// "sent…" instead of the buttons.
	Decided bool
	// Decision and By are set when Decided.
	Decision Decision
	By       string
	// DecidedAt is when the decision was taken (zero when not Decided).
	DecidedAt time.Time
	// Reconnecting is true while the source's link is down and the prompt
	// waits for the source to confirm it: it cannot be decided, and the UI
	// shows "reconnecting…" instead of the buttons (or of "sent…").
	Reconnecting bool
	// HoldUntil is when a Reconnecting prompt resolves as Gone unless
	// the source confirms it first.
	HoldUntil time.Time
}

// Pending lists every pending prompt in arrival order.
type Pending struct{ Prompts []PromptView }

// PromptAppeared: a new prompt is waiting for a decision.
type PromptAppeared struct{ Prompt Prompt }

// PromptDecided: a decision was sent for Prompt; it stays pending until the
// source drops it.
type PromptDecided struct {
	Prompt   Prompt
	Decision Decision
	By       string
}

// Resolution is how a prompt stopped being pending.
type Resolution int

const (
	// ApprovedHere: we sent "once" and the source dropped the prompt.
	ApprovedHere Resolution = iota + 1
	// DeniedHere: we sent "deny" and the source dropped the prompt.
	DeniedHere
	// AnsweredElsewhere: the source dropped it without our decision (the
	// user answered on the desktop, or the tool call was cancelled), or
	// every decision we handed over was reported dropped (Delivery).
	AnsweredElsewhere
	// Gone: the source's link went down (and, with a hold, did not come
	// back in time); nothing is known about the answer.
	Gone
)

// String names the resolution for logs and the web state.
func (r Resolution) String() string {
	switch r {
	case ApprovedHere:
		return "approved-here"
	case DeniedHere:
		return "denied-here"
	case AnsweredElsewhere:
		return "answered-elsewhere"
	case Gone:
		return "gone"
	}
	return "Resolution(" + strconv.Itoa(int(r)) + ")"
}

// PromptResolved: Prompt is no longer pending. By names who decided it when
// How is ApprovedHere or DeniedHere.
type PromptResolved struct {
	Prompt Prompt
	How    Resolution
	By     string
}

// PromptRearmed: a decision was sent but the prompt was still there 5 s
// later (a lost write), or its owner reported it dropped, so it can be
// decided again and the buttons return.
type PromptRearmed struct{ Prompt Prompt }

// PromptReconnecting: Prompt's source link dropped with Hold; the prompt
// stays but cannot be decided until PromptRestored, and resolves as Gone at
// Until.
type PromptReconnecting struct {
	Prompt Prompt
	Until  time.Time
}

// PromptRestored: the source came back and still lists Prompt, so it can be
// decided again (or, if a decision was sent before the drop, PromptRearmed
// follows: see state.setPrompts).
type PromptRestored struct{ Prompt Prompt }

// LinkChanged: a source's link went up or down (the dock shows the approval
// as suspended while down).
type LinkChanged struct {
	Source string
	Up     bool
}
