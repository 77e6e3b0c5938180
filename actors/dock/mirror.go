package dock

import (
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
)

// maxRequestID bounds our approval requestIds. The spec sets no limit, but
// the CoreS3 keeps every queued id in RAM and logs it; desktop prompt ids may
// be hundreds of bytes of any Unicode. Longer or non-ASCII keys are hashed.
const maxRequestID = 64

// resolvedKeep is how many resolved requestIds we remember, to answer a late
// approval.response with approval.resolved again (spec §16.2 [OURS]).
const resolvedKeep = 64

// requestID is the stable requestId of prompt (source, id): readable when
// short and plain ASCII, else a hash of both.
func requestID(source, id string) string {
	plain := "approval-" + source + "-" + id
	if len(plain) <= maxRequestID && isPlainASCII(plain) {
		return plain
	}
	// Length-prefixed so ("a", "b:c") and ("a:b", "c") differ.
	sum := sha256.Sum256([]byte(strconv.Itoa(len(source)) + ":" + source + id))
	return "approval-" + hex.EncodeToString(sum[:16])
}

func isPlainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// kindFor maps a Claude tool to the approval kind the CoreS3 labels.
func kindFor(tool string) appevent.ApprovalKind {
	switch tool {
	case "Edit", "Write", "MultiEdit", "NotebookEdit":
		return appevent.KindFileChange
	}
	return appevent.KindCommand
}

// titleColumns is how much of the title the CoreS3 shows before it
// elides (spec §16.1: 30 columns).
const titleColumns = 30

// approvalRequest builds the approval.request for p. The summary is the
// prompt's warning lines and its hint; the detail is everything the Pi
// shows: the summary again, the prompt's detail and, when the title is
// too long for the CoreS3's header, the whole tool name. It fits the
// CoreS3's 16 KiB, and truncated is set when the prompt itself is not
// the whole call.
func approvalRequest(reqID string, p approvals.Prompt) appevent.ApprovalRequest {
	clean := func(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }
	title := clean(p.Tool)
	if title == "" {
		title = "Claude"
	}
	var summary []string
	for w := range strings.SplitSeq(p.Warnings, "\n") {
		if w = strings.TrimSpace(w); w != "" {
			summary = append(summary, "! "+clean(w))
		}
	}
	if p.Hint != "" {
		summary = append(summary, clean(p.Hint))
	}
	if isDesktopQuestion(p) {
		summary = []string{DesktopQuestionNote}
	}
	detail := summary
	if p.Detail != "" {
		detail = append(slices.Clip(detail), clean(p.Detail))
	}
	if len(title) > titleColumns {
		detail = append(slices.Clip(detail), "tool: "+title)
	}
	r := appevent.NewApprovalRequest(reqID, kindFor(p.Tool), title, strings.Join(summary, "\n"), strings.Join(detail, "\n"))
	r.Truncated = r.Truncated || p.Truncated
	return r
}

// resolvedMessage is the short text the CoreS3 shows when a prompt goes.
func resolvedMessage(how approvals.Resolution, by string) string {
	where := func(verb string) string {
		switch by {
		case "":
			return verb
		case "voice":
			return verb + " by voice"
		}
		return verb + " on " + by
	}
	switch how {
	case approvals.ApprovedHere:
		return where("approved")
	case approvals.DeniedHere:
		return where("denied")
	case approvals.Gone:
		return "desktop disconnected"
	}
	return "answered on the desktop"
}

// DisplayOnlyNote is what a display-only dock shows when it is tapped.
const DisplayOnlyNote = "display only: answer on the Pi"

// mirrored is one pending prompt as shown on the CoreS3.
type mirrored struct {
	prompt    approvals.Prompt
	reqID     string
	presented bool      // approval.presented seen on this transport
	nextSend  time.Time // resend deadline while not presented
	decided   bool      // we sent a Decide for it
	suspended bool      // its source's link is down
	// flow is where a question prompt is in its cards (questions.go);
	// nil for any other prompt. Each card is its own approval.request,
	// reqID naming the card shown.
	flow *approvals.CardFlow
}

// eventSink is the way to the CoreS3's screen: EVENT messages, sent only
// while EVENT is ready (sendEvent drops them otherwise).
type eventSink interface {
	eventReady() bool
	sendEvent(appevent.Event)
}

// mirrorSink is what the mirror needs from the host beside the screen: the
// speaker for a prompt's announcement and the approvals actor for a
// decision.
type mirrorSink interface {
	eventSink
	announce(reqID, text string, now time.Time)
	unannounce(reqID string)
	decide(decideOut)
}

// mirror keeps the approvals actor's prompts on the CoreS3 (spec §16.2).
type mirror struct {
	out         mirrorSink
	displayOnly bool // dock.approvals = false
	log         *slog.Logger

	list     []*mirrored // arrival order
	byReq    map[string]*mirrored
	down     map[string]bool // sources whose link is down
	resolved map[string]string
	order    []string // resolved ids, oldest first
	// owed are ids resolved since the last handshake: the CoreS3 keeps
	// its queue over an unplug, and an approval.resolved written while it
	// was away (before the Pi noticed) or while EVENT was down never
	// reached it. It gets them again first at the next handshake.
	owed []string
}

