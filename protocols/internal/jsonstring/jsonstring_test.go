package jsonstring

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAppendLikeJSONStringify(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                `"plain"`,
		`q"b\`:                 `"q\"b\\"`,
		"\b\f\n\r\t\x01\x1f":   `"\b\f\n\r\t\u0001\u001f"`,
		"<&> \u2028\u2029 ✓ 😀": "\"<&> \u2028\u2029 ✓ 😀\"",
		"bad\xffutf8":          "\"bad\uFFFDutf8\"",
		"":                     `""`,
	} {
		if got := string(Append(nil, in)); got != want {
			t.Errorf("Append(%q) = %s, want %s", in, got, want)
		}
	}
}

// FuzzAppend: the output is valid JSON that decodes to the input (with
// invalid UTF-8 replaced), and nothing but the required bytes is escaped.
func FuzzAppend(f *testing.F) {
	for _, s := range []string{"a", "\"\\\n", "\u2028<>&", "\xff\xfe", "😀\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Append(nil, s)
		var back string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("Append(%q) = %s: not JSON: %v", s, out, err)
		}
		if want := strings.ToValidUTF8(s, "\uFFFD"); back != want && utf8.ValidString(s) {
			t.Fatalf("Append(%q) decodes to %q", s, back)
		}
		if strings.Contains(string(out), `\u2028`) || strings.Contains(string(out), `\u003c`) {
			t.Fatalf("Append(%q) = %s escapes what JSON.stringify does not", s, out)
		}
	})
}
