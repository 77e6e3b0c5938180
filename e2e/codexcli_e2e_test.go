package e2e

// The terminal bridge under the real Codex CLI (issue 34 item 6): npm's
// @openai/codex at the version .ci/codex.sh pins, its native binary, with
// the hooks `claude-pi hook install --agent codex` writes into a
// temporary HOME, against the in-process sim appliance and cores3-sim.
// The model is codexcli_fakeapi_test.go.
//
// Codex is driven through `codex app-server` (JSON-RPC over stdio, the
// protocol its own TUI and IDE extensions use) rather than `codex exec`:
// exec pins the approval policy to "never", under which Codex never asks
// and so never runs a PermissionRequest hook. The test is the app
// server's client, as the TUI would be: when a hook gives no answer,
// Codex's own approval request reaches it, which is how the fallback is
// seen.
//
// Without the CLI the test skips with the command that installs it; under
// CI=true a missing CLI is a failure.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
	"github.com/claude-pi/claude-pi/internal/appliance/appliancetest"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// codexBinary is the pinned Codex CLI's native binary.
func codexBinary(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("bash", filepath.Join("..", ".ci", "codex.sh"), "--path").Output()
	if err == nil {
		return strings.TrimSpace(string(out))
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("the Codex CLI is not installed: .ci/run installs it with `bash .ci/codex.sh` before the tests")
	}
	t.Skip("the Codex CLI is not installed (needs npm and its registry): run `bash .ci/codex.sh`")
	return ""
}

// codexNote is one JSON-RPC message from the app server: a notification,
// or a request to the client (ID set), with when it arrived.
type codexNote struct {
	Method string
	ID     json.RawMessage
	Params json.RawMessage
	At     time.Time
}

// codexServer is one `codex app-server` and its client. Requests from the
// server (Codex's own approval dialogs) are recorded and declined.
type codexServer struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	errs  supervisortest.SyncBuffer

	mu      sync.Mutex
	nextID  int
	waiting map[string]chan json.RawMessage
	notes   []codexNote
	done    chan struct{}
}

func startCodexServer(t *testing.T, bin, home, dir string, args, env []string) *codexServer {
	t.Helper()
	s := &codexServer{t: t, waiting: map[string]chan json.RawMessage{}, done: make(chan struct{})}
	s.cmd = exec.Command(bin, append([]string{"app-server"}, args...)...)
	s.cmd.Dir = dir
	s.cmd.Env = append([]string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "OPENAI_API_KEY=sk-fake-for-tests"}, env...)
	s.cmd.Stderr = &s.errs
	var err error
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go s.read(stdout)
	t.Cleanup(func() {
		s.stdin.Close()
		s.cmd.Process.Kill()
		s.cmd.Wait()
		<-s.done
		if t.Failed() {
			t.Logf("codex app-server stderr (last 3000 bytes):\n%s", tail(s.errs.String(), 3000))
		}
	})
	s.call("initialize", map[string]any{"clientInfo": map[string]any{"name": "claude-pi-e2e", "version": "1"}})
	s.send(map[string]any{"method": "initialized"})
	return s
}

func tail(s string, n int) string { return s[max(0, len(s)-n):] }

func (s *codexServer) read(r io.Reader) {
	defer close(s.done)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		now := time.Now()
		switch {
		case m.Method != "":
			s.mu.Lock()
			s.notes = append(s.notes, codexNote{Method: m.Method, ID: m.ID, Params: m.Params, At: now})
			s.mu.Unlock()
			if m.ID != nil {
				// Codex's own approval: the test, as the user at the
				// terminal, declines it.
				s.send(map[string]any{"id": m.ID, "result": map[string]any{"decision": "decline"}})
			}
		case m.ID != nil:
			s.mu.Lock()
			ch := s.waiting[string(m.ID)]
			s.mu.Unlock()
			if ch != nil {
				if m.Error != nil {
					ch <- append(json.RawMessage(`{"error":`), append(m.Error, '}')...)
				} else {
					ch <- m.Result
				}
			}
		}
	}
}

