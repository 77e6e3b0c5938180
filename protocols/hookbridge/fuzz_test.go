package hookbridge

import (
	"encoding/json"
	"reflect"
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
		if err != nil || !reflect.DeepEqual(r2, r) {
			t.Fatalf("round trip of %q: %+v, %v", b, r2, err)
		}
	})
}

func FuzzDecodeEvent(f *testing.F) {
	f.Add([]byte(`{"session":"s","event":"PostToolUse","project":"engine","activity":"Bash ls"}`))
	f.Add([]byte(`{"session":"s","event":"PostToolUse","call":"0f1e2d3c4b5a69788796a5b4c3d2e1f0"}`))
	f.Add([]byte(`{"session":"s","event":"Stop","reply":"Done. All green."}`))
	f.Add([]byte(`{"session":"s"}`))
	f.Add([]byte(`{"session":"s","event":"Notification","mode":"plan","notification":"idle_prompt"}`))
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

// The pairing decoders: whatever they accept has the sizes the protocol
// needs (a commitment of 32 bytes, nonces of NonceSize), and the text they
// return is printable and bounded.
func FuzzDecodePairCommit(f *testing.F) {
	f.Add([]byte(`{"name":"laptop","commitment":"0101010101010101010101010101010101010101010101010101010101010101"}`))
	f.Add([]byte(`{"name":"laptop","commitment":"01"}`))
	f.Add([]byte(`{"name":"a\u202eb","commitment":"0101010101010101010101010101010101010101010101010101010101010101"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		name, c, err := DecodePairCommit(b)
		if err != nil {
			return
		}
		if len(c) != 32 || name == "" || len(name) > MaxName || Printable(name, MaxName) != name {
			t.Fatalf("accepted %q: name %q, commitment of %d bytes", b, name, len(c))
		}
	})
}

func FuzzDecodePairReveal(f *testing.F) {
	f.Add([]byte(`{"nonce":"0909090909090909090909090909090909090909090909090909090909090909"}`))
	f.Add([]byte(`{"nonce":""}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if n, err := DecodePairReveal(b); err == nil && len(n) != NonceSize {
			t.Fatalf("accepted %q: nonce of %d bytes", b, len(n))
		}
	})
}

func FuzzDecodePairNonce(f *testing.F) {
	f.Add([]byte(`{"nonce":"0202020202020202020202020202020202020202020202020202020202020202","device":"Claude_Pi"}`))
	f.Add([]byte(`{"nonce":"02","device":"x"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		n, dev, err := DecodePairNonce(b)
		if err != nil {
			return
		}
		if len(n) != NonceSize || utf8.RuneCountInString(dev) > MaxLabel || Printable(dev, MaxLabel) != dev {
			t.Fatalf("accepted %q: nonce of %d bytes, device %q", b, len(n), dev)
		}
	})
}

func FuzzDecodePairResponse(f *testing.F) {
	f.Add([]byte(`{"status":"accepted","device":"Claude_Pi"}`))
	f.Add([]byte(`{"status":"refused","reason":"refused on Claude_Pi"}`))
	f.Add([]byte(`{"status":"other"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := DecodePairResponse(b)
		if err != nil {
			return
		}
		if p.Status != PairAccepted && p.Status != PairRefused && p.Status != PairPaired ||
			Printable(p.Device, MaxLabel) != p.Device || Printable(p.Reason, MaxReason) != p.Reason {
			t.Fatalf("accepted %q as %+v", b, p)
		}
	})
}

func FuzzPrintable(f *testing.F) {
	for _, s := range []string{"Claude_Pi", "a\nb", "\u202e", "\xff", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := Printable(s, MaxLabel)
		if !utf8.ValidString(p) || utf8.RuneCountInString(p) > MaxLabel || Printable(p, MaxLabel) != p || strings.ContainsAny(p, "\n\r\x1b\u202e") {
			t.Fatalf("Printable(%q) = %q", s, p)
		}
	})
}

func FuzzDecodeDecision(f *testing.F) {
	f.Add([]byte(`{"id":"r1","behavior":"deny","device":"Claude_Pi","by":"Claude_Pi button"}`), "r1")
	f.Add([]byte(`{"id":"r1","behavior":"none","reason":"timeout"}`), "r1")
	f.Add([]byte(`{"id":"r2","behavior":"allow"}`), "r1")
	f.Fuzz(func(t *testing.T, b []byte, want string) {
		d, err := DecodeDecision(b, want)
		if err != nil {
			return
		}
		// What reaches Claude's deny message is short and printable.
		if Printable(d.Device, MaxLabel) != d.Device || Printable(d.By, MaxLabel) != d.By || Printable(d.Reason, MaxReason) != d.Reason {
			t.Fatalf("accepted %q as %+v", b, d)
		}
		if d.Behavior != BehaviorNone && d.ID != want {
			t.Fatalf("accepted a decision for %q as one for %q", d.ID, want)
		}
	})
}
