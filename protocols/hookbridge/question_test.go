package hookbridge

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// askInput is an AskUserQuestion tool_input as Claude Code sends it,
// with a field the bridge does not know (markdown), which must be echoed.
const askInput = `{"questions":[` +
	`{"question":"Which database?","header":"DB","options":[{"label":"Postgres","description":"relational"},{"label":"SQLite","description":"a file","markdown":"x"},{"label":"Redis"}],"multiSelect":false},` +
	`{"question":"Which checks?","header":"CI","options":[{"label":"lint"},{"label":"test"},{"label":"fuzz"}],"multiSelect":true}]}`

func TestParseQuestions(t *testing.T) {
	qs, err := ParseQuestions(json.RawMessage(askInput))
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 2 || qs[0].Header != "DB" || len(qs[0].Options) != 3 || qs[0].Options[1].Label != "SQLite" || qs[0].MultiSelect || !qs[1].MultiSelect {
		t.Fatalf("parsed %+v", qs)
	}
}

func TestParseQuestionsRefuses(t *testing.T) {
	opts := `[{"label":"a"},{"label":"b"}]`
	bad := map[string]string{
		"not an object":    `[1]`,
		"no questions":     `{"questions":[]}`,
		"five questions":   `{"questions":[` + strings.Repeat(`{"question":"q","options":`+opts+`},`, 4) + `{"question":"q5","options":` + opts + `}]}`,
		"one option":       `{"questions":[{"question":"q","options":[{"label":"a"}]}]}`,
		"seven options":    `{"questions":[{"question":"q","options":[` + strings.Repeat(`{"label":"a"},`, 6) + `{"label":"z"}]}]}`,
		"empty label":      `{"questions":[{"question":"q","options":[{"label":""},{"label":"b"}]}]}`,
		"equal labels":     `{"questions":[{"question":"q","options":[{"label":"a"},{"label":"a"}]}]}`,
		"comma in multi":   `{"questions":[{"question":"q","multiSelect":true,"options":[{"label":"a, b"},{"label":"c"}]}]}`,
		"empty question":   `{"questions":[{"question":"","options":` + opts + `}]}`,
		"same question":    `{"questions":[{"question":"q","options":` + opts + `},{"question":"q","options":` + opts + `}]}`,
		"long question":    `{"questions":[{"question":"` + strings.Repeat("x", MaxQuestionText+1) + `","options":` + opts + `}]}`,
		"long label":       `{"questions":[{"question":"q","options":[{"label":"` + strings.Repeat("x", MaxOptionLabel+1) + `"},{"label":"b"}]}]}`,
		"options not list": `{"questions":[{"question":"q","options":"a"}]}`,
	}
	for name, in := range bad {
		if qs, err := ParseQuestions(json.RawMessage(in)); err == nil {
			t.Errorf("%s: accepted %+v", name, qs)
		}
	}
}

func TestQuestionOutputEchoesInputAndAddsAnswers(t *testing.T) {
	qs, err := ParseQuestions(json.RawMessage(askInput))
	if err != nil {
		t.Fatal(err)
	}
	out, err := QuestionOutput(json.RawMessage(askInput), qs, [][]int{{1}, {2, 0}})
	if err != nil {
		t.Fatal(err)
	}
	var o struct {
		HookSpecificOutput struct {
			HookEventName      string
			PermissionDecision string
			UpdatedInput       struct {
				Questions json.RawMessage
				Answers   map[string]string
			}
		}
	}
	if err := json.Unmarshal(out, &o); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	h := o.HookSpecificOutput
	if h.HookEventName != "PreToolUse" || h.PermissionDecision != "allow" {
		t.Fatalf("output %s", out)
	}
	want := map[string]string{"Which database?": "SQLite", "Which checks?": "lint, fuzz"}
	if !reflect.DeepEqual(h.UpdatedInput.Answers, want) {
		t.Fatalf("answers %v, want %v", h.UpdatedInput.Answers, want)
	}
	var orig struct{ Questions json.RawMessage }
	json.Unmarshal([]byte(askInput), &orig)
	if string(h.UpdatedInput.Questions) != string(orig.Questions) {
		t.Fatalf("questions not echoed byte for byte:\n%s\n%s", h.UpdatedInput.Questions, orig.Questions)
	}
}

func TestCheckChoices(t *testing.T) {
	qs, _ := ParseQuestions(json.RawMessage(askInput))
	bad := map[string][][]int{
		"too few answers":  {{0}},
		"too many answers": {{0}, {0}, {0}},
		"two for single":   {{0, 1}, {0}},
		"none for multi":   {{0}, {}},
		"out of range":     {{3}, {0}},
		"negative":         {{-1}, {0}},
		"repeat in multi":  {{0}, {1, 1}},
	}
	for name, c := range bad {
		if err := CheckChoices(qs, c); !errors.Is(err, ErrRequest) {
			t.Errorf("%s: %v", name, err)
		}
		if _, err := QuestionOutput(json.RawMessage(askInput), qs, c); err == nil {
			t.Errorf("%s: an output was made", name)
		}
	}
	if err := CheckChoices(qs, [][]int{{2}, {0, 1, 2}}); err != nil {
		t.Fatal(err)
	}
}

