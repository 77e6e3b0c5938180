package nus

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// event is what one emit call produced, in a comparable form.
type event struct {
	line string
	err  string
}

// feedAll runs the stream through a fresh assembler in the given slices.
func feedAll(max int, parts ...[]byte) []event {
	a := NewAssembler(max)
	var got []event
	emit := func(line []byte, err error) {
		if err != nil {
			got = append(got, event{err: err.Error()})
			return
		}
		got = append(got, event{line: string(line)})
	}
	for _, p := range parts {
		a.Feed(p, emit)
	}
	return got
}

func TestAssemblerRules(t *testing.T) {
	tests := []struct {
		name string
		max  int
		in   string
		want []event
	}{
		{"one line", 0, "{\"a\":1}\n", []event{{line: `{"a":1}`}}},
		{"crlf stripped once", 0, "{}\r\r\n", []event{{line: "{}\r"}}},
		{"unterminated held back", 0, "{\"a\":1}", nil},
		{"empty and blank lines skipped", 0, "\n\r\n  \n{}\n", []event{{line: "{}"}}},
		{"non-object lines skipped", 0, "hello\n[1]\n{}\n", []event{{line: "{}"}}},
		{"leading blanks trimmed", 0, " \t{\"x\":2}\n", []event{{line: `{"x":2}`}}},
		{"several lines in one write", 0, "{\"a\":1}\n{\"b\":2}\n{\"c\"", []event{{line: `{"a":1}`}, {line: `{"b":2}`}}},
		{"exactly at limit", 4, "{12}\n", []event{{line: "{12}"}}},
		{"cr counts toward limit", 4, "{12}\r\n", []event{{err: "nus: line 1 longer than 4 bytes, dropped"}}},
		{"oversize then recovery", 4, "{1234}\n{}\n", []event{{err: "nus: line 1 longer than 4 bytes, dropped"}, {line: "{}"}}},
		{"oversize unterminated reported once", 4, "{123456789", []event{{err: "nus: line 1 longer than 4 bytes, dropped"}}},
		{"line numbers count skipped lines", 4, "x\n\n{123456}\n{}\n", []event{{err: "nus: line 3 longer than 4 bytes, dropped"}, {line: "{}"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := feedAll(tt.max, []byte(tt.in)); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("whole: got %q, want %q", got, tt.want)
			}
			// Byte by byte must give the same events.
			var parts [][]byte
			for i := range len(tt.in) {
				parts = append(parts, []byte{tt.in[i]})
			}
			if got := feedAll(tt.max, parts...); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("bytewise: got %q, want %q", got, tt.want)
			}
		})
	}
}

// The desktop cuts at 180 bytes regardless of UTF-8 boundaries: a line of
// multi-byte characters must come back intact at every cut offset.
func TestAssemblerSplitsUTF8(t *testing.T) {
	line := `{"msg":"` + strings.Repeat("日本語🙂é", 40) + `"}`
	stream := []byte(line + "\n")
	for cut := 1; cut < len(stream); cut++ {
		got := feedAll(0, stream[:cut], stream[cut:])
		if len(got) != 1 || got[0].line != line {
			t.Fatalf("cut at %d: got %q", cut, got)
		}
	}
	var parts [][]byte
	for s := stream; len(s) > 0; {
		n := min(180, len(s))
		parts = append(parts, s[:n])
		s = s[n:]
	}
	if got := feedAll(0, parts...); len(got) != 1 || got[0].line != line {
		t.Fatalf("180-byte slices: got %q", got)
	}
}

func TestAssemblerOverflowTypedAndCounted(t *testing.T) {
	a := NewAssembler(8)
	var errs []error
	var lines []string
	emit := func(line []byte, err error) {
		if err != nil {
			errs = append(errs, err)
			return
		}
		lines = append(lines, string(line))
	}
	a.Feed([]byte("{aaaaaaa"), emit)
	a.Feed([]byte("aaaaaaaa"), emit)
	a.Feed([]byte("aaa\n{ok}\n"), emit)
	if len(errs) != 1 {
		t.Fatalf("got %d errors, want 1: %v", len(errs), errs)
	}
	var tl *LineTooLongError
	if !errors.As(errs[0], &tl) || tl.Line != 1 || tl.Limit != 8 {
		t.Fatalf("error = %#v, want *LineTooLongError{Line:1, Limit:8}", errs[0])
	}
	if a.Overflows() != 1 || a.Line() != 2 || a.Pending() != 0 {
		t.Fatalf("overflows=%d line=%d pending=%d, want 1 2 0", a.Overflows(), a.Line(), a.Pending())
	}
	if len(lines) != 1 || lines[0] != "{ok}" {
		t.Fatalf("lines after recovery = %q, want [{ok}]", lines)
	}
}

