package main

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
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
)

// claudeBinary is the pinned CLI's native binary.
func claudeBinary(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("bash", filepath.Join(".ci", "claude-code.sh"), "--path").Output()
	if err == nil {
		return strings.TrimSpace(string(out))
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("the Claude Code CLI is not installed: .ci/run installs it with `bash .ci/claude-code.sh` before the tests")
	}
	t.Skip("the Claude Code CLI is not installed (needs npm and its registry): run `bash .ci/claude-code.sh`")
	return ""
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
	cmd    *exec.Cmd
	out    syncBuffer
	done   chan struct{}
	err    error
	start  time.Time
	exited time.Time
}

type claudeRig struct {
	t      *testing.T
	bin    string
	home   string
	api    *fakeAPI
	config string
	a      *appliance
	work   string
}

func (r *claudeRig) start(name, prompt string, p plan, extraEnv ...string) *cliRun {
	r.t.Helper()
	c := &cliRun{name: name, dir: filepath.Join(r.work, name), done: make(chan struct{})}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		r.t.Fatal(err)
	}
	r.api.script(name, p)
	c.cmd = exec.Command(r.bin, "-p", "[[scenario:"+name+"]] "+prompt)
	c.cmd.Dir = c.dir
	c.cmd.Env = claudeEnv(r.home, r.api.URL(), r.config, extraEnv...)
	c.cmd.Stdout, c.cmd.Stderr = &c.out, &c.out
	c.start = time.Now()
	if err := c.cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	go func() {
		c.err = c.cmd.Wait()
		c.exited = time.Now()
		close(c.done)
	}()
	r.t.Cleanup(func() {
		c.cmd.Process.Kill()
		<-c.done
	})
	return c
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
	case <-time.After(60 * time.Second):
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
	var pv approvals.PromptView
	poll(t, 20*time.Second, "a prompt of "+c.name+" on the screen", func() bool {
		v := r.a.uiView(t)
		if v.Screen != "approval" || v.Sent || v.Index < 1 || v.Index > len(v.Prompts) {
			return false
		}
		pv = v.Prompts[v.Index-1]
		return strings.HasPrefix(v.Source, "CLI "+c.name+" ·")
	})
	return pv
}

func (r *claudeRig) gone(t *testing.T, id string) {
	t.Helper()
	poll(t, 10*time.Second, "prompt "+id+" gone from the screen", func() bool {
		return !slices.ContainsFunc(r.a.uiView(t).Prompts, func(p approvals.PromptView) bool { return p.ID == id })
	})
}

func TestClaudeCodeCLI(t *testing.T) {
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
	hook := filepath.Join(t.TempDir(), "claude-pi")
	build(t, hook)

	core := startCoreSim(t)
	a := startApplianceWith(t, func(c *Config) {
		c.LAN.Listen = "127.0.0.1:0"
		c.Dock.Port, c.TTS.Engine = core.bridge.HostPath(), "off"
		if speak {
			c.TTS.Engine = "espeak-ng"
		}
	})
	addr, _ := a.lanState(t)["listen"].(string)
	config := pairByButton(t, a, addr, "laptop")
	poll(t, 15*time.Second, "the dock's handshake", func() bool {
		dk, _ := a.apiState(t)["dock"].(map[string]any)
		return dk != nil && dk["ready"] == true && dk["event"] == true
	})

	// The hooks, installed the way the README says, into a fresh HOME.
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
	r := &claudeRig{t: t, bin: bin, home: home, api: newFakeAPI(t), config: config, a: a, work: t.TempDir()}

	t.Run("allow: the tool runs, and the reply is spoken", func(t *testing.T) {
		c := r.start("allow", "create A", plan{
			turns: [][]toolCall{{bash("touch A")}},
			final: "I created the file A. Nothing else changed.",
		})
		pv := r.shown(t, c)
		if pv.Tool != "Bash" || pv.Hint != "touch A" || !strings.Contains(pv.Detail, "in "+c.dir) {
			t.Fatalf("prompt on the Pi: %+v", pv)
		}
		from := core.mark()
		a.press(t, "A")
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
		poll(t, 20*time.Second, `the reply's caption "I created the file A. …" on cores3-sim`, func() bool {
			return slices.ContainsFunc(core.since(from), func(l uiLine) bool {
				return l.is("ui", "caption") && strings.HasPrefix(l.str("text"), "I created the file A.")
			})
		})
	})

	t.Run("deny: the model gets the hook's message", func(t *testing.T) {
		c := r.start("deny", "create B", plan{turns: [][]toolCall{{bash("touch B")}}, final: "Understood."})
		pv := r.shown(t, c)
		a.press(t, "B")
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
		c := r.start("pidown", "create C", plan{turns: [][]toolCall{{bash("touch C")}}, final: "Understood."}, "CLAUDE_PI_CONFIG="+down)
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
		c := r.start("timeout", "create D", plan{turns: [][]toolCall{{bash("touch D")}}, final: "Understood."}, "CLAUDE_PI_HOOK_TIMEOUT=2s")
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
		c1 := r.start("two-a", "create E", plan{turns: [][]toolCall{{bash("touch E")}}, final: "Done."})
		c2 := r.start("two-b", "create F", plan{turns: [][]toolCall{{bash("touch F")}}, final: "Done."})
		poll(t, 20*time.Second, "both prompts on the Pi", func() bool { return a.uiView(t).Of == 2 })
		for range 2 {
			v := a.uiView(t)
			pv := v.Prompts[v.Index-1]
			a.press(t, "A")
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
		c := r.start("three", "create thirty files", p)
		pressed := map[string]bool{}
		for !c.exitedNow() && len(pressed) < len(want) {
			v := a.uiView(t)
			if v.Screen == "approval" && !v.Sent && v.Index >= 1 && v.Index <= len(v.Prompts) {
				if pv := v.Prompts[v.Index-1]; !pressed[pv.ID] {
					pressed[pv.ID] = true
					a.press(t, "A")
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
		c := r.start("killed", "create G", plan{turns: [][]toolCall{{bash("touch G")}}, final: "Done."})
		pv := r.shown(t, c)
		killed := time.Now()
		c.cmd.Process.Signal(syscall.SIGKILL)
		r.gone(t, pv.ID)
		t.Logf("SIGKILL of claude → prompt off the screen in %v", time.Since(killed))
	})

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