func (m *mirror) init(out mirrorSink, displayOnly bool, log *slog.Logger) {
	m.out, m.displayOnly, m.log = out, displayOnly, log
	m.byReq = make(map[string]*mirrored)
	m.down = make(map[string]bool)
	m.resolved = make(map[string]string)
}

func (m *mirror) count() int { return len(m.list) }

// pending replaces the set with the approvals actor's snapshot.
func (m *mirror) pending(views []approvals.PromptView, now time.Time) {
	keep := make(map[string]bool, len(views))
	for _, v := range views {
		keep[requestID(v.Source, v.ID)] = true
	}
	for _, e := range append([]*mirrored(nil), m.list...) {
		if !keep[requestID(e.prompt.Source, e.prompt.ID)] {
			m.resolve(e.prompt, resolvedMessage(approvals.AnsweredElsewhere, ""))
		}
	}
	for _, v := range views {
		m.appeared(v.Prompt, now, false)
		if e := m.entryOf(v.Prompt); e != nil && v.Decided && v.By == "CoreS3" {
			e.decided = true
		}
	}
}

// appeared adds p and sends its request at once. It returns false for a
// prompt already mirrored.
func (m *mirror) appeared(p approvals.Prompt, now time.Time, announce bool) bool {
	if m.entryOf(p) != nil {
		return false
	}
	id := requestID(p.Source, p.ID)
	e := &mirrored{prompt: p, reqID: id, suspended: m.down[p.Source]}
	if isQuestion(p) {
		e.flow = &approvals.CardFlow{}
		e.flow.Fit(p.Questions.List)
		id = cardRequestID(p, e.flow)
		e.reqID = id
	}
	m.list = append(m.list, e)
	m.byReq[id] = e
	delete(m.resolved, id)
	if !e.suspended {
		m.send(e, now)
	}
	if announce {
		m.out.announce(id, announcement(p), now)
	}
	return true
}

// announcement is what is spoken when a prompt appears.
func announcement(p approvals.Prompt) string {
	switch {
	case isQuestion(p):
		return "Claude asks: " + shorten(p.Questions.List[0].Question, 120)
	case isDesktopQuestion(p):
		return "Claude is asking you something."
	}
	tool := p.Tool
	if tool == "" {
		tool = "a tool"
	}
	s := "Claude wants to run " + tool + ": " + shorten(p.Hint, 120)
	if p.Hint == "" {
		s = "Claude wants to use " + tool + "."
	}
	// A flag that widens the call is said too: the screen is not always
	// in sight when the voice is.
	for w := range strings.SplitSeq(p.Warnings, "\n") {
		if w = strings.TrimSpace(w); w != "" {
			s = strings.TrimSuffix(s, ".") + ". Warning: it " + shorten(w, 60) + "."
		}
	}
	return s
}

func (m *mirror) send(e *mirrored, now time.Time) {
	e.nextSend = now.Add(appevent.ApprovalResendInterval)
	if e.flow != nil {
		m.out.sendEvent(cardRequest(e.reqID, e.prompt, e.flow))
		return
	}
	m.out.sendEvent(approvalRequest(e.reqID, e.prompt))
}

// entryOf is the mirrored entry of prompt p, nil if none.
func (m *mirror) entryOf(p approvals.Prompt) *mirrored {
	for _, e := range m.list {
		if e.prompt.Source == p.Source && e.prompt.ID == p.ID {
			return e
		}
	}
	return nil
}

// resolve removes p and tells the CoreS3 why.
func (m *mirror) resolve(p approvals.Prompt, msg string) {
	id := requestID(p.Source, p.ID)
	if e := m.entryOf(p); e != nil {
		id = e.reqID
		delete(m.byReq, id)
		for i, x := range m.list {
			if x == e {
				m.list = append(m.list[:i], m.list[i+1:]...)
				break
			}
		}
	}
	if _, ok := m.resolved[id]; !ok {
		m.order = append(m.order, id)
		if len(m.order) > resolvedKeep {
			delete(m.resolved, m.order[0])
			m.order = m.order[1:]
		}
	}
	m.resolved[id] = msg
	m.out.unannounce(id)
	if !slices.Contains(m.owed, id) {
		m.owed = append(m.owed, id)
		if len(m.owed) > resolvedKeep {
			m.owed = m.owed[1:]
		}
	}
	m.out.sendEvent(appevent.NewApprovalResolved(id, msg))
}

// rearmed: approvals cleared its decided flag after a lost write. The CoreS3
// keeps its own decision and resends it, but we answer a prompt from the
// CoreS3 at most once, so the user decides again on the Pi or the desktop.
func (m *mirror) rearmed(p approvals.Prompt) {
	if e := m.entryOf(p); e != nil {
		m.log.Info("prompt re-armed; a CoreS3 decision is not sent twice", "request", e.reqID)
	}
}

