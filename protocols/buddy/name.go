package buddy

import (
	"strings"
	"unicode"
)

// MaxNameRunes is the longest owner or device name kept (spec §6.2).
const MaxNameRunes = 32

// SanitizeName is the spec's rule for a received owner or device name:
// control characters removed, cut to [MaxNameRunes] code points on a
// character boundary, invalid UTF-8 replaced. Quotes and backslashes stay:
// the encoders escape them (the reference strips them, which alters names).
func SanitizeName(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			continue
		}
		if n == MaxNameRunes {
			break
		}
		b.WriteRune(r) // utf8.RuneError for invalid bytes
		n++
	}
	return b.String()
}
