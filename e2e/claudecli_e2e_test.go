package e2e

// The terminal bridge under the real Claude Code CLI (issue 13): npm's
// @anthropic-ai/claude-code at the version .ci/claude-code.sh pins, its
// native binary, with the hooks `claude-pi hook install` writes into a
// temporary HOME, against the in-process sim appliance. The model is
// claudecli_fakeapi_test.go, which scripts the tool calls; the sim's
// buttons are pressed through /api/press and what the screen shows is read
// from the ui (GetView). The Stop reply is checked on cores3-sim.
//
// Without the CLI the test skips with the command that installs it; under
// CI=true a missing CLI is a failure.

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// claudeBinary is the pinned CLI's native binary.
func claudeBinary(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("bash", filepath.Join("..", ".ci", "claude-code.sh"), "--path").Output()
	if err == nil {
		return strings.TrimSpace(string(out))
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("the Claude Code CLI is not installed: .ci/run installs it with `bash .ci/claude-code.sh` before the tests")
	}
	t.Skip("the Claude Code CLI is not installed (needs npm and its registry): run `bash .ci/claude-code.sh`")
	return ""
}

// installHooks installs the hooks of the claude-pi binary hook the way
// the README says, into a fresh HOME, and returns that HOME.
func installHooks(t *testing.T, hook string) string {
	t.Helper()
	home := t.TempDir()
	install := exec.Command(hook, "hook", "install", "--user")
	install.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("claude-pi hook install: %v\n%s", err, out)
	}
	settings, err := os.ReadFile(filepath.Join(home, ".claude", "settings.json"))
	if err != nil || !strings.Contains(string(settings), hook+" hook permission") {
		t.Fatalf("settings.json after hook install (%v):\n%s", err, settings)
	}
	return home
}

// newClaudeRig is what Claude Code (bin) runs against in these tests: a
// built claude-pi (returned as cli), the sim appliance with its LAN
// bridge on loopback, core docked and speech off (configure changes
// more), a CLI config dir paired by the button, and the hooks installed
// into a fresh HOME.
func newClaudeRig(t *testing.T, bin string, core *coreSim, configure func(*Config)) (r *claudeRig, cli string) {
	t.Helper()
	cli = claudePi(t)
	a := startApplianceWith(t, func(c *Config) {
		c.LAN.Listen = "127.0.0.1:0"
		c.Dock.Port, c.TTS.Engine = core.bridge.HostPath(), "off"
		if configure != nil {
			configure(c)
		}
	})
	config := a.pairByButton(t, "laptop")
	a.awaitDock(t, "the dock's handshake")
	return &claudeRig{bin: bin, home: installHooks(t, cli), api: newFakeAPI(t), config: config, a: a, work: t.TempDir()}, cli
}

// claudeEnv is what the CLI runs with: a private HOME, the fake API, and
// nothing nonessential going out.
func claudeEnv(home, api, config string, extra ...string) []string {
	return append([]string{
		"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TERM=xterm-256color", "LANG=C.UTF-8",
		"ANTHROPIC_BASE_URL=" + api, "ANTHROPIC_API_KEY=sk-ant-fake-for-tests",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL=1",
		"CLAUDE_PI_CONFIG=" + config,
	}, extra...)
}

// cliRun is one `claude -p` in its own working directory, named after
// the scenario (the Pi shows it as the project).
type cliRun struct {
	name   string
	dir    string
	debug  string // the CLI's --debug-file
	cmd    *exec.Cmd
	out    supervisortest.SyncBuffer
	done   chan struct{}
	err    error
	start  time.Time
	exited time.Time
}

type claudeRig struct {
	repressed atomic.Int32
	bin       string
	home      string
	api       *fakeAPI
	config    string
	a         *rig
	work      string
}