func TestDecisionChoices(t *testing.T) {
	d, err := DecodeDecision([]byte(`{"id":"r","behavior":"allow","choices":[[1],[0,2]]}`), "r")
	if err != nil || !reflect.DeepEqual(d.Choices, [][]int{{1}, {0, 2}}) {
		t.Fatalf("%+v, %v", d, err)
	}
	for _, b := range []string{
		`{"id":"r","behavior":"deny","choices":[[1]]}`,
		`{"id":"r","behavior":"allow","choices":[[1],[1],[1],[1],[1]]}`,
		`{"id":"r","behavior":"allow","choices":[[1,2,3,4,5,6,7]]}`,
	} {
		if _, err := DecodeDecision([]byte(b), "r"); err == nil {
			t.Errorf("accepted %s", b)
		}
	}
}

func TestPermissionRequestQuestions(t *testing.T) {
	qs, _ := ParseQuestions(json.RawMessage(askInput))
	r := PermissionRequest{ID: "r", Session: "s", Tool: ToolAskUserQuestion, Questions: qs}
	b, _ := json.Marshal(r)
	got, err := DecodePermissionRequest(b)
	if err != nil || !reflect.DeepEqual(got, r) {
		t.Fatalf("round trip %+v, %v", got, err)
	}
	if _, err := DecodePermissionRequest([]byte(`{"id":"r","session":"s","tool":"AskUserQuestion","questions":[]}`)); err == nil {
		t.Fatal("accepted an empty question list")
	}
}

func FuzzQuestionOutput(f *testing.F) {
	f.Add([]byte(askInput), []byte(`[[1],[0,2]]`))
	f.Add([]byte(`{"questions":[{"question":"q","options":[{"label":"a"},{"label":"b"}]}],"answers":{"q":"x"}}`), []byte(`[[0]]`))
	f.Add([]byte(`{"questions":[{"question":"q\u202e","options":[{"label":"\u0000"},{"label":"b"}]}]}`), []byte(`[[1]]`))
	f.Add([]byte(`{"questions":null}`), []byte(`null`))
	f.Fuzz(func(t *testing.T, input, choices []byte) {
		qs, err := ParseQuestions(input)
		if err != nil {
			return
		}
		var c [][]int
		if json.Unmarshal(choices, &c) != nil {
			return
		}
		out, err := QuestionOutput(input, qs, c)
		if err != nil {
			if CheckChoices(qs, c) == nil {
				t.Fatalf("valid choices %v refused: %v", c, err)
			}
			return
		}
		var o struct {
			HookSpecificOutput struct {
				UpdatedInput struct{ Answers map[string]string }
			}
		}
		if err := json.Unmarshal(out, &o); err != nil {
			t.Fatalf("output not JSON: %v", err)
		}
		if len(o.HookSpecificOutput.UpdatedInput.Answers) != len(qs) {
			t.Fatalf("%d answers for %d questions", len(o.HookSpecificOutput.UpdatedInput.Answers), len(qs))
		}
		for i, q := range qs {
			a := o.HookSpecificOutput.UpdatedInput.Answers[q.Question]
			if !q.MultiSelect && a != q.Options[c[i][0]].Label {
				t.Fatalf("question %d answered %q, want %q", i, a, q.Options[c[i][0]].Label)
			}
		}
	})
}

func TestPlanAllowOutputEchoesTheInput(t *testing.T) {
	in := `{"plan":"1. edit\n2. test","planFilePath":"/home/ada/.claude/plans/x.md","allowedPrompts":[{"tool":"Bash","prompt":"run tests"}]}`
	out, err := PlanAllowOutput(json.RawMessage(in))
	if err != nil {
		t.Fatal(err)
	}
	var o struct {
		HookSpecificOutput struct {
			HookEventName string
			Decision      struct {
				Behavior     string
				UpdatedInput json.RawMessage
			}
		}
	}
	if err := json.Unmarshal(out, &o); err != nil {
		t.Fatal(err)
	}
	h := o.HookSpecificOutput
	var got, want any
	json.Unmarshal(h.Decision.UpdatedInput, &got)
	json.Unmarshal([]byte(in), &want)
	if h.HookEventName != "PermissionRequest" || h.Decision.Behavior != "allow" || !reflect.DeepEqual(got, want) {
		t.Fatalf("output %s", out)
	}
	if _, err := PlanAllowOutput(json.RawMessage(`null`)); err == nil {
		t.Fatal("a null input made an output")
	}
}
