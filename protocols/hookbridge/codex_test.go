package hookbridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// Inputs as Codex 0.171.0 wrote them to a hook's stdin (captured from
// `codex app-server` against a scripted model, paths shortened).
const (
	codexPermission = `{"session_id":"01a242e1-06ed-77e1-ac79-7200082a1ef6","turn_id":"01a242e1-0701-7b82-a0e0-f4860295a050","transcript_path":"/home/ada/.codex/sessions/rollout.jsonl","cwd":"/home/ada/src/engine","hook_event_name":"PermissionRequest","model":"gpt-5","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"touch made-by-codex.txt","description":"make the file"}}`
	codexStop       = `{"session_id":"01a242e1-06ed-77e1-ac79-7200082a1ef6","turn_id":"01a242e1-0701-7b82-a0e0-f4860295a050","transcript_path":null,"cwd":"/home/ada/src/engine","hook_event_name":"Stop","model":"gpt-5","permission_mode":"default","stop_hook_active":false,"last_assistant_message":"All done."}`
	codexPrompt     = `{"session_id":"01a242e1-06ed-77e1-ac79-7200082a1ef6","turn_id":"t","transcript_path":null,"cwd":"/home/ada/src/engine","hook_event_name":"UserPromptSubmit","model":"gpt-5","permission_mode":"default","prompt":"make a file\nplease"}`
	codexPostTool   = `{"session_id":"01a242e1-06ed-77e1-ac79-7200082a1ef6","turn_id":"t","transcript_path":null,"cwd":"/home/ada/src/engine","hook_event_name":"PostToolUse","model":"gpt-5","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"touch made-by-codex.txt"},"tool_response":"touch: cannot touch","tool_use_id":"call_1"}`
	codexStart      = `{"session_id":"01a242e1-06ed-77e1-ac79-7200082a1ef6","transcript_path":null,"cwd":"/home/ada/src/engine","hook_event_name":"SessionStart","model":"gpt-5","permission_mode":"default","source":"startup"}`
)

func TestDecodeCodexHookInputPermission(t *testing.T) {
	in, err := DecodeCodexHookInput([]byte(codexPermission))
	if err != nil {
		t.Fatal(err)
	}
	if in.HookEventName != EventPermissionRequest || in.ToolName != "Bash" || in.SessionID != "01a242e1-06ed-77e1-ac79-7200082a1ef6" || in.PermissionMode != "default" || ProjectName(in.CWD) != "engine" {
		t.Fatalf("decoded %+v", in)
	}
	c := DescribeRequest(in)
	if c.Hint != "touch made-by-codex.txt" {
		t.Errorf("hint %q, want the whole command", c.Hint)
	}
	if want := "make the file\nin /home/ada/src/engine"; c.Detail != want {
		t.Errorf("detail %q, want %q", c.Detail, want)
	}
	if CallKey(in.ToolName, in.ToolInput) == "" {
		t.Error("no call key")
	}
}

func TestDecodeCodexHookInputEvents(t *testing.T) {
	for _, tc := range []struct {
		in, event, activity, reply string
	}{
		{codexStop, EventStop, "done", "All done."},
		{codexPrompt, EventUserPromptSubmit, "make a file …", ""},
		{codexPostTool, EventPostToolUse, "Bash touch made-by-codex.txt", ""},
		{codexStart, EventSessionStart, "session startup", ""},
	} {
		in, err := DecodeCodexHookInput([]byte(tc.in))
		if err != nil {
			t.Fatalf("%s: %v", tc.event, err)
		}
		if in.HookEventName != tc.event || Activity(in) != tc.activity || Reply(in) != tc.reply {
			t.Errorf("%s: event %q activity %q reply %q, want %q %q", tc.event, in.HookEventName, Activity(in), Reply(in), tc.activity, tc.reply)
		}
	}
}

func TestDecodeCodexHookInputRefuses(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"not an object", `["PermissionRequest"]`, "not a JSON object"},
		{"empty", ``, "not a JSON object"},
		{"bad JSON", `{"session_id":`, "bad hook input"},
		{"no session", `{"hook_event_name":"Stop"}`, "no session_id"},
		{"no event", `{"session_id":"s"}`, "no hook_event_name"},
		{"event not followed", `{"session_id":"s","hook_event_name":"PreCompact"}`, `Codex event "PreCompact"`},
		{"permission without tool", `{"session_id":"s","hook_event_name":"PermissionRequest"}`, "without tool_name"},
		{"mistyped field", `{"session_id":7,"hook_event_name":"Stop"}`, "bad hook input"},
	} {
		_, err := DecodeCodexHookInput([]byte(tc.in))
		if !errors.Is(err, ErrHookInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrHookInput saying %q", tc.name, err, tc.want)
		}
	}
	big := append([]byte(`{"session_id":"s","hook_event_name":"Stop","x":"`), bytes.Repeat([]byte("a"), MaxHookInput)...)
	if _, err := DecodeCodexHookInput(append(big, `"}`...)); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("oversized input: %v", err)
	}
}

