package appliance

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
	"github.com/claude-pi/claude-pi/actors/dock"
	"github.com/claude-pi/claude-pi/actors/ui"
	"github.com/claude-pi/claude-pi/supervisor"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// answering is a service that answers the one question q with reply.
func answering[Q any](name string, reply any) supervisor.Service {
	r := &supervisortest.Recorder{Answer: func(msg any) (any, bool) {
		_, ok := msg.(Q)
		return reply, ok
	}}
	return supervisor.Service{Name: name, New: r.New, Policy: supervisor.DefaultPolicy}
}

// TestAPIStateCarriesPromptDetailAndNewDock: what the approval screen
// pages through (detail, warnings, truncated) and the CoreS3 waiting to
// be accepted reach /api/state, both for the prompt on the screen and in
// the list; a prompt without them shows "" and [] rather than null.
func TestAPIStateCarriesPromptDetailAndNewDock(t *testing.T) {
	shown := approvals.Prompt{Source: "cli:9f3c2a10", ID: "t1", Tool: "Bash", Hint: "rm -rf build",
		Detail: "rm -rf build\n(312 more bytes not shown)", Warnings: "--dangerously-skip-permissions\nsandbox off",
		Truncated: true, Arrived: time.Now().Add(-time.Second)}
	plain := approvals.Prompt{Source: "desktop", ID: "d1", Tool: "Read", Hint: "README.md"}
	tree := supervisortest.Start(t,
		answering[ui.GetView](ui.ServiceName, ui.View{Screen: ui.ScreenApproval, Shown: shown}),
		answering[approvals.GetPending](approvals.ServiceName, approvals.Pending{Prompts: []approvals.PromptView{
			{Prompt: shown}, {Prompt: plain}}}),
		answering[dock.GetState](dock.ServiceName, dock.State{Connected: true, Path: "/dev/ttyACM0", DisplayOnly: true,
			NewDock: dock.NewDock{Asking: true, Serial: "3C84CE\x1b[2J", Shown: `3C84CE\x1b[2J`, Looks: `"x" by "y"`, Was: `"a" by "b"`}}),
	)
	st := APIState(tree, "sim", time.Second)
	raw, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Prompt  map[string]any   `json:"prompt"`
		Prompts []map[string]any `json:"prompts"`
		Dock    map[string]any   `json:"dock"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	wantShown := map[string]any{"detail": shown.Detail, "truncated": true,
		"warnings": []any{"--dangerously-skip-permissions", "sandbox off"}}
	wantPlain := map[string]any{"detail": "", "truncated": false, "warnings": []any{}}
	if len(got.Prompts) != 2 {
		t.Fatalf("prompts = %v, want 2", got.Prompts)
	}
	for _, c := range []struct {
		what string
		p    map[string]any
		want map[string]any
	}{{"prompt", got.Prompt, wantShown}, {"prompts[0]", got.Prompts[0], wantShown}, {"prompts[1]", got.Prompts[1], wantPlain}} {
		for k, w := range c.want {
			if v, ok := c.p[k]; !ok || !reflect.DeepEqual(v, w) {
				t.Errorf("%s.%s = %#v (present %v), want %#v", c.what, k, v, ok, w)
			}
		}
	}
	wantDock := map[string]any{"serial": "3C84CE\x1b[2J", "shown": `3C84CE\x1b[2J`, "looks": `"x" by "y"`, "was": `"a" by "b"`}
	if nd, _ := got.Dock["newDock"].(map[string]any); !reflect.DeepEqual(nd, wantDock) || got.Dock["displayOnly"] != true {
		t.Errorf("dock = %v, want newDock %v and displayOnly", got.Dock, wantDock)
	}

	// No dock waiting: newDock is null, not an empty object.
	tree = supervisortest.Start(t, answering[dock.GetState](dock.ServiceName, dock.State{Connected: true}))
	raw, err = json.Marshal(APIState(tree, "sim", time.Second).Dock)
	if err != nil {
		t.Fatal(err)
	}
	var d map[string]any
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	if v, ok := d["newDock"]; !ok || v != nil {
		t.Errorf("dock.newDock = %#v (present %v), want null", v, ok)
	}
}
