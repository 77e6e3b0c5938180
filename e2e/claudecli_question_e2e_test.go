package e2e

// Claude's questions answered on the Pi (issue 34 item 1), under the real
// Claude Code CLI: the scripted model calls AskUserQuestion with three
// options, the PreToolUse hook `claude-pi hook install` wrote sends it to
// the sim appliance, B steps to the second option's card and A chooses
// it, and the model's next request carries that answer in the tool
// result. It also times the way back: question to answer at the model.
//
// `claude -p` disables AskUserQuestion ("AskUserQuestion is disabled for
// this session"), so the CLI runs interactively under tmux, as in
// TestClaudeCodeCLI's tmux scenario.

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

func askUserQuestion() toolCall {
	return toolCall{Name: "AskUserQuestion", Input: map[string]any{"questions": []any{map[string]any{
		"question": "Which database should the cache use?", "header": "DB", "multiSelect": false,
		"options": []any{
			map[string]any{"label": "Postgres", "description": "the server we already run"},
			map[string]any{"label": "SQLite", "description": "one file next to the binary"},
			map[string]any{"label": "Redis", "description": "in memory"},
		},
	}}}}
}

func TestClaudeCodeCLIQuestion(t *testing.T) {
	e2e(t)
	bin := claudeBinary(t)
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tmux not installed (.ci/run installs it)")
		}
		t.Skip("tmux not installed (apt-get install tmux)")
	}
	if out, err := exec.Command(bin, "--version").CombinedOutput(); err == nil {
		t.Logf("Claude Code %s", strings.TrimSpace(string(out)))
	}
	core := startCoreSim(t)
	r, _ := newClaudeRig(t, bin, core, nil)

	t.Run("question", func(t *testing.T) { questionScenario(t, r) })
	t.Run("question on the CoreS3", func(t *testing.T) { coreQuestionScenario(t, r, core) })
	t.Run("plan", func(t *testing.T) { planScenario(t, r) })
}

