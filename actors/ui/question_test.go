package ui

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
	"github.com/claude-pi/claude-pi/actors/ui/screens"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

func questionPrompt() approvals.Prompt {
	return approvals.Prompt{Source: "cli:s", ID: "q1", Tool: hookbridge.ToolAskUserQuestion, Arrived: t0, Label: "CLI engine · s",
		Questions: &approvals.Questions{List: []approvals.Question{
			{Question: "Which database?", Header: "DB", Options: []approvals.Choice{{Label: "Postgres", Description: "relational"}, {Label: "SQLite", Description: "one file"}, {Label: "Redis"}}},
			{Question: "Which checks?", MultiSelect: true, Options: []approvals.Choice{{Label: "lint"}, {Label: "test"}, {Label: "fuzz"}}},
		}}}
}

// press presses r at now, after the frame of the step before; it
// returns the decision, if any.
func pressShown(t *testing.T, s *state, r Role, now time.Time) *approvals.Decide {
	t.Helper()
	d, ok := s.press(r, now, now)
	s.settle(now)
	if !ok {
		return nil
	}
	return &d
}

func TestQuestionCardsStepAndChoose(t *testing.T) {
	s := newState(t0, 30*time.Second, true)
	s.apply(approvals.PromptAppeared{Prompt: questionPrompt()}, t0)
	s.settle(t0)
	qs := questionsOf(questionPrompt())
	if _, h, _, verb := questionCard(qs, s.flowFor(questionPrompt())); h != "▸ Postgres" || verb != "choose" {
		t.Fatalf("first card %q %q", h, verb)
	}
	// Deny steps to the second option; approve chooses it.
	if d := pressShown(t, s, RoleDeny, t0); d != nil {
		t.Fatalf("deny decided %+v", d)
	}
	if tool, hint, d, _ := questionCard(qs, s.flowFor(questionPrompt())); hint != "▸ SQLite" || tool != "DB" || d != "one file\n(option 2 of 3)\nquestion 1 of 2: Which database?" {
		t.Fatalf("second card %q %q %q", tool, hint, d)
	}
	if d := pressShown(t, s, RoleApprove, t0); d != nil {
		t.Fatalf("the first of two questions decided %+v", d)
	}
	// Question 2, multi-select: toggle lint and fuzz, then done.
	pressShown(t, s, RoleApprove, t0) // lint
	pressShown(t, s, RoleDeny, t0)
	pressShown(t, s, RoleDeny, t0)
	pressShown(t, s, RoleApprove, t0) // fuzz
	if _, d, _, _ := questionCard(qs, s.flowFor(questionPrompt())); d != "[x] fuzz" {
		t.Fatalf("toggled card %q", d)
	}
	pressShown(t, s, RoleDeny, t0)
	if _, _, d, verb := questionCard(qs, s.flowFor(questionPrompt())); !strings.Contains(d, "chosen: lint, fuzz") || verb != "done" {
		t.Fatalf("done card %q %q", d, verb)
	}
	d := pressShown(t, s, RoleApprove, t0)
	if d == nil || d.Answer == nil || !reflect.DeepEqual(d.Answer.Choices, [][]int{{1}, {0, 2}}) || d.ID != "q1" || d.Source != "cli:s" {
		t.Fatalf("answer %+v", d)
	}
	if d := pressShown(t, s, RoleApprove, t0); d != nil {
		t.Fatalf("a second answer while the first is out: %+v", d)
	}
}

func TestQuestionAnswerAtTheComputer(t *testing.T) {
	s := newState(t0, 30*time.Second, true)
	s.apply(approvals.PromptAppeared{Prompt: questionPrompt()}, t0)
	s.settle(t0)
	for range 3 {
		pressShown(t, s, RoleDeny, t0)
	}
	if _, d, _, _ := questionCard(questionsOf(questionPrompt()), s.flowFor(questionPrompt())); !strings.Contains(d, AtComputer) {
		t.Fatalf("fourth card of three options: %q", d)
	}
	d := pressShown(t, s, RoleApprove, t0)
	if d == nil || d.Answer == nil || d.Answer.Choices != nil {
		t.Fatalf("answer at the computer gave %+v", d)
	}
}

// TestQuestionChoosesOnlyTheCardDrawn: approve right after deny, before
// the panel drew the card deny stepped to, chooses nothing; and a press
// that began before the card was drawn chooses nothing either.
func TestQuestionChoosesOnlyTheCardDrawn(t *testing.T) {
	s := newState(t0, 30*time.Second, true)
	s.apply(approvals.PromptAppeared{Prompt: questionPrompt()}, t0)
	s.settle(t0)
	s.press(RoleDeny, t0, t0) // no frame after it yet
	if _, ok := s.press(RoleApprove, t0, t0); ok {
		t.Fatal("chose a card not drawn")
	}
	later := t0.Add(time.Second)
	s.settle(later)
	if d, ok := s.press(RoleApprove, t0.Add(500*time.Millisecond), later); ok {
		t.Fatalf("a press begun before the card chose it: %+v", d)
	}
	if s.question.Q != 0 {
		t.Fatalf("moved on to question %d", s.question.Q+1)
	}
	s.press(RoleApprove, later, later)
	if s.question.Q != 1 || !reflect.DeepEqual(s.question.Picked, [][]int{{1}}) {
		t.Fatalf("flow after choosing the drawn card: %+v", s.question)
	}
}

func TestQuestionFlowRestartsForAnotherPrompt(t *testing.T) {
	s := newState(t0, 30*time.Second, true)
	p := questionPrompt()
	s.apply(approvals.PromptAppeared{Prompt: p}, t0)
	s.settle(t0)
	pressShown(t, s, RoleDeny, t0)
	s.apply(approvals.PromptResolved{Prompt: p, How: approvals.AnsweredElsewhere}, t0)
	p.ID = "q2"
	s.apply(approvals.PromptAppeared{Prompt: p}, t0)
	s.settle(t0)
	if f := s.flowFor(p); f.Card != 0 || f.Q != 0 {
		t.Fatalf("new question starts at card %d of question %d", f.Card, f.Q)
	}
}

func TestDesktopQuestionHasNoButtons(t *testing.T) {
	s := newState(t0, 30*time.Second, true)
	s.apply(approvals.PromptAppeared{Prompt: approvals.Prompt{Source: "desktop", ID: "d1", Tool: "AskUserQuestion", Arrived: t0}}, t0)
	s.settle(t0)
	for _, r := range []Role{RoleApprove, RoleDeny} {
		if d, ok := s.press(r, t0, t0); ok {
			t.Fatalf("%v decided a desktop question: %+v", r, d)
		}
	}
}

// TestQuestionCardEscapesHiddenCharacters: a card's text goes through the
// approval screen's layout, so a bidi override in an option label is
// drawn as an escape with the hidden-character warning, never obeyed.
func TestQuestionCardEscapesHiddenCharacters(t *testing.T) {
	p := questionPrompt()
	p.Questions.List[0].Options[0].Label = "safe \u202e; rm -rf ~"
	s := newState(t0, 30*time.Second, true)
	s.apply(approvals.PromptAppeared{Prompt: p}, t0)
	s.settle(t0)
	tool, hint, detail, verb := questionCard(questionsOf(p), s.flowFor(p))
	r, err := screens.NewRenderer(240, 240)
	if err != nil {
		t.Fatal(err)
	}
	d := r.Approval(r.NewFrame(), screens.ApprovalView{Tool: tool, Hint: hint, Detail: detail, ApproveVerb: verb, DenyVerb: "next"})
	if !d.Hidden {
		t.Fatalf("card %q drawn without the hidden-character warning", hint)
	}
}
