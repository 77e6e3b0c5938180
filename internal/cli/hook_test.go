package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/actors/approvals"
	"github.com/claude-pi/claude-pi/actors/lan"
	"github.com/claude-pi/claude-pi/internal/appliance"
	"github.com/claude-pi/claude-pi/internal/appliance/appliancetest"
	"github.com/claude-pi/claude-pi/internal/cli/clitest"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
	"github.com/claude-pi/claude-pi/supervisor"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// Claude Code's hook inputs (clitest's, which the end-to-end tests share).
const (
	hookPermissionJSON  = clitest.HookPermissionJSON
	hookPostToolUseJSON = clitest.HookPostToolUseJSON
)

const hookSource = lan.SourcePrefix + "9f3c2a10-7d1e-4b8a-bc55-2f6e1d0a9c77"

// pi is an in-process appliance: the approvals and lan services as the
// appliance's topology runs them (appliance.ServicesOf), the LAN API on
// 127.0.0.1.
type pi struct {
	tree   *supervisor.Tree
	system *actor.ActorSystem
	addr   string
	data   string   // the appliance's data dir
	events chan any // approvals events, as the UI gets them
}

func startPi(t *testing.T, configure ...func(*appliance.Config)) *pi {
	t.Helper()
	data := t.TempDir()
	c := appliancetest.SimConfig(t)
	c.DataDir, c.LAN.Listen = data, "127.0.0.1:0"
	for _, f := range configure {
		f(&c)
	}
	s, err := appliance.Resolve(c, "test.toml", appliancetest.Host(t))
	if err != nil {
		t.Fatal(err)
	}
	svcs, err := appliance.ServicesOf(s, approvals.ServiceName, lan.ServiceName)
	if err != nil {
		t.Fatal(err)
	}
	tree := supervisortest.Start(t, svcs...)
	p := &pi{tree: tree, system: tree.System(), data: data, events: make(chan any, 100)}
	p.addr = p.state(t).Addr
	if p.addr == "" {
		t.Fatal("lan is not listening")
	}
	sub := p.system.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		switch m := c.Message().(type) {
		case approvals.PromptAppeared, approvals.PromptResolved, approvals.Pending:
			p.events <- m
		}
	}))
	p.system.Root.Send(supervisor.ServicePID(p.system, "approvals"), supervisor.Subscribe{PID: sub})
	return p
}

func (p *pi) state(t *testing.T) lan.State {
	t.Helper()
	return supervisortest.Ask[lan.State](t, p.tree, lan.ServiceName, lan.GetState{})
}

func (p *pi) pending(t *testing.T) []approvals.PromptView {
	t.Helper()
	return supervisortest.Ask[approvals.Pending](t, p.tree, approvals.ServiceName, approvals.GetPending{}).Prompts
}

// pairCLI pairs a fresh CLI config dir with p, reading the code from the
// lan actor's state as the Pi's screen would, and pressing approve.
func pairCLI(t *testing.T, p *pi, name string) string {
	t.Helper()
	dir := t.TempDir()
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- run(context.Background(), []string{"pair", "--config", dir, "--name", name, p.addr}, strings.NewReader("y\n"), &out, io.Discard)
	}()
	var code string
	supervisortest.WaitFor(t, "the pairing request on the Pi", func() bool {
		if pr := p.state(t).Pairing; pr != nil {
			code = pr.Code
			return true
		}
		return false
	})
	p.system.Root.Send(supervisor.ServicePID(p.system, "lan"), lan.AcceptPairing{Code: "000000x"}) // wrong code: ignored
	p.system.Root.Send(supervisor.ServicePID(p.system, "lan"), lan.AcceptPairing{Code: code})
	if err := <-done; err != nil {
		t.Fatalf("pair: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "Code: "+code+"\n") {
		t.Fatalf("the CLI printed another code than the Pi's %s:\n%s", code, out.String())
	}
	if cs := p.state(t).Clients; !slices.ContainsFunc(cs, func(c lan.Client) bool { return c.Name == name }) {
		t.Fatalf("clients after pairing: %+v", cs)
	}
	return dir
}

