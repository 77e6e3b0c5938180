package hookbridge

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Tools whose calls the Pi answers with more than once/deny.
const (
	// ToolAskUserQuestion is Claude asking the user one to four
	// multiple-choice questions. Claude Code runs it without a
	// PermissionRequest; its answers come from a PreToolUse hook that
	// allows it with updatedInput (QuestionOutput).
	ToolAskUserQuestion = "AskUserQuestion"
	// ToolExitPlanMode is Claude asking to leave plan mode with a plan
	// (tool_input.plan). It goes through PermissionRequest like any
	// tool: Describe puts the whole plan in the detail, paged on the Pi.
	ToolExitPlanMode = "ExitPlanMode"
)

// EventPreToolUse is the hook event through which AskUserQuestion is
// answered.
const EventPreToolUse = "PreToolUse"

// Limits of a question as the hook sends it to the Pi. Claude Code asks
// one to four questions of two to four options each; a little room is
// left, and anything beyond is refused (the terminal asks instead), never
// cut: an answer must be chosen from what the screen showed whole.
const (
	MaxQuestions         = 4
	MaxOptions           = 6
	MaxQuestionText      = 1024
	MaxQuestionHeader    = 64
	MaxOptionLabel       = 256
	MaxOptionDescription = 1024
)

// Question is one of AskUserQuestion's questions, as the Pi shows it. The
// text is exactly Claude's (validated, not rewritten): the screens escape
// what they cannot show, and the hook maps the chosen indices back to its
// own copy of the labels (Answers), so nothing the Pi sends back is
// ever a label.
type Question struct {
	Question    string   `json:"question"`
	Header      string   `json:"header,omitempty"`
	Options     []Option `json:"options"`
	MultiSelect bool     `json:"multiSelect,omitempty"`
}

// Option is one choice of a Question.
type Option struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// ParseQuestions reads AskUserQuestion's tool_input. Unknown fields (an
// option's markdown preview, a newer Claude Code's additions) are ignored
// here and echoed untouched by QuestionOutput.
func ParseQuestions(toolInput json.RawMessage) ([]Question, error) {
	var in struct {
		Questions []Question `json:"questions"`
	}
	if err := json.Unmarshal(toolInput, &in); err != nil {
		return nil, fmt.Errorf("%w: AskUserQuestion input: %v", ErrHookInput, err)
	}
	if err := CheckQuestions(in.Questions); err != nil {
		return nil, err
	}
	return in.Questions, nil
}

// CheckQuestions checks questions against the limits: 1..MaxQuestions
// questions, each with a text and 2..MaxOptions options with distinct,
// non-empty labels, all UTF-8 and within their sizes.
func CheckQuestions(qs []Question) error {
	if len(qs) == 0 || len(qs) > MaxQuestions {
		return fmt.Errorf("%w: %d questions, want 1 to %d", ErrRequest, len(qs), MaxQuestions)
	}
	seenText := map[string]bool{}
	for i, q := range qs {
		name := "question " + strconv.Itoa(i+1)
		if err := check(field{name, q.Question, MaxQuestionText, true}, field{name + " header", q.Header, MaxQuestionHeader, false}); err != nil {
			return err
		}
		// answers is keyed by the question text: two equal texts could
		// not both be answered.
		if seenText[q.Question] {
			return fmt.Errorf("%w: %s repeats an earlier question's text", ErrRequest, name)
		}
		seenText[q.Question] = true
		if len(q.Options) < 2 || len(q.Options) > MaxOptions {
			return fmt.Errorf("%w: %s has %d options, want 2 to %d", ErrRequest, name, len(q.Options), MaxOptions)
		}
		seen := map[string]bool{}
		for j, o := range q.Options {
			on := name + " option " + strconv.Itoa(j+1)
			if err := check(field{on, o.Label, MaxOptionLabel, true}, field{on + " description", o.Description, MaxOptionDescription, false}); err != nil {
				return err
			}
			// A multi-select answer joins labels with ", ": a label with
			// one in it, or two equal labels, would read ambiguously.
			if seen[o.Label] || (q.MultiSelect && strings.Contains(o.Label, ", ")) {
				return fmt.Errorf("%w: %s label %q cannot be told apart in an answer", ErrRequest, on, Printable(o.Label, 32))
			}
			seen[o.Label] = true
		}
	}
	return nil
}

