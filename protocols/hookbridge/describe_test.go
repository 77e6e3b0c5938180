package hookbridge

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDescribe(t *testing.T) {
	tests := []struct {
		name, tool, input string
		hint, detail      string
		warnings          []string
	}{
		{"sandbox off", "Bash", `{"command":"npm test","dangerouslyDisableSandbox":true}`, "npm test", "", []string{WarnNoSandbox}},
		{"background", "Bash", `{"command":"npm start","run_in_background":true,"dangerouslyDisableSandbox":false}`, "npm start", "", []string{WarnBackground}},
		{"flag not a boolean", "Bash", `{"command":"ls","dangerouslyDisableSandbox":"yes"}`, "ls", `{"dangerouslyDisableSandbox":"yes"}`, nil},
		{"timeout", "Bash", `{"command":"make","description":"Build","timeout":600000}`, "make", "Build\n{\"timeout\":600000}", nil},
		{"empty description", "Bash", `{"command":"ls","description":""}`, "ls", `{"description":""}`, nil},
		{"command not a string", "Bash", `{"command":["rm","-rf","/"]}`, "", `{"command":["rm","-rf","/"]}`, nil},
		{"space around the command", "Bash", `{"command":"ls "}`, "ls", "$ ls ", nil},
		{"replace all", "Edit", `{"file_path":"/a.go","old_string":"x","new_string":"y","replace_all":true}`, "/a.go",
			"edit: -1 +1 lines, every occurrence\n--- old\nx\n+++ new\ny", []string{WarnReplaceAll}},
		{"multiedit replace all", "MultiEdit", `{"file_path":"/a.go","edits":[{"old_string":"x","new_string":"y","replace_all":true}]}`, "/a.go",
			"1 edits: -1 +1 lines\n--- old\nx\n+++ new\ny", []string{WarnReplaceAll}},
		{"multiedit unknown key", "MultiEdit", `{"file_path":"/a.go","edits":[{"old_string":"x","new_string":"y","mode":"regex"}]}`, "/a.go",
			`{"edits":[{"old_string":"x","new_string":"y","mode":"regex"}]}`, nil},
		{"write extra field", "Write", `{"file_path":"/a","content":"x","mode":"0777"}`, "/a", "write: 1 lines, 1 bytes\n--- content\nx\n{\"mode\":\"0777\"}", nil},
		{"notebook source", "NotebookEdit", `{"notebook_path":"/n.ipynb","cell_id":"c3","cell_type":"code","new_source":"import os\nos.system('x')"}`, "/n.ipynb",
			"code cell c3\n--- new source\nimport os\nos.system('x')", nil},
		{"notebook insert", "NotebookEdit", `{"notebook_path":"/n.ipynb","edit_mode":"insert","new_source":""}`, "/n.ipynb", "insert cell\n--- new source\n", nil},
		{"read range", "Read", `{"file_path":"/etc/shadow","offset":10,"limit":5}`, "/etc/shadow", `{"limit":5,"offset":10}`, nil},
		{"web search", "WebSearch", `{"query":"go fuzzing","allowed_domains":["go.dev"]}`, "go fuzzing", `{"allowed_domains":["go.dev"]}`, nil},
		{"glob", "Glob", `{"pattern":"**/*.go","path":"/src"}`, "**/*.go", "in /src", nil},
		{"grep", "Grep", `{"pattern":"TODO","-i":true,"output_mode":"content"}`, "TODO", `{"-i":true,"output_mode":"content"}`, nil},
		{"agent", "Agent", `{"description":"Find uses","prompt":"Search for X","subagent_type":"Explore","run_in_background":true}`, "Find uses",
			"agent: Explore\nSearch for X", []string{WarnBackground}},
		{"task", "Task", `{"description":"Find uses","prompt":"Search for X"}`, "Find uses", "Search for X", nil},
		{"todos", "TodoWrite", `{"todos":[{"content":"Run tests","status":"in_progress","activeForm":"Running tests"},{"content":"Push","status":"pending"}]}`, "2 todos",
			"[in_progress] Run tests · Running tests\n[pending] Push", nil},
		{"plan", "ExitPlanMode", `{"plan":"1. edit\n2. test\n"}`, "approve this plan? (2 lines)", "1. edit\n2. test\n", nil},
		{"web fetch", "WebFetch", `{"url":"https://x.org","prompt":"summarise"}`, "https://x.org", "summarise", nil},
		{"mcp", "mcp__browser__run", `{"url":"https://x.org","script":"document.cookie"}`, "MCP browser · run", `{"script":"document.cookie","url":"https://x.org"}`, nil},
		{"unknown tool with a command field", "Shell", `{"command":"ls","sudo":true}`, "", `{"command":"ls","sudo":true}`, nil},
		{"unknown tool with a flag", "Shell", `{"dangerouslyDisableSandbox":true}`, "", `{"dangerouslyDisableSandbox":true}`, nil},
		{"html kept", "Shell", `{"x":"a<b && c>d"}`, "", `{"x":"a<b && c>d"}`, nil},
		{"numbers as written", "Shell", `{"n":12345678901234567890,"f":1.50}`, "", `{"f":1.50,"n":12345678901234567890}`, nil},
		{"not an object", "Bash", `["ls"]`, "", `["ls"]`, nil},
		{"null", "Bash", `null`, "", `null`, nil},
		{"nothing", "Bash", ``, "", ``, nil},
	}
	for _, tt := range tests {
		c := Describe(tt.tool, json.RawMessage(tt.input))
		if c.Hint != tt.hint || c.Detail != tt.detail || !slices.Equal(c.Warnings, tt.warnings) || c.Truncated {
			t.Errorf("%s: Describe(%s, %s) = %+v\nwant hint %q detail %q warnings %q", tt.name, tt.tool, tt.input, c, tt.hint, tt.detail, tt.warnings)
		}
	}
	// A tool name longer than the request's tool field is shown whole.
	name := "mcp__s__" + strings.Repeat("t", MaxTool)
	if c := Describe(name, json.RawMessage(`{}`)); !strings.HasPrefix(c.Detail, "tool: "+name) {
		t.Fatalf("long tool name: detail %q", c.Detail)
	}
	// A path longer than the hint is shown whole in the detail.
	long := "/" + strings.Repeat("d/", MaxHint)
	c := Describe("Read", json.RawMessage(`{"file_path":"`+long+`"}`))
	if len(c.Hint) > MaxHint || c.Detail != "file: "+long {
		t.Fatalf("long path: hint %d bytes, detail %q", len(c.Hint), c.Detail)
	}
}