func (s *codexServer) send(v any) {
	b, _ := json.Marshal(v)
	s.stdin.Write(append(b, '\n'))
}

// call makes one request and returns its result.
func (s *codexServer) call(method string, params any) json.RawMessage {
	s.t.Helper()
	s.mu.Lock()
	s.nextID++
	id := strconv.Itoa(s.nextID)
	ch := make(chan json.RawMessage, 1)
	s.waiting[id] = ch
	s.mu.Unlock()
	s.send(map[string]any{"id": s.nextID, "method": method, "params": params})
	select {
	case res := <-ch:
		if strings.HasPrefix(string(res), `{"error":`) {
			s.t.Fatalf("codex app-server %s: %s", method, res)
		}
		return res
	case <-time.After(60 * time.Second):
		s.t.Fatalf("codex app-server: no answer to %s\nstderr:\n%s", method, tail(s.errs.String(), 3000))
	}
	return nil
}

func (s *codexServer) notesSince(i int) []codexNote {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.notes[min(i, len(s.notes)):])
}

func (s *codexServer) mark() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.notes)
}

// await waits for a message from the server since mark for which ok holds.
func (s *codexServer) await(from int, d time.Duration, what string, ok func(codexNote) bool) codexNote {
	s.t.Helper()
	var got codexNote
	supervisortest.Within(s.t, d, what, func() bool {
		i := slices.IndexFunc(s.notesSince(from), ok)
		if i >= 0 {
			got = s.notesSince(from)[i]
		}
		return i >= 0
	})
	return got
}

// turn starts a thread in dir under an approval policy that asks, and a
// turn with prompt; it returns the mark from which the turn's messages
// count.
func (s *codexServer) turn(dir, prompt string) int {
	s.t.Helper()
	var th struct {
		Thread struct {
			ID string `json:"id"`
		} `json:"thread"`
	}
	res := s.call("thread/start", map[string]any{"cwd": dir, "approvalPolicy": "on-request", "sandbox": "read-only"})
	if err := json.Unmarshal(res, &th); err != nil || th.Thread.ID == "" {
		s.t.Fatalf("thread/start: %s (%v)", res, err)
	}
	from := s.mark()
	s.call("turn/start", map[string]any{"threadId": th.Thread.ID, "input": []any{map[string]any{"type": "text", "text": prompt}}})
	return from
}

func isMethod(m string) func(codexNote) bool { return func(n codexNote) bool { return n.Method == m } }

// permissionHook matches the hook/started or hook/completed of the
// PermissionRequest hook.
func permissionHook(method string) func(codexNote) bool {
	return func(n codexNote) bool {
		return n.Method == method && strings.Contains(string(n.Params), `"permissionRequest"`)
	}
}

