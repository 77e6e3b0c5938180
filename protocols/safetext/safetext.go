// Package safetext decides how each character of untrusted text (a
// permission prompt's command, a project name) reaches a screen, so that
// what a person reads is what they approve: printable characters are drawn
// as themselves, in logical order; invisible and deceptive ones (bidi
// controls, zero-width characters, C0 and C1 controls, the ESC that starts
// an ANSI sequence) become visible escapes and mark the text as carrying
// hidden characters; a character no font can draw becomes a ⟨U+XXXX⟩
// marker.
//
// Nothing here draws or does I/O: the screens package renders the runs,
// and a caller's HasGlyph says which characters its fonts cover.
package safetext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind says how a Run is drawn.
type Kind uint8

// The kinds of run.
const (
	// Plain text, drawn with the font's glyphs.
	Plain Kind = iota
	// Hidden is one invisible or deceptive character, drawn as its escape
	// in a box so it cannot pass for typed text.
	Hidden
	// NoGlyph is one character no font covers, drawn as ⟨U+XXXX⟩.
	NoGlyph
	// Newline ends a line of a multi-line text; in a one-line label it is
	// Hidden instead.
	Newline
	// Tab is a tab: drawn as an escape, but it does not raise the warning
	// (heredocs and Makefiles carry tabs honestly).
	Tab
)

// Run is a piece of a Text.
type Run struct {
	Kind Kind
	// S is the text of a Plain run, or the escape's label ("RLO",
	// "U+E000") for the other kinds.
	S string
	// R is the character of a one-character run (not Plain).
	R rune
}

// Text is untrusted text split into runs, in logical (stored) order.
type Text struct {
	Runs []Run
	// Hidden: the text carries at least one invisible or deceptive
	// character. The approval screen says so in a warning line.
	Hidden bool
}

// Options say what the caller's screen can draw.
type Options struct {
	// HasGlyph reports whether a font covers r; nil means every printable
	// character is drawable.
	HasGlyph func(r rune) bool
	// OneLine: the text is a label; a newline is an escape, not a break.
	OneLine bool
}

// Parse splits s into runs. Invalid UTF-8 (a half surrogate pair from a
// cut in the wrong place arrives as such bytes) becomes U+FFFD, which is
// drawn. Parse never reorders: a right-to-left override is an escape, not
// an instruction.
func Parse(s string, o Options) Text {
	var t Text
	var plain strings.Builder
	flush := func() {
		if plain.Len() > 0 {
			t.Runs = append(t.Runs, Run{Kind: Plain, S: plain.String()})
			plain.Reset()
		}
	}
	for i, w := 0, 0; i < len(s); i += w {
		var r rune
		r, w = utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w == 1 {
			r = unicode.ReplacementChar // a byte that is not UTF-8: drawn as �
		}
		k, label := Classify(r, o)
		if k == Plain {
			plain.WriteRune(r)
			continue
		}
		flush()
		if k == Hidden {
			t.Hidden = true
		}
		t.Runs = append(t.Runs, Run{Kind: k, S: label, R: r})
	}
	flush()
	return t
}

// Classify says how r is drawn and, when it is escaped, the escape's label.
func Classify(r rune, o Options) (Kind, string) {
	switch {
	case r == '\n' && !o.OneLine:
		return Newline, ""
	case r == '\t':
		return Tab, "TAB"
	case IsHidden(r):
		if n, ok := names[r]; ok {
			return Hidden, n
		}
		return Hidden, code(r)
	case o.HasGlyph != nil && !o.HasGlyph(r):
		return NoGlyph, code(r)
	}
	return Plain, ""
}

func code(r rune) string { return fmt.Sprintf("U+%04X", r) }

// IsHidden reports whether r is invisible or deceptive on a screen: a
// control (C0, DEL, C1), a format character (bidi controls, zero-width
// characters, the BOM, the tag characters that smuggle ASCII), a space
// other than U+0020 (it reads as a word break where the shell sees none),
// a line or paragraph separator, a variation selector, or a blank
// Hangul filler.
func IsHidden(r rune) bool {
	switch {
	case r < 0x20 || (r >= 0x7F && r <= 0x9F):
		return true
	case r == ' ':
		return false
	case unicode.Is(unicode.Cf, r), unicode.Is(unicode.Zs, r), unicode.Is(unicode.Zl, r), unicode.Is(unicode.Zp, r):
		return true
	case unicode.Is(unicode.Variation_Selector, r):
		return true
	case r == 0x115F || r == 0x1160 || r == 0x3164 || r == 0xFFA0 || r == 0x2800:
		return true // Hangul fillers and the blank Braille pattern draw nothing
	case r >= 0xE0000 && r <= 0xE007F:
		return true // tags (also Cf; listed for the reader)
	}
	return false
}

// names are the escapes people recognise; everything else is U+XXXX.
var names = map[rune]string{
	0x00: "NUL", 0x07: "BEL", 0x08: "BS", 0x0A: "LF", 0x0B: "VT", 0x0C: "FF", 0x0D: "CR",
	0x1B: "ESC", 0x7F: "DEL", 0x9B: "CSI", 0x00A0: "NBSP", 0x00AD: "SHY",
	0x200B: "ZWSP", 0x200C: "ZWNJ", 0x200D: "ZWJ", 0x200E: "LRM", 0x200F: "RLM",
	0x202A: "LRE", 0x202B: "RLE", 0x202C: "PDF", 0x202D: "LRO", 0x202E: "RLO",
	0x2060: "WJ", 0x2066: "LRI", 0x2067: "RLI", 0x2068: "FSI", 0x2069: "PDI",
	0x061C: "ALM", 0xFEFF: "BOM", 0x2028: "LSEP", 0x2029: "PSEP",
}

// String renders t as one string, escapes as ⟨label⟩: for logs and for
// screens that cannot box an escape. Unlike the boxed form it is not
// unambiguous (a prompt can contain "⟨RLO⟩" literally).
func (t Text) String() string {
	var b strings.Builder
	for _, r := range t.Runs {
		switch r.Kind {
		case Plain:
			b.WriteString(r.S)
		case Newline:
			b.WriteByte('\n')
		default:
			b.WriteString("⟨" + r.S + "⟩")
		}
	}
	return b.String()
}

// Source reassembles the characters t was parsed from. Parse is lossless
// up to invalid UTF-8: Parse(s).Source() == Valid(s), so two valid texts
// that differ never produce the same runs.
func (t Text) Source() string {
	var b strings.Builder
	for _, r := range t.Runs {
		if r.Kind == Plain {
			b.WriteString(r.S)
		} else {
			b.WriteRune(r.R)
		}
	}
	return b.String()
}

// ElideMiddle shortens s to at most n characters by replacing its middle
// with "…", so both the start and the end of a long path or project name
// stay visible. n < 3 keeps the first n characters.
func ElideMiddle(s string, n int) string {
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	if n < 3 {
		return string(rs[:max(n, 0)])
	}
	head := (n - 1) / 2
	tail := n - 1 - head
	return string(rs[:head]) + "…" + string(rs[len(rs)-tail:])
}

// Valid replaces each byte that is not UTF-8 with U+FFFD, as Parse does.
func Valid(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i, w := 0, 0; i < len(s); i += w {
		var r rune
		r, w = utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r)
	}
	return b.String()
}
