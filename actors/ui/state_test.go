package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
	ableactor "github.com/claude-pi/claude-pi/actors/ble"
	"github.com/claude-pi/claude-pi/boards/sim"
	"github.com/claude-pi/claude-pi/protocols/buddy"
)

func prompt(id string) approvals.Prompt {
	return approvals.Prompt{Source: "desktop", ID: id, Tool: "Bash", Hint: "npm test", Arrived: time.Unix(1000, 0)}
}

var (
	pressA = sim.Press{Name: sim.ButtonA}
	pressB = sim.Press{Name: sim.ButtonB}
)

func TestPressDecidesTheOldestUndecidedPrompt(t *testing.T) {
	type step struct {
		event  any       // applied first, if not nil
		press  sim.Press // then pressed, if Name != ""
		wantID string    // "" = nothing sent
		want   buddy.Decision
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"no prompt: nothing", []step{{press: pressA}, {press: pressB}}},
		{"A approves once", []step{{event: approvals.PromptAppeared{Prompt: prompt("p1")}, press: pressA, wantID: "p1", want: buddy.Once}}},
		{"B denies", []step{{event: approvals.PromptAppeared{Prompt: prompt("p1")}, press: pressB, wantID: "p1", want: buddy.Deny}}},
		{"long press decides nothing", []step{{event: approvals.PromptAppeared{Prompt: prompt("p1")}, press: sim.Press{Name: "A", Long: true}}}},
		{"second press goes to the next prompt, then nothing", []step{
			{event: approvals.Pending{Prompts: []approvals.PromptView{{Prompt: prompt("old")}, {Prompt: prompt("new")}}}, press: pressA, wantID: "old", want: buddy.Once},
			{press: pressB, wantID: "new", want: buddy.Deny},
			{press: pressA},
		}},
		{"decided elsewhere is skipped", []step{
			{event: approvals.Pending{Prompts: []approvals.PromptView{{Prompt: prompt("a"), Decided: true, By: "CoreS3"}, {Prompt: prompt("b")}}}, press: pressA, wantID: "b", want: buddy.Once},
		}},
		{"re-armed prompt can be pressed again", []step{
			{event: approvals.PromptAppeared{Prompt: prompt("p")}, press: pressA, wantID: "p", want: buddy.Once},
			{event: approvals.PromptDecided{Prompt: prompt("p"), Decision: buddy.Once, By: By}, press: pressA},
			{event: approvals.PromptRearmed{Prompt: prompt("p")}, press: pressA, wantID: "p", want: buddy.Once},
		}},
		{"resolved prompt is gone", []step{
			{event: approvals.PromptAppeared{Prompt: prompt("p")}},
			{event: approvals.PromptResolved{Prompt: prompt("p"), How: approvals.AnsweredElsewhere}, press: pressA},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newState()
			for i, st := range tt.steps {
				if st.event != nil {
					s.apply(st.event)
				}
				if st.press.Name == "" {
					continue
				}
				d, ok := s.press(st.press)
				switch {
				case st.wantID == "" && ok:
					t.Fatalf("step %d: sent %+v, want nothing", i, d)
				case st.wantID != "" && (!ok || d.ID != st.wantID || d.Decision != st.want || d.By != By || d.Source != "desktop"):
					t.Fatalf("step %d: sent %+v ok=%v, want %s for %q by %s", i, d, ok, st.want, st.wantID, By)
				}
			}
		})
	}
}

func TestRefusedPressShowsTheButtonsAgain(t *testing.T) {
	s := newState()
	s.apply(approvals.PromptAppeared{Prompt: prompt("p")})
	d, _ := s.press(pressA)
	now := time.Unix(1012, 0)
	if sc := s.screen("sim", nil, now); sc.Prompt == nil || !sc.Prompt.Sent {
		t.Fatalf("after a press the screen shows %+v, want sent", sc.Prompt)
	}
	s.refused(d)
	sc := s.screen("sim", nil, now)
	if sc.Prompt == nil || sc.Prompt.Sent || sc.Prompt.Age != 12*time.Second || sc.Prompt.Tool != "Bash" {
		t.Fatalf("after a refusal the screen shows %+v, want the buttons and age 12 s", sc.Prompt)
	}
	if _, ok := s.press(pressB); !ok {
		t.Fatal("a refused prompt cannot be pressed again")
	}
}

func TestScreenShowsTheOldestUndecidedAndTheQueue(t *testing.T) {
	s := newState()
	s.apply(approvals.Pending{Prompts: []approvals.PromptView{{Prompt: prompt("a"), Decided: true}, {Prompt: approvals.Prompt{Source: "desktop", ID: "b", Tool: "Edit"}}}})
	sc := s.screen("sim", nil, time.Unix(1000, 0))
	if sc.Prompt == nil || sc.Prompt.Tool != "Edit" || sc.Prompt.Sent || sc.Prompt.More != 1 {
		t.Fatalf("panel %+v, want Edit with buttons and 1 more", sc.Prompt)
	}
	s.apply(approvals.PromptResolved{Prompt: prompt("a")})
	s.apply(approvals.PromptResolved{Prompt: approvals.Prompt{Source: "desktop", ID: "b"}})
	if sc := s.screen("sim", nil, time.Unix(1000, 0)); sc.Prompt != nil {
		t.Fatalf("panel %+v with no prompt pending", sc.Prompt)
	}
}

func TestLinkLine(t *testing.T) {
	tests := []struct {
		link *ableactor.LinkState
		want string
	}{
		{nil, "starting"},
		{&ableactor.LinkState{Advertising: true}, "waiting for the Claude desktop"},
		{&ableactor.LinkState{Passkey: "042917"}, "042917"},
		{&ableactor.LinkState{Connected: true}, "UNENCRYPTED"},
	}
	for _, tt := range tests {
		s := newState()
		if tt.link != nil {
			s.apply(*tt.link)
		}
		if got := s.linkLine(); !strings.Contains(got, tt.want) {
			t.Errorf("link %+v: line %q, want it to contain %q", tt.link, got, tt.want)
		}
	}
}
