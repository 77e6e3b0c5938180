package buddy

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// transcript holds the desktop → device lines of spec §10 plus the device's
// replies, the seed of the tests and of FuzzDecode.
var transcript = []string{
	`{"cmd":"owner","name":"Felix"}`,
	`{"time":[1775731234,-25200]}`,
	`{"ack":"owner","ok":true,"n":0}`,
	`{"total":1,"running":1,"waiting":0,"msg":"Reading src/main.rs","entries":["10:40 user: fix the tests","10:41 Reading src/main.rs"],"tokens":5120,"tokens_today":880}`,
	`{"evt":"turn","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"cargo test"}}]}`,
	`{"total":1,"running":1,"waiting":1,"msg":"approve: Bash","entries":["10:40 user: fix the tests","10:41 Reading src/main.rs"],"tokens":5120,"tokens_today":880,"prompt":{"id":"req_7c1e","tool":"Bash","hint":"cargo test"}}`,
	`{"cmd":"permission","id":"req_7c1e","decision":"once"}`,
	`{"cmd":"status"}`,
	`{"ack":"status","ok":true,"n":0,"data":{"name":"Claude-3F9A","owner":"Felix","sec":true,"bat":{"pct":100,"mV":5000,"mA":0,"usb":true},"sys":{"up":8412,"heap":412000000,"fsFree":52000000,"fsTotal":60000000},"stats":{"appr":1,"deny":0,"vel":4,"nap":0,"lvl":0}}}`,
	`{"cmd":"name","name":"Clawd"}`,
	`{"cmd":"char_begin","name":"bufo","total":569286}`,
	`{"cmd":"file","path":"idle_0.gif","size":38479}`,
	`{"cmd":"chunk","d":"R0lGODlhYABk"}`,
	`{"ack":"chunk","ok":true,"n":256}`,
	`{"cmd":"file_end"}`,
	`{"cmd":"char_end"}`,
	`{"cmd":"unpair"}`,
	`{"cmd":"file","path":"../etc/passwd","size":10}`,
	`{"cmd":"frobnicate"}`,
	`{"ack":"char_begin","ok":false,"n":1200000,"error":"need 1748K, have 1171K"}`,
	`{}`,
}

func TestDecodeTranscript(t *testing.T) {
	want := []Message{
		Owner{Name: "Felix"},
		TimeSync{Epoch: 1775731234, Offset: -25200},
		Ack{Cmd: "owner", OK: true},
		Heartbeat{
			Present: FieldTotal | FieldRunning | FieldWaiting | FieldMsg | FieldEntries | FieldTokens | FieldTokensToday,
			Total:   1, Running: 1, Msg: "Reading src/main.rs",
			Entries: []string{"10:40 user: fix the tests", "10:41 Reading src/main.rs"},
			Tokens:  5120, TokensToday: 880,
		},
		TurnEvent{Role: "assistant", Content: []byte(`[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"cargo test"}}]`)},
		Heartbeat{
			Present: FieldTotal | FieldRunning | FieldWaiting | FieldMsg | FieldEntries | FieldTokens | FieldTokensToday,
			Total:   1, Running: 1, Waiting: 1, Msg: "approve: Bash",
			Entries: []string{"10:40 user: fix the tests", "10:41 Reading src/main.rs"},
			Tokens:  5120, TokensToday: 880,
			Prompt: &Prompt{ID: "req_7c1e", Tool: "Bash", Hint: "cargo test"},
		},
		Permission{ID: "req_7c1e", Decision: Once},
		Status{},
		Ack{Cmd: "status", OK: true, Data: []byte(`{"name":"Claude-3F9A","owner":"Felix","sec":true,"bat":{"pct":100,"mV":5000,"mA":0,"usb":true},"sys":{"up":8412,"heap":412000000,"fsFree":52000000,"fsTotal":60000000},"stats":{"appr":1,"deny":0,"vel":4,"nap":0,"lvl":0}}`)},
		SetName{Name: "Clawd"},
		CharBegin{Name: "bufo", Total: 569286},
		File{Path: "idle_0.gif", Size: 38479},
		Chunk{D: "R0lGODlhYABk"},
		Ack{Cmd: "chunk", OK: true, N: 256},
		FileEnd{},
		CharEnd{},
		Unpair{},
		File{Path: "../etc/passwd", Size: 10},
		UnknownCommand{Cmd: "frobnicate"},
		Ack{Cmd: "char_begin", N: 1200000, Error: "need 1748K, have 1171K"},
		Keepalive{},
	}
	for i, line := range transcript {
		got, err := Decode([]byte(line))
		if err != nil {
			t.Fatalf("Decode(%s): %v", line, err)
		}
		if !reflect.DeepEqual(got, want[i]) {
			t.Fatalf("Decode(%s)\n got %#v\nwant %#v", line, got, want[i])
		}
		// The desktop's own lines are in canonical form: re-encoding gives
		// the same bytes.
		if enc := string(Encode(got)); enc != line+"\n" {
			t.Errorf("Encode(Decode(%s)) = %s", line, enc)
		}
	}
}