// start runs claude -p; it is killed when t ends, so a failed scenario
// leaves no prompt behind for the next.
func (r *claudeRig) start(t *testing.T, name, prompt string, p plan, extraEnv ...string) *cliRun {
	t.Helper()
	// A scenario starts with nothing on the screen: the last one's
	// prompts leave with its killed CLI.
	supervisortest.Within(t, 30*time.Second, "no prompt left on the screen", func() bool { return len(r.a.UIView(t).Prompts) == 0 })
	c := &cliRun{name: name, dir: filepath.Join(r.work, name), done: make(chan struct{})}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r.api.script(name, p)
	// The CLI's debug log holds what each hook printed on stderr (the
	// permission hook says there why it left the decision to the
	// terminal), which is what a failed run needs.
	c.debug = filepath.Join(r.work, name+".debug.txt")
	c.cmd = exec.Command(r.bin, "-p", "--debug-file", c.debug, "[[scenario:"+name+"]] "+prompt)
	c.cmd.Dir = c.dir
	c.cmd.Env = claudeEnv(r.home, r.api.URL(), r.config, extraEnv...)
	c.cmd.Stdout, c.cmd.Stderr = &c.out, &c.out
	c.start = time.Now()
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		c.err = c.cmd.Wait()
		c.exited = time.Now()
		close(c.done)
	}()
	t.Cleanup(func() {
		c.cmd.Process.Kill()
		<-c.done
		if t.Failed() {
			t.Logf("claude -p (%s) debug log, permission hook lines:\n%s", name, hookLines(c.debug))
		}
	})
	return c
}

// hookLines are the lines of a CLI debug log about the permission hook
// and what claude-pi's hooks printed, at most the last 80.
func hookLines(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "PermissionRequest") || strings.Contains(l, "claude-pi hook") {
			out = append(out, l)
		}
	}
	return strings.Join(out[max(0, len(out)-80):], "\n")
}

func (c *cliRun) exitedNow() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// wait waits for the CLI to exit and returns its output.
func (c *cliRun) wait(t *testing.T) string {
	t.Helper()
	select {
	case <-c.done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("claude -p (%s) did not exit; output:\n%s", c.name, c.out.String())
	}
	if c.err != nil {
		t.Fatalf("claude -p (%s): %v\n%s", c.name, c.err, c.out.String())
	}
	return c.out.String()
}

func (c *cliRun) file(name string) string { return filepath.Join(c.dir, name) }

func exists(path string) bool { _, err := os.Stat(path); return err == nil }

// shown waits for an undecided prompt of the run on the approval screen
// and returns it.
func (r *claudeRig) shown(t *testing.T, c *cliRun) approvals.PromptView {
	t.Helper()
	return r.shownFrom(t, c.name, "")
}

// shownFrom waits for an undecided prompt from project (the working
// directory's name, or its start) with the hint, any hint when "", on the
// screen.
func (r *claudeRig) shownFrom(t *testing.T, project, hint string) approvals.PromptView {
	t.Helper()
	var pv approvals.PromptView
	supervisortest.Within(t, time.Minute, "a prompt of "+project+" on the screen", func() bool {
		v := r.a.UIView(t)
		if v.Screen != "approval" || v.Sent {
			return false
		}
		pv = approvals.PromptView{Prompt: v.Shown}
		return strings.HasPrefix(v.Source, "CLI "+project) && (hint == "" || pv.Hint == hint)
	})
	return pv
}

// decide presses button for the prompt pv on the screen, and again if
// the press decided nothing (the prompt still shown, not "sent…", a
// second later): the sim's ui now and then takes a press for no decision,
// which a user would answer by pressing again. It counts those.
func (r *claudeRig) decide(t *testing.T, pv approvals.PromptView, button string) {
	t.Helper()
	for range 5 {
		r.a.Press(t, button)
		for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(2 * time.Millisecond) {
			v := r.a.UIView(t)
			i := slices.IndexFunc(v.Prompts, func(p approvals.PromptView) bool { return p.ID == pv.ID })
			if i < 0 || v.Sent || v.Prompts[i].Decided {
				return
			}
		}
		r.repressed.Add(1)
		t.Logf("a press of %s decided nothing for %s (%s); pressing again", button, pv.ID, pv.Hint)
	}
	t.Fatalf("five presses of %s decided nothing for %s", button, pv.ID)
}

func (r *claudeRig) gone(t *testing.T, id string) {
	t.Helper()
	supervisortest.Within(t, 30*time.Second, "prompt "+id+" gone from the screen", func() bool {
		return !slices.ContainsFunc(r.a.UIView(t).Prompts, func(p approvals.PromptView) bool { return p.ID == id })
	})
}

