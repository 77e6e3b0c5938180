package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/claude-pi/claude-pi/actors/approvals"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
	"github.com/claude-pi/claude-pi/supervisor"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// hookAskJSON is Claude Code's PreToolUse input for an AskUserQuestion
// call with three options.
const hookAskJSON = `{"session_id":"9f3c2a10-7d1e-4b8a-bc55-2f6e1d0a9c77","cwd":"/home/ada/src/engine","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"AskUserQuestion","tool_use_id":"toolu_9",` +
	`"tool_input":{"questions":[{"question":"Which database?","header":"DB","options":[{"label":"Postgres","description":"relational"},{"label":"SQLite","description":"one file"},{"label":"Redis","description":"in memory"}],"multiSelect":false}]}}`

func TestHookAnswersAQuestion(t *testing.T) {
	t.Setenv("CLAUDE_CODE_ENTRYPOINT", "cli")
	p := startPi(t)
	dir := pairCLI(t, p, "laptop")
	answer := func(pv approvals.PromptView, a *approvals.Answer) {
		p.system.Root.Send(supervisor.ServicePID(p.system, "approvals"), approvals.Decide{Source: pv.Source, ID: pv.ID, Answer: a, By: "Claude_Pi"})
	}
	t.Run("the second option", func(t *testing.T) {
		h := startHook(dir, nil, hookAskJSON)
		pv := waitPrompt(t, p)
		if pv.Questions == nil || len(pv.Questions.List) != 1 || pv.Questions.List[0].Options[1].Label != "SQLite" || pv.Tool != "AskUserQuestion" {
			t.Fatalf("prompt on the Pi: %+v", pv)
		}
		answer(pv, &approvals.Answer{Choices: [][]int{{1}}})
		var o struct {
			HookSpecificOutput struct {
				HookEventName, PermissionDecision string
				UpdatedInput                      struct {
					Questions []hookbridge.Question
					Answers   map[string]string
				}
			}
		}
		got := h.Wait(t)
		if err := json.Unmarshal([]byte(got), &o); err != nil {
			t.Fatalf("hook printed %q: %v", got, err)
		}
		ho := o.HookSpecificOutput
		if ho.HookEventName != "PreToolUse" || ho.PermissionDecision != "allow" || ho.UpdatedInput.Answers["Which database?"] != "SQLite" || len(ho.UpdatedInput.Questions) != 1 {
			t.Fatalf("hook printed %s", got)
		}
		supervisortest.WaitFor(t, "the prompt resolved", func() bool { return len(p.pending(t)) == 0 })
	})
	t.Run("answer at the computer", func(t *testing.T) {
		h := startHook(dir, nil, hookAskJSON)
		answer(waitPrompt(t, p), &approvals.Answer{})
		if got := h.Wait(t); got != "" {
			t.Fatalf("hook printed %q, want nothing (the terminal asks)", got)
		}
		supervisortest.WaitFor(t, "the prompt resolved", func() bool { return len(p.pending(t)) == 0 })
	})
	t.Run("a plan approved", func(t *testing.T) {
		in := strings.NewReplacer(`"PreToolUse"`, `"PermissionRequest"`, `"tool_name":"AskUserQuestion"`, `"tool_name":"ExitPlanMode"`).Replace(hookAskJSON)
		in = in[:strings.Index(in, `"tool_input"`)] + `"tool_input":{"plan":"1. edit\n2. test","planFilePath":"/p.md"}}`
		h := startHook(dir, nil, in)
		pv := waitPrompt(t, p)
		if pv.Tool != "ExitPlanMode" || pv.Hint != "approve this plan? (2 lines)" || !strings.Contains(pv.Detail, "1. edit\n2. test") {
			t.Fatalf("plan on the Pi: %+v", pv)
		}
		p.system.Root.Send(supervisor.ServicePID(p.system, "approvals"), approvals.Decide{Source: pv.Source, ID: pv.ID, Decision: approvals.AllowOnce, By: "Claude_Pi"})
		got := h.Wait(t)
		if !strings.Contains(got, `"behavior":"allow"`) || !strings.Contains(got, `"updatedInput":{"plan":"1. edit\n2. test","planFilePath":"/p.md"}`) {
			t.Fatalf("hook printed %s", got)
		}
		supervisortest.WaitFor(t, "the prompt resolved", func() bool { return len(p.pending(t)) == 0 })
	})
	t.Run("another tool's PreToolUse", func(t *testing.T) {
		in := strings.Replace(hookAskJSON, `"tool_name":"AskUserQuestion"`, `"tool_name":"Bash"`, 1)
		if got := startHook(dir, nil, in).Wait(t); got != "" {
			t.Fatalf("hook printed %q for a Bash PreToolUse", got)
		}
		if n := len(p.pending(t)); n != 0 {
			t.Fatalf("%d prompts on the Pi for a Bash PreToolUse", n)
		}
	})
}