func TestAssemblerReset(t *testing.T) {
	a := NewAssembler(0)
	var got []string
	emit := func(line []byte, err error) { got = append(got, string(line)) }
	a.Feed([]byte(`{"cut":"sho`), emit)
	a.Reset()
	a.Feed([]byte("{\"next\":1}\n"), emit)
	if len(got) != 1 || got[0] != `{"next":1}` {
		t.Fatalf("got %q, want the next line alone", got)
	}
	if a.MaxLine() != DefaultMaxLine {
		t.Fatalf("MaxLine = %d, want %d", a.MaxLine(), DefaultMaxLine)
	}
}

func TestAssemblerSkippedCount(t *testing.T) {
	a := NewAssembler(0)
	a.Feed([]byte("\nnot json\n{}\n"), func([]byte, error) {})
	if a.Skipped() != 2 {
		t.Fatalf("Skipped = %d, want 2", a.Skipped())
	}
}

func FuzzAssembler(f *testing.F) {
	f.Add([]byte("{\"total\":1}\n{\"cmd\":\"status\"}\r\n"), uint16(3), uint16(7))
	f.Add([]byte("{aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n{}\n"), uint16(5), uint16(1))
	f.Add([]byte("\n\n x\n{\xe6\x97\xa5}\n{"), uint16(2), uint16(2))
	f.Fuzz(func(t *testing.T, data []byte, seed, step uint16) {
		const max = 32
		whole := feedAll(max, data)
		// Cut the stream into slices whose lengths follow a simple
		// deterministic sequence driven by the fuzzer's numbers.
		var parts [][]byte
		n := int(seed)%7 + 1
		for s := data; len(s) > 0; {
			k := min(n, len(s))
			parts = append(parts, s[:k])
			s = s[k:]
			n = (n*int(step|1)+3)%11 + 1
		}
		if got := feedAll(max, parts...); fmt.Sprint(got) != fmt.Sprint(whole) {
			t.Fatalf("split feed gave %q, whole gave %q", got, whole)
		}
		for _, e := range whole {
			if e.err == "" && (len(e.line) > max || e.line[0] != '{' || strings.Contains(e.line, "\n")) {
				t.Fatalf("emitted line breaks the rules: %q", e.line)
			}
		}
	})
}

func benchStream() []byte {
	hb := `{"total":2,"running":1,"waiting":1,"msg":"approve: Bash","entries":["10:41 yarn test","10:42 git push","10:42 Reading src/main.rs","10:43 Editing README.md","10:43 user: fix the tests","10:44 Running cargo test","10:44 Bash: go vet ./...","10:45 assistant: done"],"tokens":184502,"tokens_today":31200,"prompt":{"id":"req_abc123","tool":"Bash","hint":"npm test"}}` + "\n"
	return bytes.Repeat([]byte(hb), 64)
}

// BenchmarkAssembler feeds a heartbeat stream in the desktop's 180-byte
// writes.
func BenchmarkAssembler(b *testing.B) {
	stream := benchStream()
	a := NewAssembler(0)
	var n int
	emit := func(line []byte, err error) { n += len(line) }
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		for s := stream; len(s) > 0; {
			k := min(180, len(s))
			a.Feed(s[:k], emit)
			s = s[k:]
		}
	}
	if n == 0 {
		b.Fatal("no lines")
	}
}

func BenchmarkAssemblerWholeLines(b *testing.B) {
	stream := benchStream()
	a := NewAssembler(0)
	emit := func(line []byte, err error) {}
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		a.Feed(stream, emit)
	}
}
