// Package jsonstring writes JSON strings byte for byte the way
// JavaScript's JSON.stringify does. The Claude desktop (Buddy) and the
// Stack-chan dock hosts are JavaScript programs; ids and texts we echo back
// must match their bytes, and encoding/json would also escape U+2028,
// U+2029, '<', '>' and '&'.
package jsonstring

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// Append appends s as a JSON string: '"', '\\' and C0 controls escaped
// (short forms where JSON has them, else \u00xx in lower case), everything
// else verbatim. Invalid UTF-8 becomes U+FFFD, as a streaming UTF-8 decoder
// on the other side would make it.
func Append(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				dst = append(dst, s[start:i]...)
				dst = append(dst, "\uFFFD"...)
				i++
				start = i
				continue
			}
			i += n
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' {
			i++
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