// trustCodexHooks does what a user does in Codex's /hooks: it trusts the
// hooks installed in home, by recording each one's current hash in
// config.toml, the file /hooks writes.
func trustCodexHooks(t *testing.T, bin, home string) {
	t.Helper()
	s := startCodexServer(t, bin, home, home, nil, nil)
	var list struct {
		Data []struct {
			Hooks []struct {
				Key         string `json:"key"`
				Command     string `json:"command"`
				CurrentHash string `json:"currentHash"`
			} `json:"hooks"`
		} `json:"data"`
	}
	res := s.call("hooks/list", map[string]any{"cwds": []string{home}})
	if err := json.Unmarshal(res, &list); err != nil || len(list.Data) != 1 {
		t.Fatalf("hooks/list: %s (%v)", res, err)
	}
	var b strings.Builder
	for _, h := range list.Data[0].Hooks {
		if !strings.Contains(h.Command, " --cli codex") {
			t.Fatalf("a hook claude-pi did not install: %+v", h)
		}
		fmt.Fprintf(&b, "[hooks.state.%q]\ntrusted_hash = %q\n\n", h.Key, h.CurrentHash)
	}
	if n := len(list.Data[0].Hooks); n != 5 {
		t.Fatalf("Codex sees %d claude-pi hooks, want 5: %s", n, res)
	}
	if err := os.WriteFile(filepath.Join(home, ".codex", "config.toml"), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// codexShown waits for an undecided prompt of project on the Pi's screen,
// labelled Codex.
func codexShown(t *testing.T, a *rig, project string) approvals.PromptView {
	t.Helper()
	var pv approvals.PromptView
	supervisortest.Within(t, time.Minute, "a Codex prompt of "+project+" on the screen", func() bool {
		v := a.UIView(t)
		if v.Screen != "approval" || v.Sent {
			return false
		}
		pv = approvals.PromptView{Prompt: v.Shown}
		return strings.HasPrefix(v.Source, "Codex "+project+" ·")
	})
	return pv
}

func TestCodexCLI(t *testing.T) {
	e2e(t)
	bin := codexBinary(t)
	if out, err := exec.Command(bin, "--version").CombinedOutput(); err != nil {
		t.Fatalf("%s --version: %v\n%s", bin, err, out)
	} else {
		t.Logf("%s", strings.TrimSpace(string(out)))
	}
	speak := true
	if _, err := exec.LookPath("espeak-ng"); err != nil && os.Getenv("CI") != "true" {
		speak = false
	}
	core := startCoreSim(t)
	cli := filepath.Join(t.TempDir(), "claude-pi")
	appliancetest.Build(t, cli)
	a := startApplianceWith(t, func(c *Config) {
		c.LAN.Listen = "127.0.0.1:0"
		c.Dock.Port, c.TTS.Engine = core.bridge.HostPath(), "off"
		if speak {
			c.TTS.Engine = "espeak-ng"
		}
	})
	config := a.pairByButton(t, "laptop")
	a.awaitDock(t, "the dock's handshake")

	home := t.TempDir()
	install := exec.Command(cli, "hook", "install", "--agent", "codex")
	install.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("claude-pi hook install --agent codex: %v\n%s", err, out)
	}
	trustCodexHooks(t, bin, home)
	api := newFakeResponses(t)
	provider := []string{
		"-c", "model_provider=fakeapi", "-c", `model_providers.fakeapi.name="fake"`,
		"-c", `model_providers.fakeapi.base_url="` + api.URL() + `"`,
		"-c", `model_providers.fakeapi.wire_api="responses"`, "-c", `model_providers.fakeapi.env_key="OPENAI_API_KEY"`,
		"-c", `model="gpt-5"`,
	}
	work := t.TempDir()
	pressBy := &claudeRig{a: a}
	start := func(t *testing.T, name, command, final string, piConfig string) (*codexServer, string, int) {
		t.Helper()
		supervisortest.Within(t, 30*time.Second, "no prompt left on the screen", func() bool { return len(a.UIView(t).Prompts) == 0 })
		dir := filepath.Join(work, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		api.script(name, codexPlan{command: command, final: final})
		s := startCodexServer(t, bin, home, dir, provider, []string{"CLAUDE_PI_CONFIG=" + piConfig})
		return s, dir, s.turn(dir, "[[scenario:"+name+"]] "+command)
	}

	t.Run("allow: the command runs, the model gets its output, the reply is spoken", func(t *testing.T) {
		fromCore := core.mark()
		s, dir, from := start(t, "cx-allow", "touch A", "I created the file A.", config)
		started := s.await(from, time.Minute, "the PermissionRequest hook started", permissionHook("hook/started"))
		pv := codexShown(t, a, "cx-allow")
		shownAt := time.Now()
		if pv.Tool != "Bash" || pv.Hint != "touch A" || !strings.Contains(pv.Detail, "in "+dir) {
			t.Fatalf("prompt on the Pi: %+v", pv)
		}
		core.await(20*time.Second, fromCore, "the prompt on the CoreS3", func(l uiLine) bool {
			return l.is("ui", "approval") && l.is("title", "Bash")
		})
		running, _ := core.await(20*time.Second, fromCore, "task.status running on the CoreS3", func(l uiLine) bool {
			return l.is("ui", "task") && l.is("state", "running")
		})
		pressed := time.Now()
		pressBy.decide(t, pv, "A")
		answered := s.await(from, time.Minute, "the PermissionRequest hook completed", permissionHook("hook/completed"))
		s.await(from, 2*time.Minute, "the turn completed", isMethod("turn/completed"))
		t.Logf("Codex: hook started → prompt on the Pi %v; press → answer reached Codex (hook completed) %v",
			shownAt.Sub(started.At).Round(time.Millisecond), answered.At.Sub(pressed).Round(time.Millisecond))
		if !exists(filepath.Join(dir, "A")) {
			t.Fatal("approved on the Pi, but A was not created")
		}
		outs := api.Outputs("cx-allow")
		if len(outs) != 1 || outs[0].CallID != "call_cx-allow" || !strings.Contains(outs[0].Text, "exited with code 0") {
			t.Fatalf("outputs the model got: %+v", outs)
		}
		t.Logf("Codex: press → the command's output in the model's next request %v", outs[0].At.Sub(pressed).Round(time.Millisecond))
		for _, n := range s.notesSince(from) {
			if n.ID != nil {
				t.Fatalf("Codex asked the terminal too (%s): the Pi's answer was not taken", n.Method)
			}
		}
		// The Stop hook reached the Pi: the turn is over on the dock.
		core.await(20*time.Second, running+1, "task.status idle on the CoreS3 after the turn", func(l uiLine) bool {
			return l.is("ui", "task") && l.is("state", "idle")
		})
		if !speak {
			t.Log("espeak-ng not installed: the spoken reply is not checked")
			return
		}
		core.await(30*time.Second, fromCore, `the reply's caption "I created the file A." on cores3-sim`, func(l uiLine) bool {
			return l.is("ui", "caption") && strings.HasPrefix(l.str("text"), "I created the file A.")
		})
	})

	t.Run("deny: the command does not run, the model hears it was denied", func(t *testing.T) {
		s, dir, from := start(t, "cx-deny", "touch B", "Understood.", config)
		pv := codexShown(t, a, "cx-deny")
		pressBy.decide(t, pv, "B")
		s.await(from, 2*time.Minute, "the turn completed", isMethod("turn/completed"))
		pressBy.gone(t, pv.ID)
		if exists(filepath.Join(dir, "B")) {
			t.Fatal("denied on the Pi, but B was created")
		}
		outs := api.Outputs("cx-deny")
		if len(outs) != 1 || !strings.Contains(outs[0].Text, "Denied on Claude_Pi") {
			t.Fatalf("outputs the model got: %+v", outs)
		}
		t.Logf("Codex told the model: %q", outs[0].Text)
		for _, n := range s.notesSince(from) {
			if n.ID != nil {
				t.Fatalf("Codex asked the terminal after the Pi denied (%s)", n.Method)
			}
		}
	})

	t.Run("Pi down: Codex's own approval decides", func(t *testing.T) {
		s, dir, from := start(t, "cx-pidown", "touch C", "Understood.", deadPiConfig(t, config))
		asked := s.await(from, time.Minute, "Codex's own approval request", func(n codexNote) bool { return n.ID != nil })
		if !strings.Contains(asked.Method, "requestApproval") || !strings.Contains(string(asked.Params), "touch C") {
			t.Fatalf("Codex asked %s %s", asked.Method, asked.Params)
		}
		s.await(from, 2*time.Minute, "the turn completed", isMethod("turn/completed"))
		if exists(filepath.Join(dir, "C")) {
			t.Fatal("C was created though the terminal declined")
		}
	})

	for _, r := range api.Requests() {
		if r != "POST /v1/responses" {
			t.Logf("Codex also sent %s to the model API", r)
		}
	}
}