// startHook runs the permission hook in-process (clitest.StartHook).
func startHook(dir string, args []string, input string) *clitest.Hook {
	return clitest.StartHook(run, dir, args, input)
}

func waitPrompt(t *testing.T, p *pi) approvals.PromptView {
	t.Helper()
	var pv approvals.PromptView
	supervisortest.WaitFor(t, "the prompt in approvals", func() bool {
		ps := p.pending(t)
		if len(ps) == 1 {
			pv = ps[0]
			return true
		}
		return false
	})
	return pv
}

func TestHookPermissionEndToEnd(t *testing.T) {
	t.Setenv("CLAUDE_CODE_ENTRYPOINT", "cli")
	p := startPi(t)
	dir := pairCLI(t, p, "laptop")

	decide := func(pv approvals.PromptView, d approvals.Decision) {
		p.system.Root.Send(supervisor.ServicePID(p.system, "approvals"), approvals.Decide{Source: pv.Source, ID: pv.ID, Decision: d, By: "Claude_Pi"})
	}
	t.Run("approve", func(t *testing.T) {
		h := startHook(dir, nil, hookPermissionJSON)
		pv := waitPrompt(t, p)
		if pv.Source != hookSource || pv.Tool != "Bash" || pv.Hint != "rm -rf build && make -j8" ||
			pv.Detail != "Clean rebuild\nin /home/ada/src/engine" || pv.Label != "CLI engine · 9f3c2a10" {
			t.Fatalf("prompt on the Pi: %+v", pv)
		}
		decide(pv, approvals.AllowOnce)
		if got, want := h.Wait(t), string(hookbridge.AllowOutput()); got != want {
			t.Fatalf("hook printed %q, want %q", got, want)
		}
		supervisortest.WaitFor(t, "the prompt resolved", func() bool { return len(p.pending(t)) == 0 })
	})
	t.Run("deny", func(t *testing.T) {
		h := startHook(dir, nil, hookPermissionJSON)
		decide(waitPrompt(t, p), approvals.Deny)
		got := h.Wait(t)
		if want := string(hookbridge.DenyOutput("Denied on Claude_Pi.")); got != want {
			t.Fatalf("hook printed %q, want %q", got, want)
		}
		if strings.Contains(got, "updatedPermissions") {
			t.Fatal("persistent permission in the output")
		}
	})
	t.Run("subagent labelled", func(t *testing.T) {
		in := strings.Replace(hookPermissionJSON, `"tool_name"`, `"agent_id":"agent-7","agent_type":"Explore","tool_name"`, 1)
		h := startHook(dir, nil, in)
		pv := waitPrompt(t, p)
		if !strings.HasSuffix(pv.Label, " · subagent Explore") || strings.Contains(pv.Detail, "subagent") {
			t.Fatalf("subagent not labelled: label %q, detail %q", pv.Label, pv.Detail)
		}
		decide(pv, approvals.AllowOnce)
		if h.Wait(t) != string(hookbridge.AllowOutput()) {
			t.Fatal("subagent request not allowed")
		}
	})
	t.Run("timeout", func(t *testing.T) {
		h := startHook(dir, []string{"--timeout", "300ms"}, hookPermissionJSON)
		waitPrompt(t, p)
		if got := h.Wait(t); got != "" {
			t.Fatalf("timeout printed %q", got)
		}
		// The hook's connection dropped: the prompt leaves the Pi.
		supervisortest.WaitFor(t, "the prompt withdrawn", func() bool { return len(p.pending(t)) == 0 })
	})
	t.Run("PostToolUse clears", func(t *testing.T) {
		h := startHook(dir, nil, hookPermissionJSON)
		waitPrompt(t, p)
		if err := run(context.Background(), []string{"hook", "event", "--config", dir}, strings.NewReader(hookPostToolUseJSON), io.Discard, io.Discard); err != nil {
			t.Fatal(err)
		}
		if got := h.Wait(t); got != "" {
			t.Fatalf("hook printed %q after the session moved on", got)
		}
		supervisortest.WaitFor(t, "the prompt cleared", func() bool { return len(p.pending(t)) == 0 })
		var sess lan.Session
		for _, s := range p.state(t).Sessions {
			if lan.SourcePrefix+s.ID == hookSource {
				sess = s
			}
		}
		if sess.Project != "engine" || sess.State != "running" || sess.Activity != "Bash rm -rf build && make -j8" {
			t.Fatalf("session state %+v", sess)
		}
	})
	t.Run("PostToolUse of another call keeps the prompt", func(t *testing.T) {
		// The race the real CLI runs: the PostToolUse of call N ("touch
		// A") reaches the Pi after the PermissionRequest of call N+1
		// ("touch B") of the same session.
		b := strings.Replace(hookPermissionJSON, `"command":"rm -rf build && make -j8","description":"Clean rebuild"`, `"command":"touch B"`, 1)
		a := strings.Replace(hookPostToolUseJSON, `"tool_input":{ "description": "Clean rebuild", "command": "rm -rf build \u0026\u0026 make -j8" }`, `"tool_input":{"command":"touch A"}`, 1)
		if a == hookPostToolUseJSON || b == hookPermissionJSON {
			t.Fatal("fixtures not rewritten")
		}
		h := startHook(dir, nil, b)
		pv := waitPrompt(t, p)
		if err := run(context.Background(), []string{"hook", "event", "--config", dir}, strings.NewReader(a), io.Discard, io.Discard); err != nil {
			t.Fatal(err)
		}
		// The lan actor answers the event after applying it, so its state
		// already tells whether the prompt was dropped.
		if n := p.state(t).Pending; n != 1 {
			t.Fatalf("the PostToolUse of touch A dropped the prompt of touch B: %d pending", n)
		}
		decide(pv, approvals.AllowOnce)
		if got, want := h.Wait(t), string(hookbridge.AllowOutput()); got != want {
			t.Fatalf("hook printed %q, want %q", got, want)
		}
	})
	t.Run("the CLI killed: the prompt leaves the Pi", func(t *testing.T) {
		// A real process stands in for Claude Code; nothing kills the
		// hook when it dies, as with the real CLI.
		cli := exec.Command("sleep", "60")
		if err := cli.Start(); err != nil {
			t.Fatal(err)
		}
		defer cli.Wait()
		t.Setenv("CLAUDE_PID", strconv.Itoa(cli.Process.Pid))
		h := startHook(dir, nil, hookPermissionJSON)
		waitPrompt(t, p)
		killed := time.Now()
		cli.Process.Signal(syscall.SIGKILL)
		supervisortest.WaitFor(t, "the prompt withdrawn after the CLI died", func() bool { return p.state(t).Pending == 0 })
		t.Logf("SIGKILL of the CLI → prompt withdrawn after %v", time.Since(killed))
		if got := h.Wait(t); got != "" {
			t.Fatalf("hook printed %q for a dead CLI", got)
		}
		supervisortest.WaitFor(t, "the prompt gone from approvals", func() bool { return len(p.pending(t)) == 0 })
	})
	t.Run("desktop passes through", func(t *testing.T) {
		t.Setenv("CLAUDE_CODE_ENTRYPOINT", "claude-desktop")
		start := time.Now()
		h := startHook(dir, nil, hookPermissionJSON)
		if got := h.Wait(t); got != "" {
			t.Fatalf("desktop request printed %q", got)
		}
		t.Logf("desktop pass-through took %v", time.Since(start))
		if n := len(p.pending(t)); n != 0 {
			t.Fatalf("%d prompts shown for a desktop request", n)
		}
	})
	t.Run("unpaired refused", func(t *testing.T) {
		stranger := t.TempDir()
		b, _ := os.ReadFile(filepath.Join(dir, "pis.json"))
		os.WriteFile(filepath.Join(stranger, "pis.json"), b, 0o600) // knows the Pi, not known by it
		if got := startHook(stranger, nil, hookPermissionJSON).Wait(t); got != "" {
			t.Fatalf("unpaired client got %q", got)
		}
		if n := len(p.pending(t)); n != 0 || p.state(t).Pending != 0 {
			t.Fatalf("an unpaired request was shown (%d)", n)
		}
	})
	t.Run("revoked refused", func(t *testing.T) {
		if r := supervisortest.Ask[lan.RevokeResult](t, p.tree, lan.ServiceName, lan.Revoke{Name: "laptop"}); !r.OK {
			t.Fatalf("revoke: %+v", r)
		}
		if got := startHook(dir, nil, hookPermissionJSON).Wait(t); got != "" {
			t.Fatalf("revoked client got %q", got)
		}
		if n := len(p.pending(t)); n != 0 {
			t.Fatalf("a revoked request was shown (%d)", n)
		}
	})
}