func TestClaudeCodeCLI(t *testing.T) {
	e2e(t)
	bin := claudeBinary(t)
	if out, err := exec.Command(bin, "--version").CombinedOutput(); err != nil {
		t.Fatalf("%s --version: %v\n%s", bin, err, out)
	} else {
		t.Logf("Claude Code %s", strings.TrimSpace(string(out)))
	}
	speak := true
	if _, err := exec.LookPath("espeak-ng"); err != nil && os.Getenv("CI") != "true" {
		speak = false
	}
	core := startCoreSim(t)
	r, _ := newClaudeRig(t, bin, core, func(c *Config) {
		if speak {
			c.TTS.Engine = "espeak-ng"
		}
	})
	a, config := r.a, r.config

	t.Run("allow: the tool runs, and the reply is spoken", func(t *testing.T) {
		c := r.start(t, "allow", "create A", plan{
			turns: [][]toolCall{{bash("touch A")}},
			final: "I created the file A. Nothing else changed.",
		})
		pv := r.shown(t, c)
		if pv.Tool != "Bash" || pv.Hint != "touch A" || !strings.Contains(pv.Detail, "in "+c.dir) {
			t.Fatalf("prompt on the Pi: %+v", pv)
		}
		from := core.mark()
		r.decide(t, pv, "A")
		out := c.wait(t)
		if !exists(c.file("A")) {
			t.Fatalf("approved on the Pi, but A was not created; output:\n%s", out)
		}
		if res := r.api.Results("allow"); len(res) != 1 || res[0].IsError {
			t.Fatalf("tool results the model got: %+v", res)
		}
		if !strings.Contains(out, "I created the file A.") {
			t.Fatalf("output %q", out)
		}
		if !speak {
			t.Log("espeak-ng not installed: the spoken reply is not checked")
			return
		}
		// The Stop hook carried the reply; the dock says it as a turn.
		supervisortest.Within(t, 20*time.Second, `the reply's caption "I created the file A. …" on cores3-sim`, func() bool {
			return slices.ContainsFunc(core.since(from), func(l uiLine) bool {
				return l.is("ui", "caption") && strings.HasPrefix(l.str("text"), "I created the file A.")
			})
		})
	})

	t.Run("deny: the model gets the hook's message", func(t *testing.T) {
		c := r.start(t, "deny", "create B", plan{turns: [][]toolCall{{bash("touch B")}}, final: "Understood."})
		pv := r.shown(t, c)
		r.decide(t, pv, "B")
		c.wait(t)
		r.gone(t, pv.ID)
		if exists(c.file("B")) {
			t.Fatal("denied on the Pi, but B was created")
		}
		res := r.api.Results("deny")
		if len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].Text, "Denied on Claude_Pi") {
			t.Fatalf("tool results the model got: %+v", res)
		}
	})

	t.Run("Pi down: the terminal decides at once", func(t *testing.T) {
		down := deadPiConfig(t, config)
		c := r.start(t, "pidown", "create C", plan{turns: [][]toolCall{{bash("touch C")}}, final: "Understood."}, "CLAUDE_PI_CONFIG="+down)
		c.wait(t)
		t.Logf("Pi down: claude -p finished in %v", c.exited.Sub(c.start))
		if exists(c.file("C")) {
			t.Fatal("C was created with no decision")
		}
		if res := r.api.Results("pidown"); len(res) != 1 || !res[0].IsError {
			t.Fatalf("tool results the model got: %+v", res)
		}
	})

	t.Run("nobody presses: the hook times out, the prompt leaves", func(t *testing.T) {
		c := r.start(t, "timeout", "create D", plan{turns: [][]toolCall{{bash("touch D")}}, final: "Understood."}, "CLAUDE_PI_HOOK_TIMEOUT=2s")
		pv := r.shown(t, c)
		c.wait(t)
		r.gone(t, pv.ID)
		if exists(c.file("D")) {
			t.Fatal("D was created with no decision")
		}
		if res := r.api.Results("timeout"); len(res) != 1 || !res[0].IsError {
			t.Fatalf("tool results the model got: %+v", res)
		}
	})

	t.Run("two sessions at once", func(t *testing.T) {
		var c1, c2 *cliRun
		// Registered before the runs, so it runs after their cleanups
		// killed them: what each CLI printed is whole, and it says which
		// one never asked when a prompt is missing.
		t.Cleanup(func() {
			for _, c := range []*cliRun{c1, c2} {
				if t.Failed() && c != nil {
					t.Logf("claude -p (%s) printed:\n%s", c.name, c.out.String())
					t.Logf("claude -p (%s): tool results %+v, file made: %v", c.name, r.api.Results(c.name),
						exists(c.file(map[string]string{"two-a": "E", "two-b": "F"}[c.name])))
				}
			}
		})
		c1 = r.start(t, "two-a", "create E", plan{turns: [][]toolCall{{bash("touch E")}}, final: "Done."})
		c2 = r.start(t, "two-b", "create F", plan{turns: [][]toolCall{{bash("touch F")}}, final: "Done."})
		supervisortest.Within(t, time.Minute, "both prompts on the Pi", func() bool { return a.UIView(t).Of == 2 })
		// Answered in the order they are shown, whichever came first.
		for range 2 {
			pv := r.shownFrom(t, "two-", "")
			r.decide(t, pv, "A")
			r.gone(t, pv.ID)
		}
		c1.wait(t)
		c2.wait(t)
		if !exists(c1.file("E")) || !exists(c2.file("F")) {
			t.Fatalf("E %v, F %v after both were approved", exists(c1.file("E")), exists(c2.file("F")))
		}
	})

	t.Run("three tool calls in one message, ten times: none lost", func(t *testing.T) {
		var p plan
		var want []string
		for turn := range 10 {
			var calls []toolCall
			for i := range 3 {
				name := "t" + string(rune('0'+turn)) + "-" + string(rune('0'+i))
				want = append(want, name)
				calls = append(calls, bash("touch "+name))
			}
			p.turns = append(p.turns, calls)
		}
		p.final = "All thirty files exist."
		c := r.start(t, "three", "create thirty files", p)
		pressed := map[string]bool{}
		deadline := time.Now().Add(3 * time.Minute)
		for !c.exitedNow() && len(pressed) < len(want) {
			if time.Now().After(deadline) {
				t.Fatalf("after 3 min, %d prompts pressed; output:\n%s", len(pressed), c.out.String())
			}
			v := a.UIView(t)
			if v.Screen == "approval" && !v.Sent && strings.HasPrefix(v.Source, "CLI three ·") {
				if pv := (approvals.PromptView{Prompt: v.Shown}); !pressed[pv.ID] {
					pressed[pv.ID] = true
					r.decide(t, pv, "A")
					continue
				}
			}
			time.Sleep(2 * time.Millisecond)
		}
		c.wait(t)
		var missing []string
		for _, f := range want {
			if !exists(c.file(f)) {
				missing = append(missing, f)
			}
		}
		if len(missing) > 0 {
			t.Fatalf("%d of %d prompts lost (pressed %d): %v\n%s", len(missing), len(want), len(pressed), missing, c.out.String())
		}
	})

	t.Run("SIGKILL of the CLI: the prompt leaves the Pi", func(t *testing.T) {
		c := r.start(t, "killed", "create G", plan{turns: [][]toolCall{{bash("touch G")}}, final: "Done."})
		pv := r.shown(t, c)
		killed := time.Now()
		c.cmd.Process.Signal(syscall.SIGKILL)
		r.gone(t, pv.ID)
		t.Logf("SIGKILL of claude → prompt off the screen in %v", time.Since(killed))
	})

	t.Run("interactive under tmux: approved on the Pi, Esc in the terminal, the reply spoken", func(t *testing.T) {
		if _, err := exec.LookPath("tmux"); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatal("tmux not installed (.ci/run installs it)")
			}
			t.Skip("tmux not installed (apt-get install tmux)")
		}
		dir := filepath.Join(r.work, "tmux")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		trustFolder(t, r.home, dir)
		supervisortest.Within(t, 30*time.Second, "no prompt left on the screen", func() bool { return len(a.UIView(t).Prompts) == 0 })
		r.api.script("tmux", plan{turns: [][]toolCall{{bash("touch H")}, {bash("touch I")}}, final: "Handled H; skipped I."})
		term := &tmuxTerm{sock: filepath.Join(t.TempDir(), "tmux.sock")}
		// Interactive sessions of this version start in auto mode, which
		// asks a classifier, not the user; default mode shows the dialog.
		args := append([]string{"new-session", "-d", "-x", "150", "-y", "45", "-c", dir, "env", "-i"}, claudeEnv(r.home, r.api.URL(), r.config)...)
		args = append(args, r.bin, "--permission-mode", "default", "[[scenario:tmux]] create H, then I")
		if out, err := term.run(args...); err != nil {
			t.Fatalf("tmux new-session: %v\n%s", err, out)
		}
		pid := term.panePID(t)
		t.Cleanup(func() {
			// The CLI writes its session files under HOME until it is
			// gone, and HOME is removed after the test.
			term.run("kill-server")
			supervisortest.Within(t, 10*time.Second, "the interactive claude gone", func() bool { return syscall.Kill(pid, 0) != nil })
		})

		// The terminal's dialog and the Pi show the call together; the Pi
		// answers first.
		pv := r.shownFrom(t, "tmux", "touch H")
		term.await(t, "the terminal's dialog for touch H", "Do you want to proceed?")
		r.decide(t, pv, "A")
		supervisortest.Within(t, time.Minute, "H created after the approve on the Pi", func() bool { return exists(filepath.Join(dir, "H")) })
		r.gone(t, pv.ID)

		// Esc in the terminal: the hook is cancelled, and its prompt
		// leaves the Pi.
		pv = r.shownFrom(t, "tmux", "touch I")
		term.await(t, "the terminal's dialog for touch I", "touch I")
		esc := time.Now()
		if out, err := term.run("send-keys", "Escape"); err != nil {
			t.Fatalf("tmux send-keys: %v\n%s", err, out)
		}
		r.gone(t, pv.ID)
		t.Logf("Esc in the terminal → prompt off the Pi's screen in %v", time.Since(esc))
		if exists(filepath.Join(dir, "I")) {
			t.Fatal("I was created after Esc")
		}

		// The next prompt typed in the terminal ends the turn with text;
		// the Stop hook carries it to the CoreS3.
		term.await(t, "the interrupted turn", "Interrupted")
		from := core.mark()
		if out, err := term.run("send-keys", "-l", "carry on"); err != nil {
			t.Fatalf("tmux send-keys: %v\n%s", err, out)
		}
		term.run("send-keys", "Enter")
		term.await(t, "the reply in the terminal", "Handled H; skipped I.")
		if !speak {
			return
		}
		supervisortest.Within(t, 30*time.Second, `the interactive reply's caption on cores3-sim`, func() bool {
			return slices.ContainsFunc(core.since(from), func(l uiLine) bool {
				return l.is("ui", "caption") && strings.HasPrefix(l.str("text"), "Handled H; skipped I.")
			})
		})
	})

	if n := r.repressed.Load(); n > 0 {
		t.Logf("%d presses on a shown prompt decided nothing and were repeated", n)
	}
	// Nothing but the Messages API was called.
	for _, req := range r.api.Requests() {
		if req != "POST /v1/messages" {
			t.Errorf("the CLI called %s", req)
		}
	}
}

