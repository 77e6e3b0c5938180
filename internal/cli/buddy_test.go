package cli

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// desktopStream is a short session as the desktop writes it: lines cut in
// 180-byte slices and glued back into one byte stream.
const desktopStream = `{"cmd":"owner","name":"Felix"}
{"time":[1775731234,-25200]}
{"total":1,"running":1,"waiting":1,"msg":"approve: Bash","entries":["10:41 Reading src/main.rs"],"tokens":5120,"tokens_today":880,"prompt":{"id":"req_7c1e","tool":"Bash","hint":"cargo test"}}

not json at all
{"evt":"turn","role":"assistant","content":[]}
{"running":"1"}
{"cmd":"file","path":"a.gif","size":-1}
{}
{"broken":
{"cmd":"status"}` + "\r\n" + `{"trailing":`

func runBuddy(t *testing.T, stdin io.Reader, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), append([]string{"buddy"}, args...), stdin, &out, &errOut)
	return out.String(), err
}

func TestBuddyDecode(t *testing.T) {
	want := []string{
		`{"line":1,"kind":"command","fields":{"cmd":"owner","name":"Felix"}}`,
		`{"line":2,"kind":"time","fields":{"time":[1775731234,-25200]}}`,
		`{"line":3,"kind":"heartbeat","fields":{"total":1,"running":1,"waiting":1,"msg":"approve: Bash","entries":["10:41 Reading src/main.rs"],"tokens":5120,"tokens_today":880,"prompt":{"id":"req_7c1e","tool":"Bash","hint":"cargo test"}}}`,
		`{"line":6,"kind":"turn","fields":{"evt":"turn","role":"assistant","content":[]}}`,
		`{"line":7,"kind":"heartbeat","fields":{"prompt":null},"ignored":["buddy: heartbeat field \"running\": want non-negative integer, got string"]}`,
		`{"line":8,"error":"buddy: cmd \"file\" field \"size\": want non-negative integer, got number -1"}`,
		`{"line":9,"kind":"keepalive","fields":{}}`,
		`{"line":10,"error":"buddy: line is not valid JSON"}`,
		`{"line":11,"kind":"command","fields":{"cmd":"status"}}`,
		`{"line":12,"error":"unterminated line at end of input (12 bytes, no \\n)"}`,
	}
	inputs := map[string]struct {
		r    io.Reader
		args []string
	}{
		"raw":          {strings.NewReader(desktopStream), nil},
		"one byte":     {iotest.OneByteReader(strings.NewReader(desktopStream)), nil},
		"hex":          {strings.NewReader(spacedHex(desktopStream)), []string{"--hex"}},
		"hex one byte": {iotest.OneByteReader(strings.NewReader(spacedHex(desktopStream))), []string{"--hex"}},
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			out, err := runBuddy(t, in.r, append([]string{"decode"}, in.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			for _, l := range got {
				if !json.Valid([]byte(l)) {
					t.Fatalf("output line is not JSON: %s", l)
				}
			}
		})
	}
}

func TestBuddyDecodeOverflow(t *testing.T) {
	in := `{"msg":"` + strings.Repeat("x", 100) + "\"}\n{}\n"
	out, err := runBuddy(t, strings.NewReader(in), "decode", "--max-line", "64")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"line":1,"error":"nus: line 1 longer than 64 bytes, dropped"}` + "\n" +
		`{"line":2,"kind":"keepalive","fields":{}}` + "\n"
	if out != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
}

func TestBuddyCommandErrors(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{"no subcommand", nil, "", "buddy: want a subcommand: decode (see claude-pi buddy --help)"},
		{"unknown subcommand", []string{"encode"}, "", `buddy: unknown subcommand "encode": did you mean "decode"? (see claude-pi buddy --help)`},
		{"unknown flag", []string{"decode", "--bogus"}, "", "buddy decode: flag provided but not defined: -bogus"},
		{"bad max-line", []string{"decode", "--max-line", "0"}, "", "buddy decode: --max-line must be positive, got 0"},
		{"non-numeric max-line", []string{"decode", "--max-line", "big"}, "", `buddy decode: invalid value "big" for flag -max-line: parse error`},
		{"stray argument", []string{"decode", "file.bin"}, "", `buddy decode: unexpected argument "file.bin" (input is read from stdin)`},
		{"bad hex", []string{"decode", "--hex"}, "7b 7d zz", `buddy decode: reading stdin: hex input: invalid character 'z' at offset 6`},
		{"odd hex", []string{"decode", "--hex"}, "7b7", "buddy decode: reading stdin: hex input: odd number of hex digits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runBuddy(t, strings.NewReader(tt.stdin), tt.args...)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("err = %v, want %s", err, tt.want)
			}
		})
	}
}

func TestBuddyHelp(t *testing.T) {
	out, err := runBuddy(t, strings.NewReader(""), "help")
	if err != nil || !strings.Contains(out, "claude-pi buddy SUBCOMMAND") || !strings.Contains(out, "decode ") {
		t.Fatalf("help = %q, %v", out, err)
	}
}

func TestBuddyDecodeCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := run(ctx, []string{"buddy", "decode"}, strings.NewReader("{}\n"), io.Discard, io.Discard)
	if err != context.Canceled {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func spacedHex(s string) string {
	h := hex.EncodeToString([]byte(s))
	var b strings.Builder
	for i := 0; i < len(h); i += 2 {
		b.WriteString(h[i : i+2])
		if i%32 == 30 {
			b.WriteString("\n")
		} else {
			b.WriteString(" ")
		}
	}
	return b.String()
}