// TestHookPiStopped: nothing listens where the Pi was; the hook gives no
// decision at once.
func TestHookPiStopped(t *testing.T) {
	t.Setenv("CLAUDE_CODE_ENTRYPOINT", "cli")
	p := startPi(t)
	dir := pairCLI(t, p, "laptop")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.tree.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	h := startHook(dir, nil, hookPermissionJSON)
	if got := h.Wait(t); got != "" {
		t.Fatalf("stopped Pi: hook printed %q", got)
	}
	t.Logf("stopped Pi: no decision after %v", h.Ended.Sub(h.Started))
}

// TestHookPanicsGiveNoDecision: a broken reader must not break the hook.
func TestHookBadInputGivesNoDecision(t *testing.T) {
	t.Setenv("CLAUDE_CODE_ENTRYPOINT", "cli")
	for _, in := range []string{"", "{", `{"session_id":"s","hook_event_name":"Stop"}`, strings.Repeat("x", 1<<20)} {
		var out bytes.Buffer
		if err := run(context.Background(), []string{"hook", "permission", "--config", t.TempDir()}, strings.NewReader(in), &out, io.Discard); err != nil || out.Len() != 0 {
			t.Fatalf("input %.20q: %v, %q", in, err, out.String())
		}
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"hook", "permission", "--config", t.TempDir()}, panicReader{}, &out, io.Discard); err != nil {
		t.Fatalf("a panicking reader: %v", err)
	}
	if out.Len() != 0 {
		t.Fatal("output after a panic")
	}
}