// deadPiConfig is a copy of the CLI's config dir whose Pi is at an
// address nothing listens on.
func deadPiConfig(t *testing.T, config string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close()
	dir := t.TempDir()
	for _, f := range []string{"identity.pem", "pis.json"} {
		b, err := os.ReadFile(filepath.Join(config, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "pis.json" {
			var cs map[string][]map[string]any
			if err := json.Unmarshal(b, &cs); err != nil {
				t.Fatal(err)
			}
			for _, p := range cs["pis"] {
				p["addr"] = dead
			}
			b, _ = json.Marshal(cs)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// trustFolder marks the onboarding done, the fake API key approved and
// dir trusted in the CLI's ~/.claude.json, so the interactive CLI goes
// straight to the prompt.
func trustFolder(t *testing.T, home, dir string) {
	t.Helper()
	path := filepath.Join(home, ".claude.json")
	cfg := map[string]any{}
	if b, err := os.ReadFile(path); err == nil {
		json.Unmarshal(b, &cfg)
	}
	key := "sk-ant-fake-for-tests"
	cfg["hasCompletedOnboarding"] = true
	cfg["theme"] = "dark"
	cfg["customApiKeyResponses"] = map[string]any{"approved": []string{key[len(key)-20:]}, "rejected": []string{}}
	projects, _ := cfg["projects"].(map[string]any)
	if projects == nil {
		projects = map[string]any{}
	}
	projects[dir] = map[string]any{"hasTrustDialogAccepted": true}
	cfg["projects"] = projects
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// tmuxTerm is a private tmux server with one pane.
type tmuxTerm struct{ sock string }

func (m *tmuxTerm) run(args ...string) ([]byte, error) {
	return exec.Command("tmux", append([]string{"-S", m.sock}, args...)...).CombinedOutput()
}

// panePID is the pid of the pane's process (env execs the CLI in its
// place).
func (m *tmuxTerm) panePID(t *testing.T) int {
	t.Helper()
	out, err := m.run("display-message", "-p", "#{pane_pid}")
	pid, perr := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || perr != nil {
		t.Fatalf("tmux pane_pid: %v %v %q", err, perr, out)
	}
	return pid
}

// await waits until the pane shows text.
func (m *tmuxTerm) await(t *testing.T, what, text string) {
	t.Helper()
	var pane []byte
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		pane, _ = m.run("capture-pane", "-p")
		if strings.Contains(string(pane), text) {
			return
		}
	}
	t.Fatalf("timed out waiting for %s; the pane:\n%s", what, pane)
}
