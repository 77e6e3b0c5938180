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
	r, _ := newClaudeRig(t, bin, startCoreSim(t), nil)
	dir := filepath.Join(r.work, "question")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	trustFolder(t, r.home, dir)
	r.api.script("question", plan{turns: [][]toolCall{{askUserQuestion()}}, final: "Using SQLite, as you chose."})
	term := &tmuxTerm{sock: filepath.Join(t.TempDir(), "tmux.sock")}
	args := append([]string{"new-session", "-d", "-x", "150", "-y", "45", "-c", dir, "env", "-i"}, claudeEnv(r.home, r.api.URL(), r.config)...)
	args = append(args, r.bin, "--permission-mode", "default", "[[scenario:question]] pick a database")
	if out, err := term.run(args...); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	pid := term.panePID(t)
	t.Cleanup(func() {
		term.run("kill-server")
		supervisortest.Within(t, 10*time.Second, "the interactive claude gone", func() bool { return syscall.Kill(pid, 0) != nil })
	})

	pv := r.shownFrom(t, "question", "")
	if pv.Tool != "AskUserQuestion" || pv.Questions == nil || len(pv.Questions.List) != 1 || len(pv.Questions.List[0].Options) != 3 {
		t.Fatalf("question on the Pi: %+v", pv)
	}
	asked := time.Now()
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
		t.Logf("question asked → answer at the model: %v (the two presses took %v of it); A pressed → answer at the model: %v",
			p[1].at.Sub(p[0].at).Round(time.Millisecond), pressed.Sub(asked).Round(time.Millisecond), answered.Sub(pressed).Round(time.Millisecond))
	}
	term.await(t, "the reply in the terminal", "Using SQLite, as you chose.")
	r.gone(t, pv.ID)
}
