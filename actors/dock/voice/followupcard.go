package voice

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

// The follow-up card's first page, as the CoreS3 lays it out: the summary
// in cardRows lines of cardColumns 8 px columns (firmware/core/apps.h
// kDetailRows, kDetailColumns; a test compares them). What a follow-up
// sends is what this page shows, so the Pi cuts the text to fit it, never
// the card: the firmware never learns which detail pages were looked at,
// and the card goes out followUpConfirm after it was presented.
const (
	cardColumns = 36
	cardRows    = 8
)

// cellWidth is the most columns the CoreS3 may give r (firmware/core/
// safetext.cpp Cells): printable ASCII is one column; anything else is two
// with a glyph, or a box labelled "U+XXXX" (or a shorter name) plus one
// when the font lacks it or it is hidden. The Pi does not know the font,
// so it counts the box: its layout never has fewer lines than the card's.
func cellWidth(r rune) int {
	if r >= 0x20 && r < 0x7F {
		return 1
	}
	return len(fmt.Sprintf("U+%04X", r)) + 1
}

// cardFit is the longest prefix of text that fills at most rows lines of
// cols columns, broken as the CoreS3 breaks them (at the column limit,
// anywhere in a word, a wide cell moving to the next line). A cut falls on
// a space when one is in the prefix's second half. left counts the runes
// cut off. text is one line (hookbridge.Printable has no line breaks).
func cardFit(text string, cols, rows int) (shown string, left int) {
	lines, width, end := 1, 0, len(text)
	for i, r := range text {
		w := cellWidth(r)
		if width > 0 && width+w > cols {
			lines, width = lines+1, 0
		}
		if lines > rows {
			end = i
			break
		}
		width += w
	}
	if end == len(text) {
		return text, 0
	}
	shown = text[:end]
	if sp := strings.LastIndexByte(shown, ' '); sp > len(shown)/2 && text[end] != ' ' {
		shown = shown[:sp]
	}
	shown = strings.TrimRight(shown, " ")
	return shown, utf8.RuneCountInString(text) - utf8.RuneCountInString(shown)
}

// fitLine is s on one line of at most cols columns, ending in "…" when cut.
func fitLine(s string, cols int) string {
	if shown, left := cardFit(s, cols, 1); left == 0 {
		return shown
	}
	shown, _ := cardFit(s, cols-cellWidth('…'), 1)
	return shown + "…"
}

// followUpText is what a follow-up may send of the recogniser's text: the
// characters the hook takes (hookbridge.Printable), one space between
// words, as many as hookbridge.MaxFollowUp.
func followUpText(heard string) string {
	return strings.Join(strings.Fields(hookbridge.Printable(heard, hookbridge.MaxFollowUp)), " ")
}

// followUpCard is the card's summary and the text the follow-up sends:
// first the session it goes to (the computer's name, the project folder),
// then as much of heard as the remaining rows hold, and, when that is not
// all of it, a last line saying how much is not sent.
func followUpCard(heard, computer, project string) (summary, send string) {
	to := computer
	if to == "" {
		to = "a paired computer"
	}
	if project != "" {
		to += " · " + project
	}
	head := fitLine("To "+to, cardColumns)
	send, left := cardFit(heard, cardColumns, cardRows-1)
	if left > 0 {
		send, left = cardFit(heard, cardColumns, cardRows-2)
		return head + "\n" + send + "\n" + notSent(left), send
	}
	return head + "\n" + send, send
}

// notSent is the card's last line for a follow-up cut to fit.
func notSent(n int) string {
	if n == 1 {
		return "(1 more character not sent)"
	}
	return "(" + strconv.Itoa(n) + " more characters not sent)"
}
