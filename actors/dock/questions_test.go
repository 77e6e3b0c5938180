package dock

import (
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
)

// cardSink records what the mirror sends the CoreS3 and decides.
type cardSink struct {
	events  []appevent.Event
	decided []decideOut
}

func (s *cardSink) eventReady() bool                   { return true }
func (s *cardSink) sendEvent(e appevent.Event)         { s.events = append(s.events, e) }
func (s *cardSink) announce(string, string, time.Time) {}
func (s *cardSink) unannounce(string)                  {}
func (s *cardSink) decide(d decideOut)                 { s.decided = append(s.decided, d) }

// lastRequest is the newest approval.request sent, and the resolved ids
// sent after the one before it.
func (s *cardSink) lastRequest(t *testing.T) appevent.ApprovalRequest {
	t.Helper()
	for i := len(s.events) - 1; i >= 0; i-- {
		if r, ok := s.events[i].(appevent.ApprovalRequest); ok {
			return r
		}
	}
	t.Fatal("no approval.request sent")
	return appevent.ApprovalRequest{}
}

func cardPrompt() approvals.Prompt {
	return approvals.Prompt{Source: "cli:s", ID: "q1", Tool: hookbridge.ToolAskUserQuestion, Questions: &approvals.Questions{List: []approvals.Question{
		{Question: "Which database?", Header: "DB", Options: []approvals.Choice{{Label: "Postgres"}, {Label: "SQLite", Description: "one file"}, {Label: "Redis"}}},
	}}}
}

// TestQuestionCardsOnTheCoreS3: the question reaches the CoreS3 one
// option at a time; decline steps (the card answered is resolved there
// first), approve chooses, and the choice is the Decide's answer.
func TestQuestionCardsOnTheCoreS3(t *testing.T) {
	var m mirror
	sink := &cardSink{}
	m.init(sink, false, slog.New(slog.DiscardHandler))
	now := time.Unix(1000, 0)
	m.appeared(cardPrompt(), now, false)
	if got := announcement(cardPrompt()); got != "Claude asks: Which database?" {
		t.Fatalf("announcement %q", got)
	}
	first := sink.lastRequest(t)
	if first.Title != "DB" || !strings.HasPrefix(first.Summary, "▸ Postgres\n") || !strings.Contains(first.Detail, "Which database?") {
		t.Fatalf("first card %+v", first)
	}
	m.presented(first.RequestID)
	m.response(appevent.NewApprovalResponse(first.RequestID, appevent.Decline), now)
	second := sink.lastRequest(t)
	if second.RequestID == first.RequestID || !strings.HasPrefix(second.Summary, "▸ SQLite\n") || !strings.Contains(second.Detail, "one file") {
		t.Fatalf("second card %+v", second)
	}
	var resolvedFirst bool
	for _, e := range sink.events {
		if r, ok := e.(appevent.ApprovalResolved); ok && r.RequestID == first.RequestID {
			resolvedFirst = true
		}
	}
	if !resolvedFirst || len(sink.decided) != 0 {
		t.Fatalf("after decline: first card resolved %v, decided %+v", resolvedFirst, sink.decided)
	}
	// The firmware's resend of the first card's answer changes nothing.
	m.response(appevent.NewApprovalResponse(first.RequestID, appevent.Decline), now)
	if got := sink.lastRequest(t); got.RequestID != second.RequestID {
		t.Fatalf("a late answer to the first card moved on to %+v", got)
	}
	m.response(appevent.NewApprovalResponse(second.RequestID, appevent.Approve), now)
	m.response(appevent.NewApprovalResponse(second.RequestID, appevent.Approve), now) // resent
	if len(sink.decided) != 1 || sink.decided[0].Answer == nil || !reflect.DeepEqual(sink.decided[0].Answer.Choices, [][]int{{1}}) {
		t.Fatalf("decided %+v", sink.decided)
	}
	// The prompt resolves: the card shown is the one resolved.
	m.resolve(cardPrompt(), resolvedMessage(approvals.ApprovedHere, "CoreS3"))
	if r, ok := sink.events[len(sink.events)-1].(appevent.ApprovalResolved); !ok || r.RequestID != second.RequestID {
		t.Fatalf("last event %+v, want the second card resolved", sink.events[len(sink.events)-1])
	}
	if m.count() != 0 {
		t.Fatalf("%d mirrored after the resolve", m.count())
	}
}

func TestQuestionCardAtTheComputer(t *testing.T) {
	var m mirror
	sink := &cardSink{}
	m.init(sink, false, slog.New(slog.DiscardHandler))
	now := time.Unix(1000, 0)
	m.appeared(cardPrompt(), now, false)
	for range 3 {
		m.response(appevent.NewApprovalResponse(sink.lastRequest(t).RequestID, appevent.Decline), now)
	}
	if r := sink.lastRequest(t); !strings.HasPrefix(r.Summary, "▸ "+approvals.AtComputer) {
		t.Fatalf("fourth card %+v", r)
	}
	m.response(appevent.NewApprovalResponse(sink.lastRequest(t).RequestID, appevent.Approve), now)
	if len(sink.decided) != 1 || sink.decided[0].Answer == nil || sink.decided[0].Answer.Choices != nil {
		t.Fatalf("decided %+v", sink.decided)
	}
}

// TestDesktopQuestionOnTheCoreS3: a desktop AskUserQuestion says to
// answer at the computer, and a tap decides nothing.
func TestDesktopQuestionOnTheCoreS3(t *testing.T) {
	var m mirror
	sink := &cardSink{}
	m.init(sink, false, slog.New(slog.DiscardHandler))
	now := time.Unix(1000, 0)
	m.appeared(approvals.Prompt{Source: "desktop", ID: "d1", Tool: "AskUserQuestion"}, now, false)
	r := sink.lastRequest(t)
	if r.Summary != DesktopQuestionNote {
		t.Fatalf("request %+v", r)
	}
	m.response(appevent.NewApprovalResponse(r.RequestID, appevent.Approve), now)
	if len(sink.decided) != 0 {
		t.Fatalf("a tap decided %+v", sink.decided)
	}
	if res, ok := sink.events[len(sink.events)-1].(appevent.ApprovalResolved); !ok || res.Message != DesktopQuestionNote {
		t.Fatalf("last event %+v", sink.events[len(sink.events)-1])
	}
}
