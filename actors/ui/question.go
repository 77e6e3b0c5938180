package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/claude-pi/claude-pi/actors/approvals"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

// A question prompt (AskUserQuestion from a terminal) is answered one
// card at a time: each card is one option of the current question, then,
// for a multi-select question, "done", then always "answer at the
// computer". Deny steps to the next card, approve chooses the card on the
// screen (toggles it, for a multi-select option). Only a card the panel
// has drawn is ever chosen (settle records it; press checks it).

// AtComputer is the card that leaves the question to the terminal's own
// dialog.
const AtComputer = "answer at the computer"

// DesktopQuestion is what a desktop AskUserQuestion shows in place of the
// buttons: the Hardware Buddy protocol carries neither the question nor
// an answer, so once/deny would mean nothing.
const DesktopQuestion = "answer at the computer"

// questionFlow is where the user is in the shown question prompt.
type questionFlow struct {
	of      key // the prompt; another one starts afresh
	q       int // the question on the screen
	card    int // the card on the screen
	toggled []bool
	picked  [][]int // answers to the questions before q
}

// questionsOf is the prompt's questions, nil for any other prompt.
func questionsOf(p approvals.Prompt) []hookbridge.Question {
	if p.Questions == nil {
		return nil
	}
	return p.Questions.List
}

// isDesktopQuestion: a desktop prompt for AskUserQuestion, which the Pi
// can only point at the computer for.
func isDesktopQuestion(p approvals.Prompt) bool {
	return p.Source == "desktop" && p.Tool == hookbridge.ToolAskUserQuestion
}

// flowFor is the flow of prompt p, restarted if it belonged to another.
func (s *state) flowFor(p approvals.Prompt) *questionFlow {
	if s.question.of != keyOf(p) || s.question.q >= len(questionsOf(p)) {
		s.question = questionFlow{of: keyOf(p)}
	}
	qs := questionsOf(p)
	if len(s.question.toggled) != len(qs[s.question.q].Options) {
		s.question.toggled = make([]bool, len(qs[s.question.q].Options))
	}
	return &s.question
}

// cards is how many cards question q has.
func cards(q hookbridge.Question) int {
	n := len(q.Options) + 1 // + answer at the computer
	if q.MultiSelect {
		n++ // + done
	}
	return n
}

// cardID names what card the flow is on, for settle to record and press
// to compare: a press acts only on the card the last frame showed.
func (f *questionFlow) cardID() string {
	return fmt.Sprintf("%d/%d/%v", f.q, f.card, f.toggled)
}

// step is deny: the next card, round the end.
func (f *questionFlow) step(qs []hookbridge.Question) {
	f.card = (f.card + 1) % cards(qs[f.q])
}

// choose is approve on the card on the screen. It returns the answer
// once every question is answered, or at once for "answer at the
// computer"; done is false while more questions or toggles follow.
func (f *questionFlow) choose(qs []hookbridge.Question) (a *approvals.Answer, done bool) {
	q := qs[f.q]
	switch n := len(q.Options); {
	case f.card == cards(q)-1:
		return &approvals.Answer{}, true
	case f.card < n && q.MultiSelect:
		f.toggled[f.card] = !f.toggled[f.card]
		return nil, false
	case f.card < n:
		f.picked = append(f.picked, []int{f.card})
	default: // done
		var c []int
		for i, on := range f.toggled {
			if on {
				c = append(c, i)
			}
		}
		if len(c) == 0 {
			return nil, false // nothing chosen yet: done means nothing
		}
		f.picked = append(f.picked, c)
	}
	if len(f.picked) == len(qs) {
		return &approvals.Answer{Choices: slices.Clone(f.picked)}, true
	}
	f.q, f.card, f.toggled = f.q+1, 0, make([]bool, len(qs[f.q+1].Options))
	return nil, false
}

// questionCard is the approval view's text for the flow's card. The
// card's choice comes first, so that it is on the first page whatever
// the length of the question, which follows it; the tool line is the
// question's header. Every string goes through the approval screen's
// layout, which escapes what cannot be shown and pages what does not fit.
func questionCard(qs []hookbridge.Question, f *questionFlow) (tool, hint, detail, approveVerb string) {
	q := qs[f.q]
	tool = "Question"
	if q.Header != "" {
		tool = q.Header
	}
	var b strings.Builder
	n := len(q.Options)
	switch {
	case f.card < n:
		o := q.Options[f.card]
		mark := "▸ "
		if q.MultiSelect {
			mark = "[ ] "
			if f.toggled[f.card] {
				mark = "[x] "
			}
		}
		hint = mark + o.Label
		if o.Description != "" {
			b.WriteString(o.Description + "\n")
		}
		fmt.Fprintf(&b, "(option %d of %d", f.card+1, n)
		if q.MultiSelect {
			b.WriteString(", choose any")
		}
		b.WriteString(")")
		approveVerb = "choose"
		if q.MultiSelect {
			approveVerb = "toggle"
		}
	case f.card == cards(q)-1:
		hint = "▸ " + AtComputer
		b.WriteString("(the terminal asks instead)")
		approveVerb = "choose"
	default:
		var chosen []string
		for i, on := range f.toggled {
			if on {
				chosen = append(chosen, q.Options[i].Label)
			}
		}
		hint = "▸ done"
		if len(chosen) == 0 {
			b.WriteString("(nothing chosen yet)")
		} else {
			b.WriteString("chosen: " + strings.Join(chosen, ", "))
		}
		approveVerb = "done"
	}
	b.WriteString("\n")
	if len(qs) > 1 {
		fmt.Fprintf(&b, "question %d of %d: ", f.q+1, len(qs))
	}
	b.WriteString(q.Question)
	return tool, hint, b.String(), approveVerb
}
