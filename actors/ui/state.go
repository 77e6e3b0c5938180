package ui

import (
	"fmt"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
	ableactor "github.com/claude-pi/claude-pi/actors/ble"
	abuddy "github.com/claude-pi/claude-pi/actors/buddy"
	"github.com/claude-pi/claude-pi/boards/sim"
	"github.com/claude-pi/claude-pi/protocols/buddy"
)

// By is how the Pi's own buttons sign their decisions.
const By = "Claude_Pi"

// state is what the screen knows, fed by the approvals, buddy and ble
// services. It is pure: no I/O, no clock of its own.
type state struct {
	prompts []approvals.PromptView // arrival order, as approvals keeps them
	sending map[key]bool           // pressed here, PromptDecided not back yet
	link    *ableactor.LinkState
	buddy   *abuddy.State
}

type key struct{ source, id string }

func keyOf(p approvals.Prompt) key { return key{p.Source, p.ID} }

func newState() *state { return &state{sending: map[key]bool{}} }

// apply folds one approvals event into the prompt list.
func (s *state) apply(msg any) {
	switch m := msg.(type) {
	case approvals.Pending:
		s.prompts = append(s.prompts[:0:0], m.Prompts...)
		for k := range s.sending {
			if s.find(k) < 0 {
				delete(s.sending, k)
			}
		}
	case approvals.PromptAppeared:
		if s.find(keyOf(m.Prompt)) < 0 {
			s.prompts = append(s.prompts, approvals.PromptView{Prompt: m.Prompt})
		}
	case approvals.PromptDecided:
		if i := s.find(keyOf(m.Prompt)); i >= 0 {
			v := &s.prompts[i]
			v.Decided, v.Decision, v.By = true, m.Decision, m.By
		}
		delete(s.sending, keyOf(m.Prompt))
	case approvals.PromptRearmed:
		if i := s.find(keyOf(m.Prompt)); i >= 0 {
			s.prompts[i].Decided = false
		}
		delete(s.sending, keyOf(m.Prompt))
	case approvals.PromptResolved:
		if i := s.find(keyOf(m.Prompt)); i >= 0 {
			s.prompts = append(s.prompts[:i], s.prompts[i+1:]...)
		}
		delete(s.sending, keyOf(m.Prompt))
	case ableactor.LinkState:
		s.link = &m
	case abuddy.State:
		s.buddy = &m
	}
}

func (s *state) find(k key) int {
	for i, p := range s.prompts {
		if keyOf(p.Prompt) == k {
			return i
		}
	}
	return -1
}

// press turns a short press of A or B into a decision for the oldest
// prompt nobody has decided yet. ok is false when there is nothing to
// decide: a press with no prompt sends nothing.
func (s *state) press(p sim.Press) (d approvals.Decide, ok bool) {
	var dec buddy.Decision
	switch {
	case p.Long:
		return d, false // long presses are the menu's, in the later UI
	case p.Name == sim.ButtonA:
		dec = buddy.Once
	case p.Name == sim.ButtonB:
		dec = buddy.Deny
	default:
		return d, false
	}
	for _, v := range s.prompts {
		k := keyOf(v.Prompt)
		if v.Decided || s.sending[k] {
			continue
		}
		s.sending[k] = true
		return approvals.Decide{Source: v.Source, ID: v.ID, Decision: dec, By: By}, true
	}
	return d, false
}

// refused undoes the "sent..." of a decision approvals did not accept.
func (s *state) refused(d approvals.Decide) { delete(s.sending, key{d.Source, d.ID}) }

// screen is the status screen for now.
func (s *state) screen(board string, services []sim.Service, now time.Time) sim.StatusScreen {
	sc := sim.StatusScreen{Board: board, Services: services, Now: now, Link: s.linkLine()}
	// The prompt the buttons act on (the oldest undecided), else the
	// oldest one, showing "sent...".
	idx := -1
	for i, v := range s.prompts {
		if !v.Decided && !s.sending[keyOf(v.Prompt)] {
			idx = i
			break
		}
	}
	if idx < 0 && len(s.prompts) > 0 {
		idx = 0
	}
	if idx >= 0 {
		v := s.prompts[idx]
		age := time.Duration(0)
		if !v.Arrived.IsZero() {
			age = max(0, now.Sub(v.Arrived))
		}
		sc.Prompt = &sim.PromptPanel{
			Tool: v.Tool, Hint: v.Hint, Age: age,
			Sent: v.Decided || s.sending[keyOf(v.Prompt)],
			More: len(s.prompts) - 1,
		}
	}
	return sc
}

// linkLine is one line about the desktop: who is connected and how safely.
func (s *state) linkLine() string {
	switch {
	case s.link == nil:
		return "link: starting"
	case s.link.Passkey != "":
		return "pair: enter " + s.link.Passkey + " on the desktop"
	case !s.link.Connected:
		if s.link.AdvertiseErr != "" {
			return "link: " + s.link.AdvertiseErr
		}
		return "waiting for the Claude desktop"
	}
	line := "desktop connected"
	if s.buddy != nil && s.buddy.Owner != "" {
		line = s.buddy.Owner + "'s desktop"
	}
	if s.buddy != nil && s.buddy.Snapshot != nil {
		h := s.buddy.Snapshot
		line += fmt.Sprintf(" · %d/%d run", h.Running, h.Total)
	}
	if !s.link.Secured {
		line += " · UNENCRYPTED"
	}
	return line
}