// TestDescribeRequest_budget: a huge value cannot push a small field it
// did not show off the screen, and whatever is cut says so.
func TestDescribeRequest_budget(t *testing.T) {
	huge := strings.Repeat("x", 3*MaxDetail)
	for _, tt := range []struct {
		name, input string
		whole       string // a part that must survive whole
	}{
		{"big content, small extra", `{"file_path":"/a","content":"` + huge + `","mode":"0777"}`, "\n{\"mode\":\"0777\"}\nin /src"},
		{"small content, big extra", `{"file_path":"/a","content":"hi","extra":"` + huge + `"}`, "write: 1 lines, 2 bytes\n--- content\nhi\n{\"extra\":\"xxx"},
		{"both big", `{"file_path":"/a","content":"` + huge + `","extra":"` + huge + `"}`, "\n{\"extra\":\"xxx"},
	} {
		in := HookInput{CWD: "/src", ToolName: "Write", ToolInput: json.RawMessage(tt.input)}
		c := DescribeRequest(in)
		if !c.Truncated || len(c.Detail) > MaxDetail || !strings.Contains(c.Detail, tt.whole) || !strings.HasSuffix(c.Detail, "\nin /src") {
			t.Errorf("%s: truncated %v, %d bytes, want %q in it and the directory last", tt.name, c.Truncated, len(c.Detail), tt.whole)
		}
		if n := strings.Count(c.Detail, " more bytes not shown]"); n == 0 {
			t.Errorf("%s: cut without saying so", tt.name)
		}
	}
}

