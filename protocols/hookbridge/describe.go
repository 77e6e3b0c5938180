package hookbridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Call is what the Pi shows of one tool call: the tool's own summary
// first, then every field of tool_input the summary did not show, so
// that what the user approves is the whole call.
type Call struct {
	// Hint is one line: the command, the path, the URL. When a value
	// does not fit on it whole, Detail holds the whole value too.
	Hint string
	// Detail is the summary's lines, then every field the summary did
	// not show as compact JSON, then the working directory. When that is
	// over MaxDetail, each part cut ends in a "[… N more bytes not
	// shown]" line.
	Detail string
	// Warnings are flags that widen what the call may do
	// ("runs outside the sandbox"), one short line each, for the screen
	// to draw apart from the detail.
	Warnings []string
	// Truncated: Detail does not hold the whole input.
	Truncated bool
}

// MaxWarnings bounds PermissionRequest.Warnings: a few short lines.
const MaxWarnings = 256

// Warning lines of the flags that widen what a built-in tool may do.
const (
	WarnNoSandbox  = "runs outside the sandbox"
	WarnBackground = "runs in the background"
	WarnReplaceAll = "replaces every occurrence"
)

// Describe summarises a tool call (see Call). The summary is chosen by
// the tool's name, never by the field names an input happens to have: an
// unknown tool's input is shown whole as JSON, and an MCP tool
// (mcp__server__tool) is named by its server and tool.
func Describe(tool string, input json.RawMessage) Call {
	return describe(tool, input, "")
}

// DescribeRequest is Describe for a permission request, with the working
// directory last: it tells the user where a relative path or a command
// would act, and it always fits.
func DescribeRequest(in HookInput) Call {
	where := ""
	if cwd := strings.TrimSpace(in.CWD); cwd != "" {
		where = "in " + clip(oneLine(cwd), MaxDetail/4)
	}
	return describe(in.ToolName, in.ToolInput, where)
}

// Summary is Describe's hint and detail.
func Summary(tool string, input json.RawMessage) (hint, detail string) {
	c := Describe(tool, input)
	return c.Hint, c.Detail
}

// RequestDetail is DescribeRequest's detail.
func RequestDetail(in HookInput) string { return DescribeRequest(in).Detail }

func describe(tool string, input json.RawMessage, where string) Call {
	f := newFields(input)
	if sum := summaries[tool]; sum != nil && f.m != nil {
		sum(f)
	} else if server, name, ok := mcpTool(tool); ok {
		f.hint = clip(oneLine(validUTF8("MCP "+server+" · "+name)), MaxHint)
	}
	if len(tool) > MaxTool {
		// The request's tool field holds MaxTool bytes of it.
		f.lines = append([]string{"tool: " + validUTF8(tool)}, f.lines...)
	}
	c := Call{Hint: f.hint, Warnings: f.warn}
	avail := MaxDetail
	if where != "" {
		avail -= len(where) + 1
	}
	sum, rest, cut := fit(strings.Join(f.lines, "\n"), f.rest(), avail)
	c.Detail, c.Truncated = joinLines(sum, rest, where), cut
	return c
}

// mcpTool splits an MCP tool's name, mcp__<server>__<tool>.
func mcpTool(tool string) (server, name string, ok bool) {
	rest, ok := strings.CutPrefix(tool, "mcp__")
	if !ok {
		return "", "", false
	}
	server, name, ok = strings.Cut(rest, "__")
	return server, name, ok && server != "" && name != ""
}

// fit shortens a and b so that both, joined by a line break, take at most
// n bytes. The shorter keeps its whole if it needs at most half: so a
// huge Write cannot push a small field it did not show off the screen.
func fit(a, b string, n int) (string, string, bool) {
	if len(joinLines(a, b)) <= n {
		return a, b, false
	}
	switch {
	case a == "":
		return "", clipNoted(b, n), true
	case b == "":
		return clipNoted(a, n), "", true
	case len(b) <= n/2:
		return clipNoted(a, n-len(b)-1), b, true
	case len(a) <= n/2:
		return a, clipNoted(b, n-len(a)-1), true
	}
	a = clipNoted(a, n/2)
	return a, clipNoted(b, n-len(a)-1), true
}

func joinLines(parts ...string) string {
	return strings.Join(slices.DeleteFunc(parts, func(s string) bool { return s == "" }), "\n")
}

// fields is a tool_input object on its way to the screen: what the
// summary showed, and what it did not.
type fields struct {
	raw   json.RawMessage
	m     map[string]json.RawMessage // nil: not a JSON object
	shown map[string]bool
	hint  string
	lines []string
	warn  []string
}

func newFields(input json.RawMessage) *fields {
	f := &fields{raw: input, shown: map[string]bool{}}
	var m map[string]json.RawMessage
	if json.Unmarshal(input, &m) == nil && m != nil {
		f.m = m
	}
	return f
}