func TestCodexApplyPatchShowsTheWholePatch(t *testing.T) {
	patch := "*** Begin Patch\n*** Update File: src/main.go\n@@\n-old\n+new\n*** Add File: NOTES.md\n+hi\n*** End Patch"
	input, _ := json.Marshal(map[string]string{"command": patch})
	c := DescribeRequest(HookInput{ToolName: CodexToolPatch, ToolInput: input, CWD: "/w"})
	if c.Hint != "patch: 2 files: src/main.go, NOTES.md" {
		t.Errorf("hint %q", c.Hint)
	}
	if c.Detail != patch+"\nin /w" || c.Truncated {
		t.Errorf("detail %q (truncated %v), want the whole patch", c.Detail, c.Truncated)
	}
}

func TestCodexNetworkAndPermissionsRequests(t *testing.T) {
	c := DescribeRequest(HookInput{ToolName: CodexToolNetwork, ToolInput: json.RawMessage(`{"command":"registry.npmjs.org:443","description":"install deps"}`)})
	if c.Hint != "registry.npmjs.org:443" || c.Detail != "install deps" {
		t.Errorf("network: %+v", c)
	}
	c = DescribeRequest(HookInput{ToolName: CodexToolRequestPermissions, ToolInput: json.RawMessage(`{"reason":"write the cache","permissions":{"file_system":{"write":["/var/cache"]}}}`)})
	if c.Hint != "asks for wider permissions" || len(c.Warnings) != 1 || c.Warnings[0] != WarnWiderPermissions {
		t.Errorf("request_permissions: %+v", c)
	}
	if c.Detail != `write the cache`+"\n"+`{"permissions":{"file_system":{"write":["/var/cache"]}}}` {
		t.Errorf("request_permissions detail %q: the permissions asked for must show whole", c.Detail)
	}
}

// Codex's permission-request.command.output schema forbids any field it
// does not list (additionalProperties: false, at every level): decoding
// our outputs strictly into its shape proves Codex accepts them.
func TestOutputsFitCodexSchema(t *testing.T) {
	type decision struct {
		Behavior string `json:"behavior"`
		Message  string `json:"message"`
	}
	type codexOutput struct {
		HookSpecificOutput struct {
			HookEventName string    `json:"hookEventName"`
			Decision      *decision `json:"decision"`
		} `json:"hookSpecificOutput"`
	}
	for _, tc := range []struct {
		out      []byte
		behavior string
	}{{AllowOutput(), "allow"}, {DenyOutput("Denied on Claude_Pi."), "deny"}} {
		var o codexOutput
		dec := json.NewDecoder(bytes.NewReader(tc.out))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&o); err != nil {
			t.Fatalf("%s: %v", tc.out, err)
		}
		if o.HookSpecificOutput.HookEventName != "PermissionRequest" || o.HookSpecificOutput.Decision == nil || o.HookSpecificOutput.Decision.Behavior != tc.behavior {
			t.Errorf("%s: %+v", tc.out, o)
		}
	}
}

func TestWireCLIField(t *testing.T) {
	r, err := DecodePermissionRequest([]byte(`{"id":"r","session":"s","tool":"Bash","cli":"codex"}`))
	if err != nil || r.CLI != CLICodex {
		t.Fatalf("codex request: %+v %v", r, err)
	}
	if _, err := DecodePermissionRequest([]byte(`{"id":"r","session":"s","tool":"Bash","cli":"gemini"}`)); !errors.Is(err, ErrRequest) || !strings.Contains(err.Error(), `cli "gemini"`) {
		t.Errorf("unknown cli: %v", err)
	}
	e, err := DecodeEvent([]byte(`{"session":"s","event":"Stop","cli":"codex","reply":"All done."}`))
	if err != nil || e.CLI != CLICodex {
		t.Fatalf("codex event: %+v %v", e, err)
	}
	if _, err := DecodeEvent([]byte(`{"session":"s","event":"Stop","cli":"x\u202e"}`)); !errors.Is(err, ErrRequest) {
		t.Errorf("unknown cli event: %v", err)
	}
	if CLIName(CLICodex) != "Codex" || CLIName("") != "CLI" {
		t.Errorf("names: %q %q", CLIName(CLICodex), CLIName(""))
	}
}

func FuzzDecodeCodexHookInput(f *testing.F) {
	for _, s := range []string{codexPermission, codexStop, codexPrompt, codexPostTool, codexStart} {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"session_id":"s","hook_event_name":"PermissionRequest","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: a\n+x\n*** End Patch"}}`))
	f.Add([]byte(`{"session_id":"s","hook_event_name":"PermissionRequest","tool_name":"request_permissions","tool_input":{"reason":"r","permissions":{}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := DecodeCodexHookInput(b)
		if err != nil {
			return
		}
		if in.SessionID == "" || !codexEvents[in.HookEventName] || (in.HookEventName == EventPermissionRequest && in.ToolName == "") {
			t.Fatalf("accepted %q as %+v", b, in)
		}
		c := DescribeRequest(in)
		if len(c.Hint) > MaxHint || len(c.Detail) > MaxDetail || len(Activity(in)) > MaxActivity || len(Reply(in)) > MaxReply {
			t.Fatalf("over its limits for %q", b)
		}
		if !utf8.ValidString(c.Hint) || !utf8.ValidString(c.Detail) || !utf8.ValidString(Reply(in)) {
			t.Fatalf("not UTF-8 for %q: %q %q", b, c.Hint, c.Detail)
		}
	})
}