// startTmuxClaude runs the interactive CLI in a private tmux server, in
// the scenario's own directory, with the fake model scripted by p.
func startTmuxClaude(t *testing.T, r *claudeRig, name, prompt, mode string, p plan) (*tmuxTerm, string) {
	t.Helper()
	dir := filepath.Join(r.work, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	trustFolder(t, r.home, dir)
	supervisortest.Within(t, 30*time.Second, "no prompt left on the screen", func() bool { return len(r.a.UIView(t).Prompts) == 0 })
	r.api.script(name, p)
	term := &tmuxTerm{sock: filepath.Join(t.TempDir(), "tmux.sock")}
	args := append([]string{"new-session", "-d", "-x", "150", "-y", "45", "-c", dir, "env", "-i"}, claudeEnv(r.home, r.api.URL(), r.config)...)
	args = append(args, r.bin, "--permission-mode", mode, "[[scenario:"+name+"]] "+prompt)
	if out, err := term.run(args...); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	pid := term.panePID(t)
	t.Cleanup(func() {
		term.run("kill-server")
		supervisortest.Within(t, 10*time.Second, "the interactive claude gone", func() bool { return syscall.Kill(pid, 0) != nil })
	})
	return term, dir
}

func questionScenario(t *testing.T, r *claudeRig) {
	term, _ := startTmuxClaude(t, r, "question", "pick a database", "default",
		plan{turns: [][]toolCall{{askUserQuestion()}}, final: "Using SQLite, as you chose."})
	pv := r.shownFrom(t, "question", "")
	if pv.Tool != "AskUserQuestion" || pv.Questions == nil || len(pv.Questions.List) != 1 || len(pv.Questions.List[0].Options) != 3 {
		t.Fatalf("question on the Pi: %+v", pv)
	}
	// The first card is the first option; B steps to the second.
	supervisortest.Within(t, 10*time.Second, "the first option's card drawn", func() bool { return strings.HasPrefix(r.a.UIView(t).Card, "0/0/") })
	r.a.Press(t, "B")
	supervisortest.Within(t, 10*time.Second, "the second option's card drawn", func() bool { return strings.HasPrefix(r.a.UIView(t).Card, "0/1/") })
	pressed := time.Now()
	r.a.Press(t, "A")
	var answered time.Time
	supervisortest.Within(t, time.Minute, "the answer in the model's next request", func() bool {
		if len(r.api.Results("question")) == 0 {
			return false
		}
		answered = time.Now()
		return true
	})
	res := r.api.Results("question")
	if len(res) != 1 || res[0].IsError || !strings.Contains(res[0].Text, "SQLite") || strings.Contains(res[0].Text, "Postgres") ||
		!strings.Contains(res[0].Text, "Which database should the cache use?") {
		t.Fatalf("the tool result the model got: %+v", res)
	}
	t.Logf("tool result: %q", res[0].Text)
	if p := r.api.Prompts("question"); len(p) >= 2 {
		// From the model's question going out to its next request: the
		// hook, the Pi's screen, both presses, and the way back.
		t.Logf("question asked → answer at the model: %v; A pressed → answer at the model: %v",
			p[1].at.Sub(p[0].at).Round(time.Millisecond), answered.Sub(pressed).Round(time.Millisecond))
	}
	term.await(t, "the reply in the terminal", "Using SQLite, as you chose.")
	r.gone(t, pv.ID)
}

// planScenario: in plan mode the model writes its plan to the plan file
// Claude Code names, then calls ExitPlanMode (whose input carries no plan:
// Claude Code adds the file's text as tool_input.plan for the hooks). The
// Pi shows the plan whole and A approves it, which the model learns in
// the tool result: the same PermissionRequest path as any tool call.
//
// The fake model cannot write the file itself (the path is the session's),
// so its first call is a question (plan mode allows one; a Bash call is
// refused there without a prompt), whose card on the Pi is the moment
// the test writes the plan to the path the CLI told the model.
func planScenario(t *testing.T, r *claudeRig) {
	const thePlan = "## Plan: cache the parsed config\n1. Add a sync.Once around config.Load\n2. Invalidate it on SIGHUP\n3. Test: two loads read the file once"
	term, _ := startTmuxClaude(t, r, "plan", "plan the config cache", "plan", plan{
		turns: [][]toolCall{{askUserQuestion()}, {{Name: "ExitPlanMode", Input: map[string]any{}}}},
		final: "Plan approved; starting.",
	})
	pv := r.shownFrom(t, "plan", "")
	// The plan file is ~/.claude/plans/<the session's slug>.md; the slug
	// is in the session's transcript.
	var path string
	supervisortest.Within(t, 10*time.Second, "the session's slug in its transcript", func() bool {
		ts, _ := filepath.Glob(filepath.Join(r.home, ".claude", "projects", "*", "*.jsonl"))
		for _, tr := range ts {
			b, _ := os.ReadFile(tr)
			if !strings.Contains(string(b), "[[scenario:plan]]") {
				continue
			}
			if m := sessionSlug.FindSubmatch(b); m != nil {
				path = filepath.Join(r.home, ".claude", "plans", string(m[1])+".md")
				return true
			}
		}
		return false
	})
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(thePlan+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	supervisortest.Within(t, 10*time.Second, "the first option's card drawn", func() bool { return strings.HasPrefix(r.a.UIView(t).Card, "0/0/") })
	r.a.Press(t, "A")
	r.gone(t, pv.ID)
	pv = r.shownFrom(t, "plan", "approve this plan? (4 lines)")
	if pv.Tool != "ExitPlanMode" || !strings.Contains(pv.Detail, thePlan) {
		t.Fatalf("plan on the Pi: %+v", pv)
	}
	r.decide(t, pv, "A")
	t.Cleanup(func() {
		if t.Failed() {
			pane, _ := term.run("capture-pane", "-p")
			t.Logf("the pane:\n%s\nrequests: %+v\nresults: %+v", pane, r.api.Prompts("plan"), r.api.Results("plan"))
		}
	})
	// The tool result reaches the model in a request whose last message
	// is Claude Code's own note on leaving plan mode, so the terminal is
	// what shows it: the plan approved by the hook, and the model's turn
	// after it.
	term.await(t, "the plan approved in the terminal", "Approved Claude's plan")
	term.await(t, "the hook named as the approver", "Allowed by PermissionRequest hook")
	term.await(t, "the reply in the terminal", "Plan approved; starting.")
	r.gone(t, pv.ID)
}

var sessionSlug = regexp.MustCompile(`"slug":"([a-z0-9-]+)"`)

// coreQuestionScenario: the same question answered by touch on
// cores3-sim, one approval card per option: ng steps from the first
// option's card to the second's, ok chooses it.
func coreQuestionScenario(t *testing.T, r *claudeRig, core *coreSim) {
	from := core.mark()
	term, _ := startTmuxClaude(t, r, "corequestion", "pick a database", "default",
		plan{turns: [][]toolCall{{askUserQuestion()}}, final: "Using SQLite, as you chose."})
	card := func(label string) func(uiLine) bool {
		return func(l uiLine) bool {
			return l.is("ui", "approval") && l.is("title", "DB") && strings.HasPrefix(l.str("body"), "▸ "+label) && l.M["buttons"] == true
		}
	}
	from, _ = core.await(time.Minute, from, "the first option's card on the CoreS3", card("Postgres"))
	core.send("touch ng")
	core.await(10*time.Second, from, "the second option's card on the CoreS3", card("SQLite"))
	core.send("touch ok")
	supervisortest.Within(t, time.Minute, "the answer in the model's next request", func() bool { return len(r.api.Results("corequestion")) > 0 })
	res := r.api.Results("corequestion")
	if len(res) != 1 || res[0].IsError || !strings.Contains(res[0].Text, `"SQLite"`) {
		t.Fatalf("the tool result the model got: %+v\nthe CoreS3:\n%s", res, core.dump(from))
	}
	term.await(t, "the reply in the terminal", "Using SQLite, as you chose.")
}
