package e2e

// Stack-chan's tools under the real Claude Code CLI (issue 26): the
// cores3-sim docked on the sim appliance offers its catalog over the
// session layer, `claude-pi mcp` (added with `claude mcp add`, as the
// README says) serves it to `claude -p` over the paired LAN bridge, and the
// fake model (claudecli_fakeapi_test.go) calls mcp__claude-pi__<tool>.
// Claude Code asks permission for the MCP tool; the hooks bring that
// prompt to the Pi, where the sim's A button approves it.

import (
	"context"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/internal/mcpserver"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

func TestMCPStackchanTools(t *testing.T) {
	e2e(t)
	t.Parallel() // mostly waiting (timers, a real CLI): runs beside the other slow ones
	bin := claudeBinary(t)
	core := startCoreSim(t)
	r, cli := newClaudeRig(t, bin, core, nil)
	config, home := r.config, r.home
	addMCP := func(t *testing.T, config string) {
		t.Helper()
		remove := exec.Command(bin, "mcp", "remove", "-s", "user", "claude-pi")
		remove.Env = claudeEnv(home, r.api.URL(), config)
		remove.Run() // absent the first time
		add := exec.Command(bin, "mcp", "add", "-s", "user", "claude-pi", "--", cli, "mcp", "--config", config)
		add.Env = claudeEnv(home, r.api.URL(), config)
		if out, err := add.CombinedOutput(); err != nil {
			t.Fatalf("claude mcp add: %v\n%s", err, out)
		}
	}
	addMCP(t, config)

	// The sim offered its catalog and the dock acknowledged it: the LAN
	// bridge lists the five tools, as `claude-pi mcp` will.
	pi, id, err := mcpserver.LoadPi(config, "")
	if err != nil {
		t.Fatal(err)
	}
	bridge := mcpserver.NewHTTPBridge(pi, id)
	supervisortest.Within(t, 20*time.Second, "the cores3-sim's catalog on the LAN bridge", func() bool {
		cat, err := bridge.Catalog(context.Background(), 0, false)
		return err == nil && cat.Docked && len(cat.Tools) == 5
	})

	t.Run("a call changes the face and its output reaches the model", func(t *testing.T) {
		mark := core.mark()
		c := r.start(t, "mcp-face", "look happy", plan{
			turns: [][]toolCall{{{Name: "mcp__claude-pi__set_expression", Input: map[string]any{"expression": "happy"}}}},
			final: "Stack-chan looks happy now.",
		})
		pv := r.shown(t, c)
		if pv.Tool != "mcp__claude-pi__set_expression" {
			t.Fatalf("the permission prompt on the Pi: %+v", pv)
		}
		r.decide(t, pv, "A")
		c.wait(t)
		core.await(10*time.Second, mark, `the face's expression "happy" on cores3-sim`, func(l uiLine) bool {
			f, _ := l.M["face"].(map[string]any)
			return f != nil && f["expression"] == "happy"
		})
		res := r.api.Results("mcp-face")
		// The output reaches the model quoted, as data (issue 33 item 4b).
		if len(res) != 1 || res[0].IsError || !strings.Contains(res[0].Text, `expression is now happy`) {
			t.Fatalf("tool results the model got: %+v", res)
		}
	})

	t.Run("say: the caption shows on cores3-sim", func(t *testing.T) {
		mark := core.mark()
		c := r.start(t, "mcp-say", "say hi", plan{
			turns: [][]toolCall{{{Name: "mcp__claude-pi__say", Input: map[string]any{"text": "Hello from Claude!"}}}},
			final: "Said it.",
		})
		r.decide(t, r.shown(t, c), "A")
		// Claude Code's dialog is not enough for say: the Pi asks too
		// (issue 33 item 4a).
		pv := r.shownFrom(t, "Stack-chan", "")
		if pv.Tool != "mcp__claude-pi__say" || !strings.Contains(pv.Hint+pv.Detail, "Hello from Claude!") {
			t.Fatalf("the Pi's own prompt for say: %+v", pv)
		}
		r.decide(t, pv, "A")
		c.wait(t)
		core.await(10*time.Second, mark, "the caption on cores3-sim", func(l uiLine) bool {
			return l.is("ui", "caption") && l.str("text") == "Hello from Claude!"
		})
		if res := r.api.Results("mcp-say"); len(res) != 1 || res[0].IsError {
			t.Fatalf("tool results the model got: %+v", res)
		}
	})

	t.Run("say denied on the Pi's own prompt: an error, no caption", func(t *testing.T) {
		mark := core.mark()
		c := r.start(t, "mcp-say-denied", "say it", plan{
			turns: [][]toolCall{{{Name: "mcp__claude-pi__say", Input: map[string]any{"text": "Not this one"}}}},
			final: "Understood.",
		})
		r.decide(t, r.shown(t, c), "A")
		r.decide(t, r.shownFrom(t, "Stack-chan", ""), "B")
		c.wait(t)
		res := r.api.Results("mcp-say-denied")
		if len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].Text, "did not approve") {
			t.Fatalf("tool results the model got: %+v", res)
		}
		if slices.ContainsFunc(core.since(mark), func(l uiLine) bool { return l.is("ui", "caption") && l.str("text") == "Not this one" }) {
			t.Fatal("denied on the Pi, but the caption showed")
		}
	})

	t.Run("denied on the Pi: the tool does not run", func(t *testing.T) {
		mark := core.mark()
		c := r.start(t, "mcp-deny", "shake", plan{
			turns: [][]toolCall{{{Name: "mcp__claude-pi__shake", Input: map[string]any{"times": 2}}}},
			final: "Understood.",
		})
		r.decide(t, r.shown(t, c), "B")
		c.wait(t)
		res := r.api.Results("mcp-deny")
		if len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].Text, "Denied on Claude_Pi") {
			t.Fatalf("tool results the model got: %+v", res)
		}
		if slices.ContainsFunc(core.since(mark), func(l uiLine) bool { f, _ := l.M["face"].(map[string]any); return f != nil && f["gesture"] == "shake" }) {
			t.Fatal("denied, but the face shook")
		}
	})

	t.Run("Pi down: a clear error, nothing hangs", func(t *testing.T) {
		addMCP(t, deadPiConfig(t, config))
		defer addMCP(t, config)
		c := r.start(t, "mcp-pidown", "nod", plan{
			turns: [][]toolCall{{{Name: "mcp__claude-pi__nod", Input: map[string]any{}}}},
			final: "Understood.",
		})
		c.wait(t)
		if res := r.api.Results("mcp-pidown"); len(res) != 1 || !res[0].IsError {
			t.Fatalf("tool results the model got: %+v", res)
		} else {
			t.Logf("Pi down: the model got %q in %v", res[0].Text, c.exited.Sub(c.start))
		}
	})

	t.Run("dock unplugged during a call, then a fresh catalog", func(t *testing.T) {
		// The CoreS3 loses USB presence while the Pi's port stays open:
		// the Pi's call goes out and nothing answers.
		mark := core.mark()
		core.send("unplug")
		core.await(5*time.Second, mark, "link disconnected", func(l uiLine) bool { return l.is("ui", "link") && l.is("state", "disconnected") })
		c := r.start(t, "mcp-unplugged", "nod", plan{
			turns: [][]toolCall{{{Name: "mcp__claude-pi__nod", Input: map[string]any{}}}},
			final: "Understood.",
		})
		r.decide(t, r.shown(t, c), "A")
		c.wait(t)
		res := r.api.Results("mcp-unplugged")
		if len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].Text, "timeout") {
			t.Fatalf("tool results the model got: %+v", res)
		}
		t.Logf("unplugged: the model got %q after %v", res[0].Text, c.exited.Sub(c.start))

		// Plugged again: the Pi's next EVENT is refused, it handshakes
		// again, and the sim offers a new catalog (a new generation).
		before, err := bridge.Catalog(context.Background(), 0, false)
		if err != nil {
			t.Fatal(err)
		}
		core.send("plug")
		var after hookbridge.ToolCatalog
		for i := 0; ; i++ {
			c := r.start(t, "mcp-replugged-"+strconv.Itoa(i), "nod", plan{
				turns: [][]toolCall{{{Name: "mcp__claude-pi__nod", Input: map[string]any{"times": 2}}}},
				final: "Nodded.",
			})
			r.decide(t, r.shown(t, c), "A")
			c.wait(t)
			res := r.api.Results("mcp-replugged-" + strconv.Itoa(i))
			if len(res) == 1 && !res[0].IsError {
				if !strings.Contains(res[0].Text, "nodded 2 times") {
					t.Fatalf("tool result %+v", res[0])
				}
				break
			}
			t.Logf("call %d after the replug: %+v", i, res)
			if i == 3 {
				t.Fatal("no call worked after the replug")
			}
			supervisortest.Within(t, 20*time.Second, "a fresh catalog", func() bool {
				after, err = bridge.Catalog(context.Background(), 0, false)
				return err == nil && after.Docked && after.UpdateID != before.UpdateID
			})
		}
		after, _ = bridge.Catalog(context.Background(), 0, false)
		if after.UpdateID == before.UpdateID {
			t.Fatalf("the catalog after the replug is the old one: %+v", after)
		}
	})
}