type panicReader struct{}

func (panicReader) Read([]byte) (int, error) { panic("boom") }

// TestHookLatency logs how long a prompt takes from the hook's start to
// approvals, and from the decision to the hook's output (no assertion).
func TestHookLatency(t *testing.T) {
	t.Setenv("CLAUDE_CODE_ENTRYPOINT", "cli")
	p := startPi(t)
	dir := pairCLI(t, p, "laptop")
	for len(p.events) > 0 {
		<-p.events
	}
	var toPrompt, toOutput []time.Duration
	var mu sync.Mutex
	for i := 0; i < 20; i++ {
		h := startHook(dir, nil, hookPermissionJSON)
		var pv approvals.Prompt
		for pv.ID == "" {
			select {
			case e := <-p.events:
				if a, ok := e.(approvals.PromptAppeared); ok {
					pv = a.Prompt
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no PromptAppeared")
			}
		}
		appeared := time.Now()
		p.system.Root.Send(supervisor.ServicePID(p.system, "approvals"), approvals.Decide{Source: pv.Source, ID: pv.ID, Decision: approvals.AllowOnce, By: "Claude_Pi"})
		if h.Wait(t) != string(hookbridge.AllowOutput()) {
			t.Fatal("no allow")
		}
		mu.Lock()
		toPrompt = append(toPrompt, appeared.Sub(h.Started))
		toOutput = append(toOutput, h.Ended.Sub(appeared))
		mu.Unlock()
	}
	slices.Sort(toPrompt)
	slices.Sort(toOutput)
	t.Logf("hook start → prompt in approvals: p50 %v, max %v (includes a fresh TLS handshake and key load)", toPrompt[len(toPrompt)/2], toPrompt[len(toPrompt)-1])
	t.Logf("decision → hook output: p50 %v, max %v", toOutput[len(toOutput)/2], toOutput[len(toOutput)-1])
}