func TestDecodeDispatchOrder(t *testing.T) {
	tests := []struct {
		line string
		want Kind
	}{
		{`{"total":1,"ack":"x"}`, KindAck},
		{`{"evt":"turn","cmd":"status"}`, KindCommand},
		{`{"time":[1,2],"evt":"turn"}`, KindTurn},
		{`{"prompt":{"id":"p"},"time":[1,2]}`, KindTime},
		{`{"unknown":1}`, KindKeepalive},
		{` {} `, KindKeepalive},
		{`{"prompt":null}`, KindHeartbeat},
		{`{"evt":"session_end"}`, KindEvent},
		// A key written with escapes is the same key, as for JSON.parse.
		{`{"\u0063md":"status"}`, KindCommand},
	}
	for _, tt := range tests {
		m, err := Decode([]byte(tt.line))
		if err != nil || m.Kind() != tt.want {
			t.Errorf("Decode(%s) = %#v, %v; want kind %s", tt.line, m, err, tt.want)
		}
	}
}

// A turn event must decode as such even when it looks like it lacks a
// prompt, so the device never clears the prompt on it (spec §12.1).
func TestTurnEventIsNotAHeartbeat(t *testing.T) {
	m, err := Decode([]byte(`{"evt":"turn","role":"user","content":"plain text","total":0,"waiting":0}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.(TurnEvent); !ok {
		t.Fatalf("got %T, want TurnEvent", m)
	}
	if got := string(m.(TurnEvent).Content); got != `"plain text"` {
		t.Fatalf("content %s", got)
	}
}

// The desktop's own code sends turn events with no content key at all
// (buddy spec §5.2): a turn, with no content, and no error.
func TestTurnEventWithoutContent(t *testing.T) {
	m, err := Decode([]byte(`{"evt":"turn","role":"assistant"}`))
	if err != nil {
		t.Fatal(err)
	}
	turn, ok := m.(TurnEvent)
	if !ok || turn.Role != "assistant" || turn.Content != nil {
		t.Fatalf("got %#v, want an assistant TurnEvent with nil Content", m)
	}
}

func TestDecodeHeartbeatLeniency(t *testing.T) {
	tests := []struct {
		name string
		line string
		want Heartbeat
	}{
		{"prompt null", `{"waiting":0,"prompt":null}`, Heartbeat{Present: FieldWaiting}},
		{"prompt without id", `{"prompt":{"tool":"Bash"}}`, Heartbeat{}},
		{"prompt with empty id", `{"prompt":{"id":""}}`, Heartbeat{}},
		{"prompt defaults", `{"prompt":{"id":"x"}}`, Heartbeat{Prompt: &Prompt{ID: "x"}}},
		{"non-string entries", `{"entries":["a",1,null,{"b":2},"c"]}`, Heartbeat{Present: FieldEntries, Entries: []string{"a", "", "", "", "c"}}},
		{"null counts absent", `{"total":null,"running":3}`, Heartbeat{Present: FieldRunning, Running: 3}},
		{"uint32 max", `{"total":4294967295}`, Heartbeat{Present: FieldTotal, Total: 4294967295}},
		{"unknown keys ignored", `{"msg":"hi","x":[1,{"y":"}"}],"completed":true}`, Heartbeat{Present: FieldMsg | FieldCompleted, Msg: "hi", Completed: true}},
		{"last duplicate wins", `{"msg":"a","msg":"b"}`, Heartbeat{Present: FieldMsg, Msg: "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode([]byte(tt.line))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		line string
		want string
		cmd  string // non-empty: a *CommandError for this cmd
	}{
		{`{"total":1`, ErrInvalidJSON.Error(), ""},
		{`[1]`, ErrNotObject.Error(), ""},
		{`"x"`, ErrNotObject.Error(), ""},
		{`{"time":[1]}`, `buddy: time field "time": want [epoch seconds, offset seconds] integers, got array of 1`, ""},
		{`{"time":[1,2,3]}`, `buddy: time field "time": want [epoch seconds, offset seconds] integers, got array of 3`, ""},
		{`{"time":[1,"2"]}`, `buddy: time field "time": want [epoch seconds, offset seconds] integers, got element string`, ""},
		{`{"time":[1,90000]}`, `buddy: time field "time": want [epoch seconds, offset seconds] integers, got element number 90000`, ""},
		{`{"time":"now"}`, `buddy: time field "time": want [epoch seconds, offset seconds] integers, got string`, ""},
		{`{"cmd":5}`, `buddy: command field "cmd": want string, got number 5`, ""},
		{`{"evt":true}`, `buddy: event field "evt": want string, got boolean`, ""},
		{`{"ack":"x","ok":"yes"}`, `buddy: ack field "ok": want boolean, got string`, ""},
		{`{"cmd":"owner"}`, `buddy: cmd "owner" field "name": want non-empty string, got nothing`, "owner"},
		{`{"cmd":"name","name":""}`, `buddy: cmd "name" field "name": want non-empty string, got string`, "name"},
		{`{"cmd":"file","path":"a.gif"}`, `buddy: cmd "file" field "size": want non-negative integer, got nothing`, "file"},
		{`{"cmd":"file","path":"a.gif","size":-1}`, `buddy: cmd "file" field "size": want non-negative integer, got number -1`, "file"},
		{`{"cmd":"file","path":["a"],"size":1}`, `buddy: cmd "file" field "path": want string, got array`, "file"},
		{`{"cmd":"chunk","d":null}`, `buddy: cmd "chunk" field "d": want string, got null`, "chunk"},
		{`{"cmd":"char_begin","total":"big"}`, `buddy: cmd "char_begin" field "total": want non-negative integer, got string`, "char_begin"},
		{`{"cmd":"species","idx":1.5}`, `buddy: cmd "species" field "idx": want integer, got number 1.5`, "species"},
		{`{"cmd":"permission","id":"r","decision":"always"}`, `buddy: cmd "permission" field "decision": want "once" or "deny", got string`, "permission"},
	}
	for _, tt := range tests {
		m, err := Decode([]byte(tt.line))
		if err == nil || err.Error() != tt.want || m != nil {
			t.Errorf("Decode(%s) = %#v, %v\nwant error %s", tt.line, m, err, tt.want)
			continue
		}
		var ce *CommandError
		if isCmd := errors.As(err, &ce); isCmd != (tt.cmd != "") || (isCmd && ce.Cmd != tt.cmd) {
			t.Errorf("Decode(%s): CommandError = %v (%#v), want cmd %q", tt.line, isCmd, ce, tt.cmd)
		}
		var fe *FieldError
		if tt.cmd != "" && !errors.As(err, &fe) {
			t.Errorf("Decode(%s): CommandError does not unwrap to *FieldError", tt.line)
		}
	}
}

// A bad heartbeat field is named and ignored; the rest of the heartbeat,
// above all its prompt, still counts (spec §5.1: the field keeps its
// previous value).
func TestHeartbeatIgnoresBadFields(t *testing.T) {
	const prompt = `,"prompt":{"id":"req_1","tool":"Bash","hint":"ls"}`
	tests := []struct {
		line    string
		want    string
		missing Fields
	}{
		{`{"running":"1","total":2` + prompt + `}`, `buddy: heartbeat field "running": want non-negative integer, got string`, FieldRunning},
		{`{"total":-3,"running":1` + prompt + `}`, `buddy: heartbeat field "total": want non-negative integer, got number -3`, FieldTotal},
		{`{"waiting":1.5,"total":1` + prompt + `}`, `buddy: heartbeat field "waiting": want non-negative integer, got number 1.5`, FieldWaiting},
		{`{"total":4294967296,"running":0` + prompt + `}`, `buddy: heartbeat field "total": want non-negative integer, got number 4294967296`, FieldTotal},
		{`{"tokens":1e3,"total":1` + prompt + `}`, `buddy: heartbeat field "tokens": want non-negative integer, got number 1e3`, FieldTokens},
		{`{"msg":7,"total":1` + prompt + `}`, `buddy: heartbeat field "msg": want string, got number 7`, FieldMsg},
		{`{"entries":"a","total":1` + prompt + `}`, `buddy: heartbeat field "entries": want array of strings, got string`, FieldEntries},
		{`{"completed":1,"total":1` + prompt + `}`, `buddy: heartbeat field "completed": want boolean, got number 1`, FieldCompleted},
	}
	for _, tt := range tests {
		m, err := Decode([]byte(tt.line))
		if err != nil {
			t.Errorf("Decode(%s) = %v; a bad field must not drop the heartbeat", tt.line, err)
			continue
		}
		h := m.(Heartbeat)
		if len(h.Ignored) != 1 || h.Ignored[0].Error() != tt.want {
			t.Errorf("Decode(%s).Ignored = %v, want [%s]", tt.line, h.Ignored, tt.want)
		}
		if h.Present&tt.missing != 0 || h.Present&FieldTotal == 0 && tt.missing != FieldTotal {
			t.Errorf("Decode(%s).Present = %b: the bad field must be absent, the good ones present", tt.line, h.Present)
		}
		if h.Prompt == nil || h.Prompt.ID != "req_1" {
			t.Errorf("Decode(%s) lost the prompt: %+v", tt.line, h.Prompt)
		}
	}
	// A prompt that is not an object, or whose id is not a string, is no
	// prompt; a bad tool or hint only blanks that field.
	for line, want := range map[string]string{
		`{"total":1,"prompt":"req"}`:                              `buddy: heartbeat field "prompt": want object, got string`,
		`{"total":1,"prompt":{"id":5}}`:                           `buddy: heartbeat field "prompt.id": want string, got number 5`,
		`{"total":1,"prompt":{"id":"r","tool":["x"],"hint":"h"}}`: `buddy: heartbeat field "prompt.tool": want string, got array`,
	} {
		m, err := Decode([]byte(line))
		if err != nil {
			t.Fatalf("Decode(%s) = %v", line, err)
		}
		h := m.(Heartbeat)
		if len(h.Ignored) != 1 || h.Ignored[0].Error() != want {
			t.Errorf("Decode(%s).Ignored = %v, want [%s]", line, h.Ignored, want)
		}
		if strings.Contains(line, `"tool":["x"]`) {
			if h.Prompt == nil || h.Prompt.ID != "r" || h.Prompt.Tool != "" || h.Prompt.Hint != "h" {
				t.Errorf("Decode(%s).Prompt = %+v, want id r, tool blank, hint h", line, h.Prompt)
			}
		} else if h.Prompt != nil {
			t.Errorf("Decode(%s).Prompt = %+v, want none", line, h.Prompt)
		}
	}
}

func TestCommandErrorAck(t *testing.T) {
	_, err := Decode([]byte(`{"cmd":"file","path":"a","size":"x"}`))
	var ce *CommandError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v", err)
	}
	want := `{"ack":"file","ok":false,"n":0,"error":"invalid size: want non-negative integer"}` + "\n"
	if got := string(ce.Ack()); got != want {
		t.Fatalf("Ack = %s, want %s", got, want)
	}
}

// promptID is what a desktop could plausibly send: 200 characters mixing
// ASCII, CJK, emoji, quotes, backslashes, a control character and the
// line/paragraph separators JSON.stringify leaves unescaped.
func promptID() string {
	unit := "req_日本語🙂\"q\\b\u2028\u2029<&>é\t"
	var b strings.Builder
	for b.Len() == 0 || len([]rune(b.String())) < 200 {
		b.WriteString(unit)
	}
	return string([]rune(b.String())[:200])
}

// jsStringify writes s as the desktop's JSON.stringify would, independently
// of appendString.
func jsStringify(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\t", `\t`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

func TestPromptIDVerbatim(t *testing.T) {
	id := promptID()
	wire := jsStringify(id)
	line := `{"total":1,"running":0,"waiting":1,"msg":"approve: Bash","entries":[],"tokens":1,"tokens_today":1,"prompt":{"id":` + wire + `,"tool":"Bash","hint":""}}`
	m, err := Decode([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	p := m.(Heartbeat).Prompt
	if p == nil || p.ID != id {
		t.Fatalf("prompt %#v, want id %q", p, id)
	}
	got := string(EncodePermission(p.ID, Once))
	want := `{"cmd":"permission","id":` + wire + `,"decision":"once"}` + "\n"
	if got != want {
		t.Fatalf("EncodePermission =\n%s\nwant\n%s", got, want)
	}
	// The permission line decodes back to the same id.
	back, err := Decode([]byte(got[:len(got)-1]))
	if err != nil || back.(Permission).ID != id {
		t.Fatalf("round trip: %#v, %v", back, err)
	}
}

func TestAppendStringEscapes(t *testing.T) {
	tests := map[string]string{
		"plain":            `"plain"`,
		"a\"b\\c":          `"a\"b\\c"`,
		"\b\f\n\r\t":       `"\b\f\n\r\t"`,
		"\x00\x1f\x7f":     `"\u0000\u001f` + "\x7f\"",
		"\u2028<&>":        "\"\u2028<&>\"",
		"bad\xffbyte":      "\"bad\uFFFDbyte\"",
		"🙂":                "\"🙂\"",
		"trailing\xe6\x97": "\"trailing\uFFFD\uFFFD\"",
	}
	for in, want := range tests {
		if got := string(appendString(nil, in)); got != want {
			t.Errorf("appendString(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestUnquoteEscapes(t *testing.T) {
	tests := map[string]string{
		`"\u00e9\/\"\\"`:     `é/"\`,
		`"\ud83d\ude42"`:     "🙂",
		`"\ud83d"`:           "\uFFFD",
		`"\ude42x"`:          "\uFFFDx",
		`"\ud83d\u0041"`:     "\uFFFDA",
		"\"\xff\"":           "\uFFFD",
		`"\b\f\n\r\t\u0001"`: "\b\f\n\r\t\x01",
	}
	for in, want := range tests {
		if got := unquote([]byte(in)); got != want {
			t.Errorf("unquote(%s) = %q, want %q", in, got, want)
		}
	}
}