// builtIns is one realistic input of every built-in tool with a summary,
// and of an MCP tool.
var builtIns = map[string]string{
	"Bash":                      `{"command":"npm test","description":"Run the tests","timeout":60000,"run_in_background":false,"dangerouslyDisableSandbox":false}`,
	"PowerShell":                `{"command":"Get-ChildItem","description":"List files","timeout":1000}`,
	"Edit":                      `{"file_path":"/src/a.go","old_string":"a := 1","new_string":"a := 2","replace_all":false}`,
	"MultiEdit":                 `{"file_path":"/src/a.go","edits":[{"old_string":"a","new_string":"b","replace_all":false},{"old_string":"c","new_string":"d"}]}`,
	"Write":                     `{"file_path":"/src/new.go","content":"package main\n"}`,
	"Read":                      `{"file_path":"/src/a.go","offset":10,"limit":20,"pages":"1-2"}`,
	"NotebookEdit":              `{"notebook_path":"/n.ipynb","cell_id":"c1","new_source":"print(1)","cell_type":"code","edit_mode":"replace"}`,
	"WebFetch":                  `{"url":"https://go.dev/doc","prompt":"What is new?"}`,
	"WebSearch":                 `{"query":"go 1.26","allowed_domains":["go.dev"],"blocked_domains":["x.com"]}`,
	"Glob":                      `{"pattern":"**/*.go","path":"/src"}`,
	"Grep":                      `{"pattern":"TODO","path":"/src","glob":"*.go","type":"go","output_mode":"content","-i":true,"-n":true,"-A":1,"-B":2,"-C":3,"context":3,"-o":false,"head_limit":10,"offset":1,"multiline":false}`,
	"Task":                      `{"description":"Find uses","prompt":"Search for X","subagent_type":"Explore"}`,
	"Agent":                     `{"description":"Find uses","prompt":"Search for X","subagent_type":"Explore","model":"haiku","run_in_background":false,"name":"finder","isolation":"worktree"}`,
	"TodoWrite":                 `{"todos":[{"content":"Run tests","status":"pending","activeForm":"Running tests"}]}`,
	"ExitPlanMode":              `{"plan":"1. edit\n2. test","allowedPrompts":[{"tool":"Bash","prompt":"run tests"}]}`,
	"SlashCommand":              `{"command":"/review"}`,
	"Skill":                     `{"skill":"pdf","args":"report.pdf"}`,
	"BashOutput":                `{"bash_id":"b1","filter":"error"}`,
	"TaskOutput":                `{"task_id":"t1","block":true,"timeout":1000}`,
	"KillShell":                 `{"shell_id":"b1"}`,
	"TaskStop":                  `{"task_id":"t1","shell_id":"b1"}`,
	"ReadMcpResourceTool":       `{"server":"docs","uri":"docs://a"}`,
	"ListMcpResourcesTool":      `{"server":"docs"}`,
	"AskUserQuestion":           `{"questions":[{"question":"Which?","header":"Pick","options":[{"label":"a","description":"A"},{"label":"b","description":"B"}],"multiSelect":false}]}`,
	"mcp__github__create_issue": `{"owner":"claude-pi","repo":"claude-pi","title":"Bug","body":"It broke","labels":["bug"]}`,
}

// defaultOff are the flags drawn as warnings: false is their default, so
// false and absent mean the same and may read the same.
var defaultOff = map[string]bool{"dangerouslyDisableSandbox": true, "run_in_background": true, "replace_all": true}

// Variants of a tool call that differ from it in one field: each field
// changed to another value of its type, or of another type, and each
// removed; and one field added. The user must see each difference.
func variants(input string) map[string]string {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(input), &m) != nil {
		panic(input)
	}
	out := map[string]string{}
	enc := func(k string, v json.RawMessage) string {
		c := maps.Clone(m)
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
		b, _ := json.Marshal(c)
		return string(b)
	}
	for k, v := range m {
		if !defaultOff[k] || string(v) != "false" {
			out[k+" removed"] = enc(k, nil)
		}
		out[k+" as a number"] = enc(k, json.RawMessage(`7`))
		var s string
		var b bool
		var f float64
		var arr []json.RawMessage
		switch {
		case json.Unmarshal(v, &s) == nil:
			out[k+" changed"] = enc(k, mustJSON(s+"Z"))
		case json.Unmarshal(v, &b) == nil:
			out[k+" flipped"] = enc(k, mustJSON(!b))
		case json.Unmarshal(v, &f) == nil:
			out[k+" changed"] = enc(k, mustJSON(f+1))
		case json.Unmarshal(v, &arr) == nil:
			out[k+" longer"] = enc(k, mustJSON(append(arr, arr[0])))
			var objs []map[string]json.RawMessage
			if json.Unmarshal(v, &objs) == nil {
				// A key inside the first element changed, removed, added.
				for ik := range objs[0] {
					c := slices.Clone(objs)
					c[0] = maps.Clone(objs[0])
					c[0][ik] = json.RawMessage(`"Q"`)
					out[k+"[0]."+ik+" changed"] = enc(k, mustJSON(c))
					delete(c[0], ik)
					if !defaultOff[ik] || string(objs[0][ik]) != "false" {
						out[k+"[0]."+ik+" removed"] = enc(k, mustJSON(c))
					}
				}
				c := slices.Clone(objs)
				c[0] = maps.Clone(objs[0])
				c[0]["sneaky"] = json.RawMessage(`true`)
				out[k+"[0] with a key added"] = enc(k, mustJSON(c))
			}
		}
	}
	out["a field added"] = enc("sneaky", json.RawMessage(`"rm -rf ~"`))
	return out
}

// A Pair is two calls of one tool that differ in one field.
type Pair struct {
	Tool string          `json:"tool"`
	What string          `json:"what"`
	A    json.RawMessage `json:"a"`
	B    json.RawMessage `json:"b"`
}

// PairsFile holds every pair TestDescribe_everyFieldCounts checks, for
// actors/ui/screens to draw: each must look different on the screen too.
const PairsFile = "testdata/toolcall-pairs.json"

var updatePairs = flag.Bool("update-pairs", false, "rewrite "+PairsFile)