// str is field k as a string, without showing it.
func (f *fields) str(k string) (string, bool) {
	var s string
	raw, ok := f.m[k]
	if !ok || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// take is a non-empty string field k, which the caller then shows. An
// empty or mistyped value stays for the JSON of the rest, where it is
// seen as it is.
func (f *fields) take(k string) (string, bool) {
	s, ok := f.str(k)
	if !ok || s == "" {
		return "", false
	}
	f.shown[k] = true
	return s, true
}

// hintFrom makes string field k the hint. A value the hint cannot show
// whole (several lines, space around it, longer than MaxHint) is also
// added whole to the detail, after label.
func (f *fields) hintFrom(k, label string) { f.add(f.hintOf(k, label)) }

// hintOf is hintFrom that returns the detail line instead of adding it,
// "" when the hint shows the value whole.
func (f *fields) hintOf(k, label string) string {
	s, ok := f.take(k)
	if !ok {
		return ""
	}
	f.hint = clip(oneLine(s), MaxHint)
	if f.hint == s {
		return ""
	}
	return label + s
}

// add adds a line to the detail, verbatim (indentation is part of code);
// "" adds nothing.
func (f *fields) add(l string) {
	if l != "" {
		f.lines = append(f.lines, l)
	}
}

// line adds string field k to the detail after label.
func (f *fields) line(k, label string) {
	if s, ok := f.take(k); ok {
		f.lines = append(f.lines, label+s)
	}
}

// flag shows boolean field k: true adds warning w; false is the default
// and says nothing.
func (f *fields) flag(k, w string) {
	var b bool
	raw, ok := f.m[k]
	if !ok || json.Unmarshal(raw, &b) != nil {
		return
	}
	f.shown[k] = true
	if b && !slices.Contains(f.warn, w) {
		f.warn = append(f.warn, w)
	}
}

// rest is every field the summary did not show, as compact JSON with
// sorted keys; the whole input when it is not an object.
func (f *fields) rest() string {
	var b bytes.Buffer
	if f.m == nil {
		if json.Compact(&b, f.raw) != nil {
			return validUTF8(string(bytes.TrimSpace(f.raw)))
		}
		// Compact keeps the raw bytes of strings, and the Pi refuses a
		// detail that is not UTF-8.
		return validUTF8(b.String())
	}
	var keys []string
	for k := range f.m {
		if !f.shown[k] {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return ""
	}
	slices.Sort(keys)
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // a command's "a > b" stays readable
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		_ = enc.Encode(k) // a string always encodes
		b.Truncate(b.Len() - 1)
		b.WriteByte(':')
		if json.Compact(&b, f.m[k]) != nil {
			b.Write(f.m[k])
		}
	}
	b.WriteByte('}')
	return validUTF8(b.String())
}

// summaries are the built-in tools' own summaries, by tool name. A tool
// not listed gets none: its whole input is shown as JSON.
var summaries = map[string]func(*fields){
	"Bash":       bash,
	"PowerShell": bash,
	"Edit":       edit,
	"MultiEdit":  multiEdit,
	"Write":      write,
	"Read":       func(f *fields) { f.hintFrom("file_path", "file: ") },
	"NotebookEdit": func(f *fields) {
		f.hintFrom("notebook_path", "notebook: ")
		var what []string
		for _, k := range []string{"edit_mode", "cell_type"} {
			if s, ok := f.take(k); ok {
				what = append(what, s)
			}
		}
		what = append(what, "cell")
		if s, ok := f.take("cell_id"); ok {
			what = append(what, s)
		}
		f.lines = append(f.lines, strings.Join(what, " "))
		if s, ok := f.str("new_source"); ok {
			f.shown["new_source"] = true
			f.lines = append(f.lines, "--- new source\n"+s)
		}
	},
	"WebFetch": func(f *fields) {
		f.hintFrom("url", "url: ")
		f.line("prompt", "")
	},
	"WebSearch": func(f *fields) { f.hintFrom("query", "query: ") },
	"Glob": func(f *fields) {
		f.hintFrom("pattern", "pattern: ")
		f.line("path", "in ")
	},
	"Grep": func(f *fields) {
		f.hintFrom("pattern", "pattern: ")
		f.line("path", "in ")
		f.line("glob", "files ")
	},
	"Task":  agent,
	"Agent": agent,
	"TodoWrite": func(f *fields) {
		todos, ok := objects(f, "todos", key{name: "content", required: true}, key{name: "status", required: true}, key{name: "activeForm"})
		if !ok {
			return
		}
		f.hint = fmt.Sprintf("%d todos", len(todos))
		for _, t := range todos {
			l := "[" + t["status"] + "] " + t["content"]
			if a := t["activeForm"]; a != "" {
				l += " · " + a
			}
			f.lines = append(f.lines, l)
		}
	},
	// A plan is read as a whole, like a long command: the hint says what
	// is asked and how long it is, the detail holds every line of it.
	"ExitPlanMode": func(f *fields) {
		if s, ok := f.take("plan"); ok {
			f.hint = fmt.Sprintf("approve this plan? (%d lines)", strings.Count(strings.TrimRight(s, "\n"), "\n")+1)
			f.add(s)
		}
	},
	"SlashCommand": func(f *fields) { f.hintFrom("command", "") },
	"Skill":        func(f *fields) { f.hintFrom("skill", "skill: "); f.line("args", "args: ") },
	"BashOutput":   func(f *fields) { f.hintFrom("bash_id", "shell: ") },
	"TaskOutput":   func(f *fields) { f.hintFrom("task_id", "task: ") },
	"KillShell":    func(f *fields) { f.hintFrom("shell_id", "shell: ") },
	"TaskStop":     func(f *fields) { f.hintFrom("task_id", "task: ") },
	"ReadMcpResourceTool": func(f *fields) {
		f.hintFrom("uri", "uri: ")
		f.line("server", "MCP ")
	},
	"ListMcpResourcesTool": func(f *fields) { f.hintFrom("server", "MCP ") },
	// Codex's own (codex.go); its shell is "Bash".
	CodexToolPatch:              applyPatch,
	CodexToolNetwork:            networkAccess,
	CodexToolRequestPermissions: requestPermissions,
}

func bash(f *fields) {
	whole := f.hintOf("command", "$ ")
	f.line("description", "") // the description reads first, then the whole command
	f.add(whole)
	f.flag("dangerouslyDisableSandbox", WarnNoSandbox)
	f.flag("run_in_background", WarnBackground)
}

func agent(f *fields) {
	f.hintFrom("description", "")
	f.line("subagent_type", "agent: ")
	f.line("prompt", "")
	f.flag("run_in_background", WarnBackground)
}

func edit(f *fields) {
	f.hintFrom("file_path", "file: ")
	o, okO := f.str("old_string")
	n, okN := f.str("new_string")
	if !okO || !okN {
		return
	}
	f.shown["old_string"], f.shown["new_string"] = true, true
	f.flag("replace_all", WarnReplaceAll)
	s := fmt.Sprintf("edit: -%d +%d lines", countLines(o), countLines(n))
	if slices.Contains(f.warn, WarnReplaceAll) {
		s += ", every occurrence"
	}
	f.lines = append(f.lines, s, oldNew(o, n))
}

func multiEdit(f *fields) {
	f.hintFrom("file_path", "file: ")
	edits, ok := objects(f, "edits", key{name: "old_string", required: true}, key{name: "new_string", required: true}, key{name: "replace_all", flag: true})
	if !ok {
		return
	}
	del, ins := 0, 0
	var text []string
	for _, e := range edits {
		del, ins = del+countLines(e["old_string"]), ins+countLines(e["new_string"])
		text = append(text, oldNew(e["old_string"], e["new_string"]))
		if e["replace_all"] == "true" && !slices.Contains(f.warn, WarnReplaceAll) {
			f.warn = append(f.warn, WarnReplaceAll)
		}
	}
	f.lines = append(f.lines, fmt.Sprintf("%d edits: -%d +%d lines", len(edits), del, ins))
	f.lines = append(f.lines, text...)
}

func write(f *fields) {
	f.hintFrom("file_path", "file: ")
	c, ok := f.str("content")
	if !ok {
		return
	}
	f.shown["content"] = true
	f.lines = append(f.lines, fmt.Sprintf("write: %d lines, %d bytes", countLines(c), len(c)), "--- content\n"+c)
}

// oldNew is an edit's old and new text, verbatim: indentation is part of
// it.
func oldNew(o, n string) string { return "--- old\n" + o + "\n+++ new\n" + n }

// A key of an object in an array field, as a summary shows it.
type key struct {
	name     string
	flag     bool // a boolean (shown as "true"/"false"), else a string
	required bool
}

// objects is field k as a non-empty array of objects that have exactly
// keys' names (the optional ones may be missing), each of its type. Any
// other value is not taken: the field stays, whole, for the JSON of the
// rest.
func objects(f *fields, k string, keys ...key) ([]map[string]string, bool) {
	var arr []map[string]json.RawMessage
	if raw, ok := f.m[k]; !ok || json.Unmarshal(raw, &arr) != nil || len(arr) == 0 {
		return nil, false
	}
	out := make([]map[string]string, 0, len(arr))
	for _, o := range arr {
		if o == nil {
			return nil, false
		}
		e := map[string]string{}
		for _, ky := range keys {
			v, ok := o[ky.name]
			if !ok {
				if ky.required {
					return nil, false
				}
				continue
			}
			var s string
			var b bool
			switch {
			case ky.flag && json.Unmarshal(v, &b) == nil:
				s = fmt.Sprint(b)
			case ky.flag || json.Unmarshal(v, &s) != nil:
				return nil, false
			}
			e[ky.name] = s
		}
		if len(e) != len(o) {
			return nil, false // a key the summary does not know
		}
		out = append(out, e)
	}
	f.shown[k] = true
	return out, true
}

func countLines(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
}

// clipNoted clips s to n bytes; when it cuts, the last line says how
// many bytes are not shown, so a screen never passes a part for the
// whole.
func clipNoted(s string, n int) string {
	if len(s) <= n {
		return s
	}
	note := func(k int) string { return fmt.Sprintf("\n[… %d more bytes not shown]", k) }
	keep := n - len(note(len(s))) // the final count has no more digits
	if keep < 0 {
		return clip(s, max(n, 0))
	}
	cut := clip(s, keep)
	return cut + note(len(s)-len(cut))
}
