package screens

import (
	"strings"
	"unicode"
)

// wrap breaks s into lines no wider than width pixels. It breaks at spaces
// and, inside a word longer than a line (a path, a URL, a long flag), at
// any character, so a real shell command is always readable in full. With
// more than maxLines lines, the last kept line ends in "…".
func (fs *fonts) wrap(st Style, size float64, s string, width, maxLines int) []string {
	var lines []string
	var cur strings.Builder
	curW := 0
	spaceW := fs.measure(st, size, " ")
	flush := func() {
		lines = append(lines, cur.String())
		cur.Reset()
		curW = 0
	}
	for _, word := range strings.FieldsFunc(s, unicode.IsSpace) {
		ww := fs.measure(st, size, word)
		switch {
		case cur.Len() > 0 && curW+spaceW+ww <= width:
			cur.WriteByte(' ')
			cur.WriteString(word)
			curW += spaceW + ww
			continue
		case cur.Len() > 0:
			flush()
		}
		if ww <= width {
			cur.WriteString(word)
			curW = ww
			continue
		}
		for _, r := range word {
			rw := fs.measure(st, size, string(r))
			if curW+rw > width && cur.Len() > 0 {
				flush()
			}
			cur.WriteRune(r)
			curW += rw
		}
	}
	if cur.Len() > 0 {
		flush()
	}
	if maxLines > 0 && len(lines) > maxLines {
		lines = lines[:maxLines]
		last := []rune(lines[maxLines-1])
		for len(last) > 0 && fs.measure(st, size, string(last)+"…") > width {
			last = last[:len(last)-1]
		}
		lines[maxLines-1] = string(last) + "…"
	}
	return lines
}

// ellipsize cuts s to fit width, ending in "…" when cut.
func (fs *fonts) ellipsize(st Style, size float64, s string, width int) string {
	if fs.measure(st, size, s) <= width {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && fs.measure(st, size, string(r)+"…") > width {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}
