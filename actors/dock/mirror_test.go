package dock

import (
	"strings"
	"testing"

	"github.com/claude-pi/claude-pi/actors/approvals"
	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
)

// TestApprovalRequestCarriesTheWholePrompt: what the Pi shows of a prompt
// (warnings, hint, detail, the whole tool name) reaches the CoreS3, and
// truncated is set when the prompt is not the whole call.
func TestApprovalRequestCarriesTheWholePrompt(t *testing.T) {
	long := "mcp__github_enterprise__create_pull_request_review"
	for _, tt := range []struct {
		name                   string
		p                      approvals.Prompt
		summary, detail, title string
		truncated              bool
	}{
		{"desktop", approvals.Prompt{Tool: "Bash", Hint: "npm test"}, "npm test", "npm test", "Bash", false},
		{"cli", approvals.Prompt{Tool: "Bash", Hint: "npm test", Detail: "Run the tests\nin /src"},
			"npm test", "npm test\nRun the tests\nin /src", "Bash", false},
		{"warnings", approvals.Prompt{Tool: "Bash", Hint: "npm test", Warnings: "runs outside the sandbox\nruns in the background"},
			"! runs outside the sandbox\n! runs in the background\nnpm test", "! runs outside the sandbox\n! runs in the background\nnpm test", "Bash", false},
		{"long tool", approvals.Prompt{Tool: long, Hint: "MCP github_enterprise · create_pull_request_review", Detail: `{"body":"x"}`},
			"MCP github_enterprise · create_pull_request_review", "MCP github_enterprise · create_pull_request_review\n{\"body\":\"x\"}\ntool: " + long, long, false},
		{"clipped by the hook", approvals.Prompt{Tool: "Write", Hint: "/a", Detail: "x\n[… 9 more bytes not shown]", Truncated: true},
			"/a", "/a\nx\n[… 9 more bytes not shown]", "Write", true},
		{"no tool", approvals.Prompt{Hint: "h"}, "h", "h", "Claude", false},
	} {
		r := approvalRequest("approval-1", tt.p)
		if r.Summary != tt.summary || r.Detail != tt.detail || r.Title != tt.title || r.Truncated != tt.truncated {
			t.Errorf("%s: approval.request = %+v\nwant summary %q detail %q title %q truncated %v", tt.name, r, tt.summary, tt.detail, tt.title, tt.truncated)
		}
	}
	// Over the CoreS3's limit: cut there, and said.
	r := approvalRequest("approval-1", approvals.Prompt{Tool: "Write", Hint: "/a", Detail: strings.Repeat("x", appevent.MaxDetail)})
	if !r.Truncated || len(r.Detail) > appevent.MaxDetail {
		t.Fatalf("%d-byte detail: truncated %v, %d bytes", appevent.MaxDetail, r.Truncated, len(r.Detail))
	}
}

func TestAnnouncementSaysWarnings(t *testing.T) {
	p := approvals.Prompt{Tool: "Bash", Hint: "npm test", Warnings: "runs outside the sandbox"}
	if got, want := announcement(p), "Claude wants to run Bash: npm test. Warning: it runs outside the sandbox."; got != want {
		t.Fatalf("announcement = %q, want %q", got, want)
	}
	p.Warnings = ""
	if got := announcement(p); strings.Contains(got, "Warning") {
		t.Fatalf("announcement without warnings = %q", got)
	}
}
