package tts

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"blank", " \n\t \n", nil},
		{"one", "Hello world.", []string{"Hello world."}},
		{"no terminator", "Hello world", []string{"Hello world"}},
		{"three kinds", "Done! Shall I push? Yes. ", []string{"Done!", "Shall I push?", "Yes."}},
		{"runs and quotes", `He said "stop." Then left?! Fine…  OK`, []string{`He said "stop."`, "Then left?!", "Fine…", "OK"}},
		{"brackets", "It works (mostly.) Next.", []string{"It works (mostly.)", "Next."}},
		{"abbreviations", "Ask Dr. Smith, e.g. tomorrow. Mr. Jones vs. Ms. Lee.", []string{"Ask Dr. Smith, e.g. tomorrow.", "Mr. Jones vs. Ms. Lee."}},
		{"initials", "J. R. R. Tolkien wrote it. Read it.", []string{"J. R. R. Tolkien wrote it.", "Read it."}},
		{"lower-case after stop", "Use the config. file then. Restart.", []string{"Use the config. file then.", "Restart."}},
		{"decimals and versions", "Go 1.26 is out. Pi is 3.14 or so.", []string{"Go 1.26 is out.", "Pi is 3.14 or so."}},
		{"file names and urls", "Edit main.go. See https://example.com/a.b?x=1 now.", []string{"Edit main.go.", "See https://example.com/a.b?x=1 now."}},
		{"newlines", "Plan:\n- build\n- test\n\nDone", []string{"Plan:", "- build", "- test", "Done"}},
		{"crlf", "one\r\ntwo", []string{"one", "two"}},
		{"numbered list", "1. Install Go. 2. Run it.", []string{"1. Install Go.", "2. Run it."}},
		{"japanese", "こんにちは。今日はいい天気ですね！散歩しますか？はい", []string{"こんにちは。", "今日はいい天気ですね！", "散歩しますか？", "はい"}},
		{"japanese quotes", "彼は「行くよ。」と言った。次へ", []string{"彼は「行くよ。」", "と言った。", "次へ"}},
		{"mixed scripts", "OK。Next one. 次。", []string{"OK。", "Next one.", "次。"}},
		{"ellipsis inside", "Wait... what? Yes.", []string{"Wait...", "what?", "Yes."}},
		{"invalid utf-8", "bad \xff byte. Ok", []string{"bad \uFFFD byte.", "Ok"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Split(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Split(%q) =\n%q\nwant\n%q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSplitLimit(t *testing.T) {
	long := strings.Repeat("word ", 500) // 2500 bytes, no terminator
	jp := strings.Repeat("あ", 700)       // 2100 bytes, no spaces: cut between characters
	for _, in := range []string{long, jp, strings.Repeat("x", 3000)} {
		parts := Split(in)
		if len(parts) < 2 {
			t.Fatalf("%d-byte sentence not cut: %d parts", len(in), len(parts))
		}
		total := 0
		for _, p := range parts {
			if len(p) > MaxCaption || len(p) == 0 || !utf8.ValidString(p) || strings.TrimSpace(p) != p {
				t.Fatalf("bad piece of %d bytes: %q...", len(p), p[:min(20, len(p))])
			}
			total += utf8.RuneCountInString(strings.ReplaceAll(p, " ", ""))
		}
		if want := utf8.RuneCountInString(strings.ReplaceAll(in, " ", "")); total != want {
			t.Fatalf("pieces hold %d characters, input %d", total, want)
		}
	}
	if parts := Split(long); !strings.HasSuffix(parts[0], "word") {
		t.Fatalf("cut inside a word: %q", parts[0][len(parts[0])-10:])
	}
}

func FuzzSplit(f *testing.F) {
	f.Add("Hello. World! 「はい。」\n1. Dr. J. Smith…")
	f.Add(strings.Repeat("é", 600))
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range Split(s) {
			if p == "" || len(p) > MaxCaption || !utf8.ValidString(p) || strings.TrimSpace(p) != p {
				t.Fatalf("Split(%q) gave bad piece %q", s, p)
			}
		}
	})
}