// link records a source's link going down (suspend its prompts) or up
// (present them again, which lifts the suspension).
func (m *mirror) link(source string, up bool, now time.Time) {
	if up {
		delete(m.down, source)
	} else {
		m.down[source] = true
	}
	for _, e := range m.list {
		if e.prompt.Source != source || e.suspended == !up {
			continue
		}
		e.suspended = !up
		if up {
			e.presented = false
			m.send(e, now)
		} else {
			m.out.sendEvent(appevent.NewApprovalSuspended(e.reqID))
		}
	}
}

func (m *mirror) presented(reqID string) {
	if e := m.byReq[reqID]; e != nil {
		e.presented = true
	}
}

// response acts on the first approval.response for a pending prompt only.
func (m *mirror) response(r appevent.ApprovalResponse, now time.Time) {
	e := m.byReq[r.RequestID]
	if e == nil {
		msg, ok := m.resolved[r.RequestID]
		if !ok {
			msg = "no longer pending"
		}
		m.out.sendEvent(appevent.NewApprovalResolved(r.RequestID, msg))
		return
	}
	e.presented = true
	if m.displayOnly {
		// dock.approvals = false: the CoreS3 only shows prompts. Resolving
		// it there stops the firmware's resends and tells the person why.
		m.log.Info("approval.response from a display-only dock ignored (dock.approvals = false)", "request", e.reqID)
		m.out.sendEvent(appevent.NewApprovalResolved(e.reqID, DisplayOnlyNote))
		return
	}
	if e.decided {
		return // the firmware resends every 2 s until approval.resolved
	}
	if isDesktopQuestion(e.prompt) {
		// Once or deny would mean nothing to a question, and Bluetooth
		// carries no answer: the tap takes the card off, and says why.
		m.out.sendEvent(appevent.NewApprovalResolved(e.reqID, DesktopQuestionNote))
		return
	}
	if e.suspended {
		// The source's link is down (the desktop reconnecting): approvals
		// would refuse it. Not counting it keeps the CoreS3's one answer
		// for when the prompt is confirmed: the firmware resends its
		// decision when approval.request lifts the suspension.
		m.log.Info("approval.response while suspended: not sent, the source's link is down", "request", e.reqID)
		return
	}
	if e.flow != nil {
		m.card(e, r.Decision == appevent.Approve, now)
		return
	}
	e.decided = true
	m.out.decide(decideOut{Source: e.prompt.Source, ID: e.prompt.ID, Approve: r.Decision == appevent.Approve})
}

// transportLost: the CoreS3 forgot everything; keep the prompts.
func (m *mirror) transportLost() {
	for _, e := range m.list {
		e.presented = false
	}
}

// transportReady restores the screen after a (re)handshake (spec §16.2):
// the CoreS3 gets exactly the pending set. Prompts resolved meanwhile are
// resolved there first, so one it still shows never hides the next.
func (m *mirror) transportReady(now time.Time) {
	for _, id := range m.owed {
		if msg, ok := m.resolved[id]; ok && m.byReq[id] == nil {
			m.out.sendEvent(appevent.NewApprovalResolved(id, msg))
		}
	}
	m.owed = nil
	for _, e := range m.list {
		e.presented = false
		m.send(e, now)
		if e.suspended {
			m.out.sendEvent(appevent.NewApprovalSuspended(e.reqID))
		}
	}
}

func (m *mirror) tick(now time.Time) {
	for _, e := range m.list {
		if !e.presented && !e.suspended && !now.Before(e.nextSend) {
			m.send(e, now)
		}
	}
}

func (m *mirror) wake() (time.Time, bool) {
	var at time.Time
	if !m.out.eventReady() {
		return at, false
	}
	for _, e := range m.list {
		if !e.presented && !e.suspended && (at.IsZero() || e.nextSend.Before(at)) {
			at = e.nextSend
		}
	}
	return at, !at.IsZero()
}

// taskState mirrors "is Claude running something" as task.status (spec §17).
type taskState struct {
	out      eventSink
	token    string // per-incarnation part of the event ids
	known    bool
	running  bool
	n        int
	nextSend time.Time
}

func (t *taskState) set(running bool, now time.Time) {
	if t.known && t.running == running {
		return
	}
	t.known, t.running = true, running
	t.send(now)
}

func (t *taskState) send(now time.Time) {
	if !t.out.eventReady() {
		return
	}
	t.n++
	state := appevent.TaskIdle
	if t.running {
		state = appevent.TaskRunning
	}
	t.out.sendEvent(appevent.NewTaskStatus("task-"+t.token+"-"+strconv.Itoa(t.n), state))
	t.nextSend = now.Add(appevent.TaskStatusRefresh)
}

func (t *taskState) transportReady(now time.Time) {
	if !t.known {
		t.known = true // idle until the buddy says otherwise
	}
	t.send(now)
}

func (t *taskState) tick(now time.Time) {
	if t.running && !now.Before(t.nextSend) {
		t.send(now)
	}
}

func (t *taskState) wake() (time.Time, bool) {
	return t.nextSend, t.out.eventReady() && t.running
}
