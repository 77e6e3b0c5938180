package safetext

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, in string
		oneLine  bool
		want     string // Text.String()
		hidden   bool
	}{
		{"plain", "rm -rf ./build", false, "rm -rf ./build", false},
		{"trojan source", "a\u202eb\u202c", false, "a⟨RLO⟩b⟨PDF⟩", true},
		{"isolates", "\u2066x\u2069\u2067\u2068", false, "⟨LRI⟩x⟨PDI⟩⟨RLI⟩⟨FSI⟩", true},
		{"zero width", "rm\u200b -rf\u200c\u200d\u2060\ufeff", false, "rm⟨ZWSP⟩ -rf⟨ZWNJ⟩⟨ZWJ⟩⟨WJ⟩⟨BOM⟩", true},
		{"ansi", "\x1b[31mred\x1b[0m", false, "⟨ESC⟩[31mred⟨ESC⟩[0m", true},
		{"c1 csi", "\u009b2J", false, "⟨CSI⟩2J", true},
		{"nel", "\u0085", false, "⟨U+0085⟩", true},
		{"cr", "ok\rrm", false, "ok⟨CR⟩rm", true},
		{"newline breaks", "a\nb", false, "a\nb", false},
		{"newline in a label", "a\nb", true, "a⟨LF⟩b", true},
		{"tab is shown, not a warning", "a\tb", false, "a⟨TAB⟩b", false},
		{"nbsp", "/\u00a0tmp", false, "/⟨NBSP⟩tmp", true},
		{"tags", "x\U000e0072", false, "x⟨U+E0072⟩", true},
		{"variation selector", "\u2764\ufe0f", false, "\u2764⟨U+FE0F⟩", true},
		{"hangul filler", "a\u3164b", false, "a⟨U+3164⟩b", true},
		{"cjk emoji rtl are text", "写真 한국 🚀 שלום", false, "写真 한국 🚀 שלום", false},
		{"invalid utf-8 is U+FFFD", "a\xed\xa0\xbdb", false, "a\uFFFD\uFFFD\uFFFDb", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Parse(tt.in, Options{OneLine: tt.oneLine})
			if got.String() != tt.want || got.Hidden != tt.hidden {
				t.Fatalf("Parse(%q) = %q hidden %v, want %q hidden %v", tt.in, got.String(), got.Hidden, tt.want, tt.hidden)
			}
		})
	}
}

func TestNoGlyph(t *testing.T) {
	ascii := func(r rune) bool { return r < 0x80 }
	got := Parse("ok \ue000 写", Options{HasGlyph: ascii})
	if s := got.String(); s != "ok ⟨U+E000⟩ ⟨U+5199⟩" || got.Hidden {
		t.Fatalf("got %q hidden %v", s, got.Hidden)
	}
	// A hidden character keeps its name even where no font draws it.
	if s := Parse("\u202e", Options{HasGlyph: ascii}).String(); s != "⟨RLO⟩" {
		t.Fatalf("got %q", s)
	}
}

func TestElideMiddle(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"a-really-long-project-directory", 11, "a-rea…ctory"},
		{"写真写真写真写真", 5, "写真…写真"},
		{"abcdef", 2, "ab"},
		{"abcdef", 3, "a…f"},
	}
	for _, tt := range tests {
		if got := ElideMiddle(tt.in, tt.n); got != tt.want {
			t.Errorf("ElideMiddle(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
		if n := utf8.RuneCountInString(ElideMiddle(tt.in, tt.n)); n > tt.n {
			t.Errorf("ElideMiddle(%q, %d) has %d characters", tt.in, tt.n, n)
		}
	}
}

// hostile is the corpus every screen is tested against (also read by the
// screens and firmware tests).
type hostile struct {
	Name, Tool, Hint, Detail, Label string
}

func readCorpus(t testing.TB) []hostile {
	b, err := os.ReadFile("testdata/hostile.json")
	if err != nil {
		t.Fatal(err)
	}
	var c []hostile
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal("testdata/hostile.json:", err)
	}
	return c
}

// TestCorpusEscapes: every sample meant to hide something raises the
// warning, and no escaped character survives as Plain text.
func TestCorpusEscapes(t *testing.T) {
	wantHidden := map[string]bool{
		"trojan-source-rlo": true, "trojan-source-isolate": true, "trojan-source-lri": true,
		"zero-width-rm": true, "zero-width-word-joiner": true, "ansi-colour": true,
		"c0-c1-controls": true, "tag-smuggling": true, "nbsp-and-thin-space": true,
	}
	for _, h := range readCorpus(t) {
		txt := Parse(h.Hint+"\n"+h.Detail, Options{})
		if txt.Hidden != wantHidden[h.Name] {
			t.Errorf("%s: hidden = %v, want %v (%q)", h.Name, txt.Hidden, wantHidden[h.Name], txt.String())
		}
		for _, r := range txt.Runs {
			if r.Kind == Plain && strings.IndexFunc(r.S, IsHidden) >= 0 {
				t.Errorf("%s: hidden character left in plain run %q", h.Name, r.S)
			}
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, h := range readCorpus(f) {
		f.Add(h.Hint+"\n"+h.Detail, false)
	}
	f.Add("a\xffb\xed\xa0\x80", true)
	f.Fuzz(func(t *testing.T, s string, oneLine bool) {
		noCJK := func(r rune) bool { return r < 0x2E80 }
		txt := Parse(s, Options{OneLine: oneLine, HasGlyph: noCJK})
		if got := txt.Source(); got != Valid(s) {
			t.Fatalf("Parse(%q) lost characters: source %q", s, got)
		}
		for _, r := range txt.Runs {
			switch r.Kind {
			case Plain:
				if r.S == "" || strings.IndexFunc(r.S, func(c rune) bool { return IsHidden(c) || !noCJK(c) || c == '\n' }) >= 0 {
					t.Fatalf("Parse(%q): plain run %q holds what must be escaped", s, r.S)
				}
			case Newline:
				if oneLine {
					t.Fatalf("Parse(%q): a label broke its line", s)
				}
			case Hidden:
				if !txt.Hidden {
					t.Fatalf("Parse(%q): hidden run without the warning", s)
				}
			}
			if r.Kind != Plain && r.Kind != Newline && r.S == "" {
				t.Fatalf("Parse(%q): escape without a label", s)
			}
		}
		if n := utf8.RuneCountInString(ElideMiddle(s, 9)); n > 9 {
			t.Fatalf("ElideMiddle(%q, 9) has %d characters", s, n)
		}
	})
}
