package screens

import (
	"encoding/json"
	"image"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

// callView is the approval screen of a CLI tool call, made as the hook
// and the Pi make it: hookbridge.DescribeRequest on the computer, the
// request's fields on the Pi.
func callView(tool string, input json.RawMessage) ApprovalView {
	c := hookbridge.DescribeRequest(hookbridge.HookInput{ToolName: tool, ToolInput: input, CWD: "/home/ada/src/engine"})
	return ApprovalView{Tool: tool, Hint: c.Hint, Detail: c.Detail, Warnings: strings.Join(c.Warnings, "\n"),
		Source: "CLI engine · 9f3c2a10", Age: 3 * time.Second, Approve: "A", Deny: "B", Next: "X", Back: "Y"}
}

// TestApproval_everyFieldOfACallShows: for every built-in tool and an
// MCP tool, two calls that differ in one field (the pairs of
// protocols/hookbridge's TestDescribe_everyFieldCounts) look different on
// some page, at both panel sizes.
func TestApproval_everyFieldOfACallShows(t *testing.T) {
	b, err := os.ReadFile("../../../protocols/hookbridge/" + hookbridgePairs)
	if err != nil {
		t.Fatal(err)
	}
	var pairs []struct {
		Tool, What string
		A, B       json.RawMessage
	}
	if err := json.Unmarshal(b, &pairs); err != nil {
		t.Fatal(err)
	}
	tools := map[string]bool{}
	for _, size := range []image.Point{{240, 240}, {320, 240}} {
		r := renderer(t, size.X, size.Y)
		for _, p := range pairs {
			tools[p.Tool] = true
			if !rendersDiffer(r, callView(p.Tool, p.A), callView(p.Tool, p.B)) {
				t.Errorf("%v %s: %s: the screen shows the same:\n%s\n%s", size, p.Tool, p.What, p.A, p.B)
			}
		}
	}
	for _, want := range []string{"Bash", "Edit", "MultiEdit", "Write", "Read", "NotebookEdit", "WebFetch", "WebSearch", "Glob", "Grep", "Task", "Agent", "TodoWrite", "ExitPlanMode"} {
		if !tools[want] {
			t.Errorf("no pairs of %s in %s", want, hookbridgePairs)
		}
	}
	if len(pairs) < 200 {
		t.Fatalf("only %d pairs", len(pairs))
	}
}

// hookbridgePairs is hookbridge's PairsFile (a test constant there).
const hookbridgePairs = "testdata/toolcall-pairs.json"

// TestApproval_warningLines: a flag that widens a call is drawn as a
// warning line on every page, like the hidden-character warning.
func TestApproval_warningLines(t *testing.T) {
	r := renderer(t, 240, 240)
	long := `{"command":"npm test","description":"` + strings.Repeat("Run every test of the workspace. ", 20) + `","dangerouslyDisableSandbox":true,"run_in_background":true}`
	v := callView("Bash", json.RawMessage(long))
	n := r.ApprovalPages(v)
	if n < 2 {
		t.Fatalf("%d pages, want several", n)
	}
	for i := range n {
		v.Page = i
		if d := r.Approval(r.NewFrame(), v); d.Warnings != 2 || d.Hidden {
			t.Errorf("page %d: %+v, want 2 warning lines and no hidden-character warning", i, d)
		}
	}
	plain := callView("Bash", json.RawMessage(`{"command":"npm test"}`))
	if d := r.Approval(r.NewFrame(), plain); d.Warnings != 0 {
		t.Errorf("no flags: %+v", d)
	}
	hidden := plain
	hidden.Hint += "\u202e"
	hidden.Warnings = hookbridge.WarnNoSandbox
	if d := r.Approval(r.NewFrame(), hidden); d.Warnings != 2 || !d.Hidden {
		t.Errorf("hidden characters and a flag: %+v, want both lines", d)
	}
}
