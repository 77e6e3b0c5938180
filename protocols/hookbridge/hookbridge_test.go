package hookbridge

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// realisticPermission is a PermissionRequest as Claude Code writes it.
const realisticPermission = `{"session_id":"abc123","transcript_path":"/home/ada/.claude/projects/engine/abc123.jsonl","cwd":"/home/ada/src/engine","permission_mode":"default","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -rf build/\nmake","description":"Clean and rebuild"},"permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"rm:*"}],"behavior":"allow","destination":"localSettings"}]}`

func TestDecodeHookInput(t *testing.T) {
	tests := []struct {
		name, in string
		wantErr  string
		check    func(t *testing.T, in HookInput)
	}{
		{name: "permission", in: realisticPermission, check: func(t *testing.T, in HookInput) {
			if in.SessionID != "abc123" || in.ToolName != "Bash" || in.CWD != "/home/ada/src/engine" || in.PermissionMode != "default" {
				t.Fatalf("decoded %+v", in)
			}
			if len(in.PermissionSuggestions) == 0 {
				t.Fatal("permission_suggestions not kept")
			}
		}},
		{name: "subagent", in: `{"session_id":"s","hook_event_name":"PermissionRequest","tool_name":"Edit","tool_input":{},"agent_id":"a1","agent_type":"Explore"}`, check: func(t *testing.T, in HookInput) {
			if in.AgentID != "a1" || in.AgentType != "Explore" {
				t.Fatalf("agent %q %q", in.AgentID, in.AgentType)
			}
		}},
		{name: "unknown fields ignored", in: `{"session_id":"s","hook_event_name":"Stop","stop_hook_active":false,"new":1}`},
		{name: "empty", in: ``, wantErr: "not a JSON object"},
		{name: "array", in: `[1]`, wantErr: "not a JSON object"},
		{name: "no session", in: `{"hook_event_name":"Stop"}`, wantErr: "no session_id"},
		{name: "no event", in: `{"session_id":"s"}`, wantErr: "no hook_event_name"},
		{name: "permission without tool", in: `{"session_id":"s","hook_event_name":"PermissionRequest"}`, wantErr: "without tool_name"},
		{name: "wrong type", in: `{"session_id":7,"hook_event_name":"Stop"}`, wantErr: "cannot unmarshal"},
		{name: "truncated", in: `{"session_id":"s"`, wantErr: "unexpected end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := DecodeHookInput([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !errors.Is(err, ErrHookInput) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.check != nil {
				tt.check(t, in)
			}
		})
	}
}

func TestDecodeHookInputTooBig(t *testing.T) {
	if _, err := DecodeHookInput(make([]byte, MaxHookInput+1)); err == nil {
		t.Fatal("accepted an input over MaxHookInput")
	}
}

func TestOutputs(t *testing.T) {
	if got, want := string(AllowOutput()), `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`+"\n"; got != want {
		t.Fatalf("allow = %s, want %s", got, want)
	}
	if got, want := string(DenyOutput(DenyMessage("Claude_Pi", "CoreS3"))), `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"Denied on Claude_Pi (CoreS3)."}}}`+"\n"; got != want {
		t.Fatalf("deny = %s, want %s", got, want)
	}
	for _, b := range [][]byte{AllowOutput(), DenyOutput("x")} {
		if strings.Contains(string(b), "updatedPermissions") || strings.Contains(string(b), "updatedInput") {
			t.Fatalf("persistent field in %s", b)
		}
	}
}