// CheckChoices checks the Pi's answer to qs: one list of option indices
// per question, in order; exactly one index for a single-select question,
// one or more distinct ones for a multi-select question.
func CheckChoices(qs []Question, choices [][]int) error {
	if len(choices) != len(qs) {
		return fmt.Errorf("%w: %d answers for %d questions", ErrRequest, len(choices), len(qs))
	}
	for i, c := range choices {
		q := qs[i]
		if len(c) == 0 || (!q.MultiSelect && len(c) != 1) {
			return fmt.Errorf("%w: question %d answered with %d options", ErrRequest, i+1, len(c))
		}
		seen := map[int]bool{}
		for _, j := range c {
			if j < 0 || j >= len(q.Options) || seen[j] {
				return fmt.Errorf("%w: question %d: option index %d is not one of its %d options, or repeats", ErrRequest, i+1, j, len(q.Options))
			}
			seen[j] = true
		}
	}
	return nil
}

// Answers is AskUserQuestion's answers map: question text → chosen
// label, a multi-select question's labels in the order of its options,
// joined with ", " (Claude Code's own format for typed answers).
func Answers(qs []Question, choices [][]int) (map[string]string, error) {
	if err := CheckChoices(qs, choices); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(qs))
	for i, q := range qs {
		picked := make([]bool, len(q.Options))
		for _, j := range choices[i] {
			picked[j] = true
		}
		var labels []string
		for j, o := range q.Options {
			if picked[j] {
				labels = append(labels, o.Label)
			}
		}
		out[q.Question] = strings.Join(labels, ", ")
	}
	return out, nil
}

// QuestionOutput is the PreToolUse hook output that answers an
// AskUserQuestion call: permissionDecision "allow" with updatedInput,
// which is the call's own tool_input (every field echoed as Claude sent
// it) plus answers. toolInput must be the input ParseQuestions read qs
// from.
func QuestionOutput(toolInput json.RawMessage, qs []Question, choices [][]int) ([]byte, error) {
	answers, err := Answers(qs, choices)
	if err != nil {
		return nil, err
	}
	var input map[string]json.RawMessage
	if err := json.Unmarshal(toolInput, &input); err != nil || input == nil {
		return nil, fmt.Errorf("%w: AskUserQuestion input is not an object", ErrHookInput)
	}
	a, _ := json.Marshal(answers) // cannot fail: strings only
	input["answers"] = a
	var o struct {
		HookSpecificOutput struct {
			HookEventName      string                     `json:"hookEventName"`
			PermissionDecision string                     `json:"permissionDecision"`
			UpdatedInput       map[string]json.RawMessage `json:"updatedInput"`
		} `json:"hookSpecificOutput"`
	}
	o.HookSpecificOutput.HookEventName = EventPreToolUse
	o.HookSpecificOutput.PermissionDecision = BehaviorAllow
	o.HookSpecificOutput.UpdatedInput = input
	b, err := json.Marshal(o)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrHookInput, err)
	}
	return append(b, '\n'), nil
}

// checkChoicesShape bounds a Decision's choices before the hook, which
// knows the questions, checks them with CheckChoices.
func checkChoicesShape(choices [][]int) error {
	if len(choices) > MaxQuestions {
		return fmt.Errorf("%w: %d answers, more than %d", ErrRequest, len(choices), MaxQuestions)
	}
	for _, c := range choices {
		if len(c) > MaxOptions {
			return fmt.Errorf("%w: an answer picks %d options, more than %d", ErrRequest, len(c), MaxOptions)
		}
	}
	return nil
}

// questionsValid is CheckQuestions for a PermissionRequest: none is fine.
func questionsValid(qs []Question) error {
	if qs == nil {
		return nil
	}
	return CheckQuestions(qs)
}

// PlanAllowOutput is the PermissionRequest hook output that approves an
// ExitPlanMode call: allow, with updatedInput echoing the call's input.
// Claude Code keeps its own plan dialog open on a bare allow for a tool
// that needs the user (requiresUserInteraction); an allow that carries
// the input is an answer, as for AskUserQuestion.
func PlanAllowOutput(toolInput json.RawMessage) ([]byte, error) {
	var input map[string]json.RawMessage
	if err := json.Unmarshal(toolInput, &input); err != nil || input == nil {
		return nil, fmt.Errorf("%w: ExitPlanMode input is not an object", ErrHookInput)
	}
	var o struct {
		HookSpecificOutput struct {
			HookEventName string `json:"hookEventName"`
			Decision      struct {
				Behavior     string                     `json:"behavior"`
				UpdatedInput map[string]json.RawMessage `json:"updatedInput"`
			} `json:"decision"`
		} `json:"hookSpecificOutput"`
	}
	o.HookSpecificOutput.HookEventName = EventPermissionRequest
	o.HookSpecificOutput.Decision.Behavior = BehaviorAllow
	o.HookSpecificOutput.Decision.UpdatedInput = input
	b, err := json.Marshal(o)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrHookInput, err)
	}
	return append(b, '\n'), nil
}
