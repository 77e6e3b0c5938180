package hookbridge

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzDecodeHookInput(f *testing.F) {
	f.Add([]byte(realisticPermission))
	f.Add([]byte(`{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{}}`))
	f.Add([]byte(`{"session_id":"s","hook_event_name":"PermissionRequest","tool_name":"Edit","agent_id":"a","agent_type":"Plan"}`))
	f.Add([]byte(`{"session_id":"s","hook_event_name":"Stop","last_assistant_message":"Done.","stop_hook_active":false}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := DecodeHookInput(b)
		if err != nil {
			return
		}
		if in.SessionID == "" || in.HookEventName == "" {
			t.Fatalf("accepted without session or event: %q", b)
		}
		hint, detail := Summary(in.ToolName, in.ToolInput)
		if len(hint) > MaxHint || len(detail) > MaxDetail || len(Activity(in)) > MaxActivity || len(ProjectName(in.CWD)) > MaxProject || len(RequestDetail(in)) > MaxDetail || len(Reply(in)) > MaxReply {
			t.Fatalf("summary over its limits for %q", b)
		}
		// The Pi refuses a request whose fields are not UTF-8.
		if d := RequestDetail(in); !utf8.ValidString(d) || !utf8.ValidString(hint) || !utf8.ValidString(Reply(in)) {
			t.Fatalf("summary not UTF-8 for %q: %q %q", b, hint, d)
		}
	})
}

func FuzzDecodePermissionRequest(f *testing.F) {
	f.Add([]byte(`{"id":"r1","session":"s","project":"engine","tool":"Bash","hint":"ls","agent":"a","agent_type":"Explore"}`))
	f.Add([]byte(`{"id":"r2","session":"s","tool":"Bash","call":"0f1e2d3c4b5a69788796a5b4c3d2e1f0"}`))
	f.Add([]byte(`{"id":"r","session":"s","tool":"t","always":true}`))
	f.Add([]byte(`{"id":"r","session":"s","tool":"t"}{}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodePermissionRequest(b)
		if err != nil {
			return
		}
		// Round trip: what we accept re-encodes to something we accept
		// as the same request.
		enc, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := DecodePermissionRequest(enc)
		if err != nil || r2 != r {
			t.Fatalf("round trip of %q: %+v, %v", b, r2, err)
		}
	})
}

func FuzzDecodeEvent(f *testing.F) {
	f.Add([]byte(`{"session":"s","event":"PostToolUse","project":"engine","activity":"Bash ls"}`))
	f.Add([]byte(`{"session":"s","event":"PostToolUse","call":"0f1e2d3c4b5a69788796a5b4c3d2e1f0"}`))
	f.Add([]byte(`{"session":"s","event":"Stop","reply":"Done. All green."}`))
	f.Add([]byte(`{"session":"s"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := DecodeEvent(b)
		if err != nil {
			return
		}
		enc, _ := json.Marshal(e)
		if e2, err := DecodeEvent(enc); err != nil || e2 != e {
			t.Fatalf("round trip of %q: %+v, %v", b, e2, err)
		}
	})
}

func FuzzParseHookStarted(f *testing.F) {
	for _, s := range []string{"1234567890123456789", "98765000000", "", "0", "-5", "+7", "12x", "99999999999999999999", " 12"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := ParseHookStarted(s)
		if n < 0 {
			t.Fatalf("ParseHookStarted(%q) = %d, negative", s, n)
		}
		// What it accepts is a decimal number and nothing else, and it is
		// read as written.
		digits := strings.TrimPrefix(s, "+")
		if n > 0 && (strings.Trim(digits, "0123456789") != "" || strings.TrimLeft(strconv.FormatInt(n, 10), "0") != strings.TrimLeft(digits, "0")) {
			t.Fatalf("ParseHookStarted(%q) = %d", s, n)
		}
	})
}
