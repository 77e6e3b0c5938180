package ui

import (
	"github.com/claude-pi/claude-pi/actors/approvals"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

// A question prompt (AskUserQuestion from a terminal) is answered one
// card at a time (approvals.CardFlow): deny steps to the next card,
// approve chooses the card on the screen. Only a card the panel has drawn
// is ever chosen (settle records it; press checks it).

// AtComputer is the card that leaves the question to the terminal.
const AtComputer = approvals.AtComputer

// DesktopQuestion is what a desktop AskUserQuestion shows in place of the
// buttons: the Hardware Buddy protocol carries neither the question nor
// an answer, so once/deny would mean nothing.
const DesktopQuestion = "answer at the computer"

// questionFlow is where the user is in the shown question prompt.
type questionFlow struct {
	of key // the prompt; another one starts afresh
	approvals.CardFlow
}

// questionsOf is the prompt's questions, nil for any other prompt.
func questionsOf(p approvals.Prompt) []approvals.Question {
	if p.Questions == nil || len(p.Questions.List) == 0 {
		return nil
	}
	return p.Questions.List
}

// isDesktopQuestion: a desktop prompt for AskUserQuestion, which the Pi
// can only point at the computer for.
func isDesktopQuestion(p approvals.Prompt) bool {
	return p.Source == "desktop" && p.Tool == hookbridge.ToolAskUserQuestion
}

// flowFor is the flow of prompt p (which has questions), restarted if it
// belonged to another.
func (s *state) flowFor(p approvals.Prompt) *questionFlow {
	if s.question.of != keyOf(p) {
		s.question = questionFlow{of: keyOf(p)}
	}
	s.question.Fit(questionsOf(p))
	return &s.question
}

// cardID names the card the flow is on (approvals.CardFlow.ID).
func (f *questionFlow) cardID() string { return f.ID() }

// questionCard is the approval view's text for the flow's card.
func questionCard(qs []approvals.Question, f *questionFlow) (tool, hint, detail, approveVerb string) {
	c := f.Text(qs)
	return c.Title, c.Choice, c.Detail, c.Verb
}
