package approvals

import (
	"errors"
	"reflect"
	"testing"

	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

func questionPrompt(id string) Prompt {
	return Prompt{ID: id, Tool: hookbridge.ToolAskUserQuestion, Questions: &Questions{List: []Question{
		{Question: "Which database?", Options: []Choice{{Label: "Postgres"}, {Label: "SQLite"}, {Label: "Redis"}}},
		{Question: "Which checks?", MultiSelect: true, Options: []Choice{{Label: "lint"}, {Label: "test"}}},
	}}}
}

func TestQuestionIsAnsweredWithItsOptions(t *testing.T) {
	s := newState()
	s.setPrompts(SetPrompts{Source: "cli:s", LinkUp: true, Prompts: []Prompt{questionPrompt("q"), {ID: "b", Tool: "Bash"}}}, t0)
	refused := map[string]struct {
		d    Decide
		want error
	}{
		"once for a question":     {Decide{Source: "cli:s", ID: "q", Decision: AllowOnce}, ErrQuestion},
		"answer for a tool call":  {Decide{Source: "cli:s", ID: "b", Answer: &Answer{Choices: [][]int{{0}}}}, ErrNotAQuestion},
		"too few answers":         {Decide{Source: "cli:s", ID: "q", Answer: &Answer{Choices: [][]int{{1}}}}, ErrBadAnswer},
		"two for a single choice": {Decide{Source: "cli:s", ID: "q", Answer: &Answer{Choices: [][]int{{0, 1}, {0}}}}, ErrBadAnswer},
		"no such option":          {Decide{Source: "cli:s", ID: "q", Answer: &Answer{Choices: [][]int{{3}, {0}}}}, ErrBadAnswer},
	}
	for name, c := range refused {
		if _, err := s.decide(c.d, t0); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	a := &Answer{Choices: [][]int{{1}, {0, 1}}}
	out, err := s.decide(Decide{Source: "cli:s", ID: "q", Answer: a, By: "Claude_Pi"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	d, ok := out[0].(*Decided)
	if !ok || d.Answer != a || d.Decision != AllowOnce || d.Attempt != 1 {
		t.Fatalf("handed over %+v", out[0])
	}
	// The source drops the answered question: it was answered here.
	out = s.setPrompts(SetPrompts{Source: "cli:s", LinkUp: true, Prompts: []Prompt{{ID: "b", Tool: "Bash"}}}, t0)
	if r, ok := out[0].(PromptResolved); !ok || r.How != ApprovedHere || r.By != "Claude_Pi" {
		t.Fatalf("resolved %+v", out)
	}
}

func TestQuestionLeftToTheComputer(t *testing.T) {
	s := newState()
	s.setPrompts(SetPrompts{Source: "cli:s", LinkUp: true, Prompts: []Prompt{questionPrompt("q")}}, t0)
	out, err := s.decide(Decide{Source: "cli:s", ID: "q", Answer: &Answer{}}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if d := out[0].(*Decided); d.Answer == nil || d.Answer.Choices != nil {
		t.Fatalf("handed over %+v", d)
	}
	if got := s.pending().Prompts[0].Questions; !reflect.DeepEqual(got, questionPrompt("q").Questions) {
		t.Fatalf("pending lost the questions: %+v", got)
	}
}