// TestDescribe_everyFieldCounts: for every built-in tool and an MCP
// tool, a call that differs in one field is described differently.
func TestDescribe_everyFieldCounts(t *testing.T) {
	var pairs []Pair
	for _, tool := range slices.Sorted(maps.Keys(builtIns)) {
		input := builtIns[tool]
		base := Describe(tool, json.RawMessage(input))
		if base.Truncated {
			t.Fatalf("%s: truncated", tool)
		}
		vs := variants(input)
		for _, what := range slices.Sorted(maps.Keys(vs)) {
			v := vs[what]
			if c := Describe(tool, json.RawMessage(v)); fmt.Sprint(c) == fmt.Sprint(base) {
				t.Errorf("%s: %s: described the same as the original:\n%s\n%s\n%+v", tool, what, input, v, c)
			}
			pairs = append(pairs, Pair{Tool: tool, What: what, A: json.RawMessage(input), B: json.RawMessage(v)})
		}
	}
	var b bytes.Buffer // one pair a line
	for i, p := range pairs {
		l, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(map[bool]string{true: "[", false: ",\n "}[i == 0])
		b.Write(l)
	}
	b.WriteString("]\n")
	if *updatePairs {
		if err := os.WriteFile(PairsFile, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if kept, err := os.ReadFile(PairsFile); err != nil || !bytes.Equal(kept, b.Bytes()) {
		t.Errorf("%s is not the pairs this test checks (%v): go test ./protocols/hookbridge -run TestDescribe_everyFieldCounts -update-pairs", PairsFile, err)
	}
}

// everyValueShown is the property the fuzzer checks: unless the
// description says it is truncated, every plain string value of a
// top-level field appears in it as written.
func everyValueShown(t *testing.T, tool string, input []byte, c Call) {
	var m map[string]json.RawMessage
	if c.Truncated || json.Unmarshal(input, &m) != nil {
		return
	}
	all := c.Hint + "\n" + c.Detail
	for k, raw := range m {
		var s string
		if json.Unmarshal(raw, &s) != nil || s == "" || strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r > '~' || r == '"' || r == '\\' }) {
			continue
		}
		if !strings.Contains(all, s) {
			t.Fatalf("%s %s: field %q's value %q is not shown: %+v", tool, input, k, s, c)
		}
	}
}

func FuzzDescribe(f *testing.F) {
	for tool, input := range builtIns {
		f.Add(tool, []byte(input))
	}
	f.Add("Bash", []byte(`{"command":"npm test","dangerouslyDisableSandbox":true}`))
	f.Add("Edit", []byte(`{"file_path":"/a","old_string":"x","new_string":"y","replace_all":true}`))
	f.Add("mcp__a__b", []byte(`{"url":"https://x","script":"y"}`))
	f.Add("Write", []byte(`{"file_path":"/a","content":"`+strings.Repeat("x", MaxDetail)+`","mode":"0777"}`))
	f.Add("Bash", []byte("{\"command\":\"\xff\"}"))
	f.Add("mcp__", []byte(`[1,2]`))
	f.Fuzz(func(t *testing.T, tool string, input []byte) {
		in := HookInput{ToolName: tool, ToolInput: input, CWD: "/src/x"}
		c := DescribeRequest(in)
		if len(c.Hint) > MaxHint || len(c.Detail) > MaxDetail || len(strings.Join(c.Warnings, "\n")) > MaxWarnings {
			t.Fatalf("over its limits: %d %d %v", len(c.Hint), len(c.Detail), c.Warnings)
		}
		if !utf8.ValidString(c.Hint) || !utf8.ValidString(c.Detail) || strings.ContainsAny(c.Hint, "\r\n") {
			t.Fatalf("hint %q / detail not UTF-8 or hint not one line", c.Hint)
		}
		if c.Truncated != strings.Contains(c.Detail, " more bytes not shown]") && c.Truncated {
			t.Fatalf("truncated without saying so: %q", c.Detail)
		}
		if !strings.HasSuffix(c.Detail, "in /src/x") {
			t.Fatalf("directory not last: %q", c.Detail)
		}
		for _, w := range c.Warnings {
			if w != WarnNoSandbox && w != WarnBackground && w != WarnReplaceAll {
				t.Fatalf("unknown warning %q", w)
			}
		}
		everyValueShown(t, tool, input, c)
		// What the hook sends, the Pi accepts.
		req := PermissionRequest{ID: "r", Session: "s", Tool: "t", Hint: c.Hint, Detail: c.Detail, Warnings: strings.Join(c.Warnings, "\n"), Truncated: c.Truncated}
		b, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodePermissionRequest(b); err != nil {
			t.Fatalf("the Pi refuses what the hook sends: %v", err)
		}
	})
}
