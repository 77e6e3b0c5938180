package approvals

import (
	"fmt"
	"slices"
	"strings"
)

// A question prompt is answered one card at a time, on the Pi's buttons
// and on the CoreS3's approve/deny alike: each card is one option of the
// current question, then, for a multi-select question, "done", then
// always "answer at the computer". Deny steps to the next card; approve
// chooses the card shown (toggles it, for a multi-select option).

// AtComputer is the card that leaves the question to the terminal's own
// dialog.
const AtComputer = "answer at the computer"

// CardFlow is where the user is in a question prompt's cards.
type CardFlow struct {
	Q, Card int // the question and its card on the screen
	Toggled []bool
	Picked  [][]int // answers to the questions before Q
}

// Cards is how many cards question q has.
func Cards(q Question) int {
	n := len(q.Options) + 1 // + answer at the computer
	if q.MultiSelect {
		n++ // + done
	}
	return n
}

// Fit restarts f unless it is a place within qs.
func (f *CardFlow) Fit(qs []Question) {
	if f.Q >= len(qs) || len(f.Picked) != f.Q || f.Card >= Cards(qs[f.Q]) || len(f.Toggled) != len(qs[f.Q].Options) {
		*f = CardFlow{Toggled: make([]bool, len(qs[0].Options))}
	}
}

// ID names the card the flow is on, toggles included: a press acts only
// on the card the screen drew.
func (f *CardFlow) ID() string { return fmt.Sprintf("%d/%d/%v", f.Q, f.Card, f.Toggled) }

// Step is deny: the next card, round the end.
func (f *CardFlow) Step(qs []Question) { f.Card = (f.Card + 1) % Cards(qs[f.Q]) }

// Choose is approve on the card shown. It returns the answer once every
// question is answered, or at once for "answer at the computer"; done is
// false while more questions or toggles follow.
func (f *CardFlow) Choose(qs []Question) (a *Answer, done bool) {
	q := qs[f.Q]
	switch n := len(q.Options); {
	case f.Card == Cards(q)-1:
		return &Answer{}, true
	case f.Card < n && q.MultiSelect:
		f.Toggled[f.Card] = !f.Toggled[f.Card]
		return nil, false
	case f.Card < n:
		f.Picked = append(f.Picked, []int{f.Card})
	default: // done
		var c []int
		for i, on := range f.Toggled {
			if on {
				c = append(c, i)
			}
		}
		if len(c) == 0 {
			return nil, false // nothing chosen yet: done means nothing
		}
		f.Picked = append(f.Picked, c)
	}
	if len(f.Picked) == len(qs) {
		return &Answer{Choices: slices.Clone(f.Picked)}, true
	}
	f.Q, f.Card, f.Toggled = f.Q+1, 0, make([]bool, len(qs[f.Q+1].Options))
	return nil, false
}

// CardText is what a card says: Title is the question's header, Choice
// what approve would choose (first, so that it is on the first page
// whatever the question's length), Detail the option's description and
// the question, Verb what approve does ("choose", "toggle", "done").
type CardText struct{ Title, Choice, Detail, Verb string }

// Text is the card the flow is on. The strings are Claude's as they
// came: each screen escapes what it cannot show.
func (f *CardFlow) Text(qs []Question) CardText {
	q := qs[f.Q]
	c := CardText{Title: "Question", Verb: "choose"}
	if q.Header != "" {
		c.Title = q.Header
	}
	var b strings.Builder
	switch n := len(q.Options); {
	case f.Card < n:
		o := q.Options[f.Card]
		mark := "▸ "
		if q.MultiSelect {
			mark, c.Verb = "[ ] ", "toggle"
			if f.Toggled[f.Card] {
				mark = "[x] "
			}
		}
		c.Choice = mark + o.Label
		if o.Description != "" {
			b.WriteString(o.Description + "\n")
		}
		fmt.Fprintf(&b, "(option %d of %d", f.Card+1, n)
		if q.MultiSelect {
			b.WriteString(", choose any")
		}
		b.WriteString(")")
	case f.Card == Cards(q)-1:
		c.Choice = "▸ " + AtComputer
		b.WriteString("(the terminal asks instead)")
	default:
		var chosen []string
		for i, on := range f.Toggled {
			if on {
				chosen = append(chosen, q.Options[i].Label)
			}
		}
		c.Choice, c.Verb = "▸ done", "done"
		if len(chosen) == 0 {
			b.WriteString("(nothing chosen yet)")
		} else {
			b.WriteString("chosen: " + strings.Join(chosen, ", "))
		}
	}
	b.WriteString("\n")
	if len(qs) > 1 {
		fmt.Fprintf(&b, "question %d of %d: ", f.Q+1, len(qs))
	}
	b.WriteString(q.Question)
	c.Detail = b.String()
	return c
}
