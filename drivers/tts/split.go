package tts

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxCaption is the largest caption the dock accepts, in UTF-8 bytes
// (spec §12.7, §25).
const MaxCaption = 1024

// abbreviations never end a sentence even before a capital ("Dr. Smith").
// Ambiguous ones such as "etc." and "no." are left out: they end a sentence
// unless a lower-case word follows, which the general rule handles.
var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "sr": true,
	"jr": true, "st": true, "vs": true, "e.g": true, "i.e": true, "cf": true,
	"fig": true, "approx": true, "dept": true, "est": true, "mt": true,
}

func isTerminator(r rune) bool { return r == '.' || r == '!' || r == '?' || r == '…' }

// isFullWidthTerminator marks CJK sentence ends, which need no space after.
func isFullWidthTerminator(r rune) bool {
	return r == '。' || r == '！' || r == '？' || r == '｡'
}

// isCloser is punctuation that belongs to the sentence it follows.
func isCloser(r rune) bool {
	return strings.ContainsRune(`)]}"'”’」』）】》〉`, r)
}

// Split cuts text into sentences for synthesis and captions: after ". ",
// "! ", "? " and "…" (with any closing quotes or brackets), after "。！？"
// with no space needed, and at every line break, so list items and headings
// stay apart. Abbreviations ("Dr.", "e.g."), initials ("J. R. R."), list
// numbers ("1. ") and a full stop before a lower-case word do not end a
// sentence. Pieces are trimmed, blank ones dropped, and each is at most
// MaxCaption bytes, cut at a space where possible and never inside a
// character. Invalid UTF-8 is replaced with U+FFFD first.
func Split(text string) []string {
	text = strings.ToValidUTF8(text, "\uFFFD")
	var out []string
	emit := func(s string) {
		s = strings.TrimSpace(s)
		if s != "" {
			out = append(out, limit(s)...)
		}
	}
	start := 0
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029':
			emit(text[start:i])
			i += n
			start = i
			continue
		case isFullWidthTerminator(r):
			end := skipTail(text, i+n)
			emit(text[start:end])
			i, start = end, end
			continue
		case isTerminator(r):
			end := skipTail(text, i)
			next, _ := utf8.DecodeRuneInString(text[end:])
			if end < len(text) && !unicode.IsSpace(next) {
				i = end // "3.14", "a.m.", "...?!" inside a word
				continue
			}
			if strings.TrimRightFunc(text[i:end], isCloser) == "." && !endsSentence(text[start:i], text[end:]) {
				i = end
				continue
			}
			emit(text[start:end])
			i, start = end, end
			continue
		}
		i += n
	}
	emit(text[start:])
	return out
}

// skipTail returns the index after a run of terminators and closers at i.
func skipTail(text string, i int) int {
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !isTerminator(r) && !isFullWidthTerminator(r) && !isCloser(r) {
			break
		}
		i += n
	}
	return i
}

// endsSentence decides whether a single full stop between before and after
// ends a sentence.
func endsSentence(before, after string) bool {
	word := before[strings.LastIndexFunc(before, unicode.IsSpace)+1:]
	word = strings.TrimLeft(word, `("'“‘[`)
	if abbreviations[strings.ToLower(word)] {
		return false
	}
	if r, _ := utf8.DecodeRuneInString(word); utf8.RuneCountInString(word) == 1 && unicode.IsUpper(r) {
		return false // an initial
	}
	if strings.TrimSpace(before) == word && word != "" && strings.Trim(word, "0123456789") == "" {
		return false // "1. " starting a list item
	}
	rest := strings.TrimLeftFunc(after, unicode.IsSpace)
	r, _ := utf8.DecodeRuneInString(rest)
	return !unicode.IsLower(r)
}

// limit cuts s into pieces of at most MaxCaption bytes, preferring the last
// space before the limit and otherwise a character boundary.
func limit(s string) []string {
	var out []string
	for len(s) > MaxCaption {
		cut := MaxCaption
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		if sp := strings.LastIndexFunc(s[:cut], unicode.IsSpace); sp > MaxCaption/2 {
			cut = sp
		}
		if head := strings.TrimSpace(s[:cut]); head != "" {
			out = append(out, head)
		}
		s = strings.TrimSpace(s[cut:])
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}