func TestProjectName(t *testing.T) {
	for in, want := range map[string]string{
		"/home/ada/src/engine":  "engine",
		"/home/ada/src/engine/": "engine",
		`C:\Users\ada\engine`:   "engine",
		`C:\`:                   "?",
		"":                      "?",
		"/":                     "?",
		"rel":                   "rel",
	} {
		if got := ProjectName(in); got != want {
			t.Errorf("ProjectName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSummary(t *testing.T) {
	tests := []struct {
		tool, input, hint, detail string
	}{
		{"Bash", `{"command":"rm -rf build/\nmake","description":"Clean"}`, "rm -rf build/ …", "Clean\n$ rm -rf build/\nmake"},
		{"Bash", `{"command":"go test ./...","description":"Run the tests"}`, "go test ./...", "Run the tests"},
		{"Bash", `{"command":"ls"}`, "ls", ""},
		{"Edit", `{"file_path":"/a/b.go","old_string":"x","new_string":"y\nz\n"}`, "/a/b.go", "edit: -1 +2 lines\n--- old\nx\n+++ new\ny\nz\n"},
		{"Edit", `{"file_path":"/a/b.go","old_string":"x","new_string":"","replace_all":true}`, "/a/b.go", "edit: -1 +0 lines, every occurrence\n--- old\nx\n+++ new\n"},
		{"MultiEdit", `{"file_path":"/a/b.go","edits":[{"old_string":"a\nb","new_string":"c"},{"old_string":"d","new_string":"e\nf\ng"}]}`, "/a/b.go", "2 edits: -3 +4 lines\n--- old\na\nb\n+++ new\nc\n--- old\nd\n+++ new\ne\nf\ng"},
		{"Write", `{"file_path":"/a/new.txt","content":"one\ntwo\n"}`, "/a/new.txt", "write: 2 lines, 8 bytes\n--- content\none\ntwo\n"},
		{"Read", `{"file_path":"/a/b.go"}`, "/a/b.go", ""},
		{"NotebookEdit", `{"notebook_path":"/n.ipynb","cell_id":"c3","edit_mode":"insert"}`, "/n.ipynb", "insert cell c3"},
		{"Grep", `{"pattern":"TODO","path":"src","glob":"*.go"}`, "TODO", "in src\nfiles *.go"},
		{"WebFetch", `{"url":"https://x.org","prompt":"read"}`, "https://x.org", "read"},
		{"mcp__x__y", `{"q": 1}`, "MCP x · y", `{"q":1}`},
		{"Bad", `not json`, "", "not json"},
		{"mcp__x__y", "{\"q\":\"\xfb\"}", "MCP x · y", "{\"q\":\"\uFFFD\"}"},
		{"Bad", "\xff", "", "\uFFFD"},
	}
	for _, tt := range tests {
		hint, detail := Summary(tt.tool, json.RawMessage(tt.input))
		if hint != tt.hint || detail != tt.detail {
			t.Errorf("Summary(%s, %s) = %q, %q; want %q, %q", tt.tool, tt.input, hint, detail, tt.hint, tt.detail)
		}
	}
	long := `{"command":"` + strings.Repeat("é", 1000) + `"}`
	hint, _ := Summary("Bash", json.RawMessage(long))
	if len(hint) > MaxHint || !strings.HasPrefix(hint, "é") || strings.ToValidUTF8(hint, "?") != hint {
		t.Fatalf("long hint clipped badly: %d bytes", len(hint))
	}
}

func TestRequestDetail(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"command and cwd", realisticPermission, "Clean and rebuild\n$ rm -rf build/\nmake\nin /home/ada/src/engine"},
		{"no detail", `{"session_id":"s","hook_event_name":"PermissionRequest","cwd":"/src/x","tool_name":"Read","tool_input":{"file_path":"/etc/passwd"}}`, "in /src/x"},
		{"no cwd", `{"session_id":"s","hook_event_name":"PermissionRequest","tool_name":"Write","tool_input":{"file_path":"a","content":"x"}}`, "write: 1 lines, 1 bytes\n--- content\nx"},
	}
	for _, tt := range tests {
		in, err := DecodeHookInput([]byte(tt.in))
		if err != nil {
			t.Fatal(err)
		}
		if got := RequestDetail(in); got != tt.want {
			t.Errorf("%s: RequestDetail = %q, want %q", tt.name, got, tt.want)
		}
	}
	// A 4 KB command arrives whole, its last line included.
	cmd := strings.Repeat("cp part.tar.gz /srv/releases/ && sha256sum part\\n", 80) + "rm -rf ~"
	in := HookInput{CWD: "/home/ada/src/engine", ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"` + cmd + `"}`)}
	if d := RequestDetail(in); !strings.Contains(d, "\nrm -rf ~\nin /home/ada/src/engine") {
		t.Fatalf("4 KB command: detail of %d bytes ends %q", len(d), d[max(0, len(d)-60):])
	}
	// A huge command is clipped, says so, and the directory still fits.
	in = HookInput{CWD: "/home/ada/src/engine", ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"` + strings.Repeat("x", 20000) + `\nmore"}`)}
	d := RequestDetail(in)
	if len(d) > MaxDetail || !strings.HasSuffix(d, " more bytes not shown]\nin /home/ada/src/engine") {
		t.Fatalf("long detail: %d bytes, ends %q", len(d), d[max(0, len(d)-40):])
	}
}

func TestActivity(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"session_id":"s","hook_event_name":"UserPromptSubmit","prompt":"fix the tests\nplease"}`, "fix the tests …"},
		{`{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"go test"}}`, "Bash go test"},
		{`{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"mcp__github__create_issue","tool_input":{"title":"x"}}`, "MCP github · create_issue"},
		{`{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Shell","tool_input":{"command":"ls"}}`, "Shell"},
		{`{"session_id":"s","hook_event_name":"Stop"}`, "done"},
		{`{"session_id":"s","hook_event_name":"Notification","message":"Claude needs your permission"}`, "Claude needs your permission"},
	}
	for _, tt := range tests {
		in, err := DecodeHookInput([]byte(tt.in))
		if err != nil {
			t.Fatal(err)
		}
		if got := Activity(in); got != tt.want {
			t.Errorf("Activity(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDecodePermissionRequest(t *testing.T) {
	ok := PermissionRequest{ID: "r1", Session: "s", Project: "engine", Tool: "Bash", Hint: "ls", Agent: "a", AgentType: "Explore"}
	b, _ := json.Marshal(ok)
	got, err := DecodePermissionRequest(b)
	if err != nil || !reflect.DeepEqual(got, ok) {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	bad := map[string]string{
		"unknown field":  `{"id":"r","session":"s","tool":"t","always":true}`,
		"no id":          `{"session":"s","tool":"t"}`,
		"no tool":        `{"id":"r","session":"s"}`,
		"long hint":      `{"id":"r","session":"s","tool":"t","hint":"` + strings.Repeat("x", MaxHint+1) + `"}`,
		"trailing":       `{"id":"r","session":"s","tool":"t"}{}`,
		"too big":        strings.Repeat(" ", MaxRequest+1),
		"not an object":  `"x"`,
		"number session": `{"id":"r","session":1,"tool":"t"}`,
	}
	for name, in := range bad {
		if _, err := DecodePermissionRequest([]byte(in)); !errors.Is(err, ErrRequest) {
			t.Errorf("%s: err = %v, want ErrRequest", name, err)
		}
	}
}

func TestDecodeDecision(t *testing.T) {
	tests := []struct {
		in, id, want string
		ok           bool
	}{
		{`{"id":"r1","behavior":"allow"}`, "r1", BehaviorAllow, true},
		{`{"id":"r1","behavior":"deny","device":"Claude_Pi"}`, "r1", BehaviorDeny, true},
		{`{"id":"r2","behavior":"allow"}`, "r1", "", false},
		{`{"id":"","behavior":"none","reason":"withdrawn"}`, "r1", BehaviorNone, true},
		{`{"id":"r1","behavior":"always"}`, "r1", "", false},
		{`{"id":"r1","behavior":"allow","updatedPermissions":[]}`, "r1", "", false},
	}
	for _, tt := range tests {
		d, err := DecodeDecision([]byte(tt.in), tt.id)
		if (err == nil) != tt.ok || d.Behavior != tt.want {
			t.Errorf("DecodeDecision(%s) = %+v, %v", tt.in, d, err)
		}
	}
}

func TestCallKey(t *testing.T) {
	k := CallKey("Bash", json.RawMessage(`{"command":"rm -rf build && make","description":"Clean","timeout":120000}`))
	same := []string{
		`{"description":"Clean","command":"rm -rf build && make","timeout":120000}`,
		"{ \"timeout\" : 120000,\n \"command\": \"rm -rf build \\u0026\\u0026 make\", \"description\": \"Clean\" }",
	}
	for _, in := range same {
		if got := CallKey("Bash", json.RawMessage(in)); got != k {
			t.Errorf("CallKey of %s = %s, want %s (the same call)", in, got, k)
		}
	}
	other := map[string]json.RawMessage{
		"Bash":  json.RawMessage(`{"command":"rm -rf build && make","description":"Clean","timeout":120001}`),
		"Bash ": json.RawMessage(`{"command":"rm -rf build && make","description":"Clean","timeout":120000}`),
		"Edit":  json.RawMessage(`{"command":"rm -rf build && make","description":"Clean","timeout":120000}`),
	}
	for tool, in := range other {
		if CallKey(tool, in) == k {
			t.Errorf("CallKey(%q, %s) equals another call's", tool, in)
		}
	}
	if len(k) > MaxID {
		t.Fatalf("key %q longer than the wire allows", k)
	}
	if CallKey("Bash", json.RawMessage(`not json`)) == CallKey("Bash", json.RawMessage(`not json!`)) {
		t.Fatal("two inputs that are not JSON share a key")
	}
}

func TestReply(t *testing.T) {
	in, err := DecodeHookInput([]byte(`{"session_id":"s","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"  Done. All green.\n"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := Reply(in); got != "Done. All green." {
		t.Fatalf("Reply = %q", got)
	}
	in.HookEventName = EventSessionEnd
	if got := Reply(in); got != "" {
		t.Fatalf("Reply of a SessionEnd = %q", got)
	}
	in.HookEventName, in.LastAssistantMessage = EventStop, strings.Repeat("é", MaxReply)+"\xff"
	if got := Reply(in); len(got) > MaxReply || !utf8.ValidString(got) {
		t.Fatalf("long reply: %d bytes, UTF-8 %v", len(got), utf8.ValidString(got))
	}
}
