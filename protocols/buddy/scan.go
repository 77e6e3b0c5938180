package buddy

import (
	"unicode/utf16"
	"unicode/utf8"
)

// The decoder walks the line by hand instead of unmarshalling into a map:
// that keeps a heartbeat at a handful of allocations, lets errors name the
// field and its JSON type, and sees which keys are present (dispatch and
// "absent = no prompt" depend on presence, not on zero values). Every line
// is first checked with json.Valid, so these helpers only ever see
// well-formed JSON and can stay small.

// eachMember calls fn for every member of the JSON object obj, in order.
// key has its escapes resolved and aliases a scratch buffer: compare it, do
// not keep it.
func eachMember(obj []byte, fn func(key, val []byte) error) error {
	i := skipWS(obj, 0) + 1 // past '{'
	var keyBuf [32]byte
	for {
		i = skipWS(obj, i)
		if obj[i] == '}' {
			return nil
		}
		end := skipString(obj, i)
		key := unquoteBytes(keyBuf[:0], obj[i:end])
		i = skipWS(obj, end) + 1 // past ':'
		i = skipWS(obj, i)
		vend := skipValue(obj, i)
		if err := fn(key, obj[i:vend]); err != nil {
			return err
		}
		i = skipWS(obj, vend)
		if obj[i] == ',' {
			i++
		}
	}
}

// eachElement calls fn for every element of the JSON array arr.
func eachElement(arr []byte, fn func(idx int, val []byte) error) error {
	i := skipWS(arr, 0) + 1
	for n := 0; ; n++ {
		i = skipWS(arr, i)
		if arr[i] == ']' {
			return nil
		}
		end := skipValue(arr, i)
		if err := fn(n, arr[i:end]); err != nil {
			return err
		}
		i = skipWS(arr, end)
		if arr[i] == ',' {
			i++
		}
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i] == '"'.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// skipValue returns the index just past the value starting at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(b)
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
		i++
	}
	return i
}

// jsonType names the JSON type of a raw value for error messages.
func jsonType(v []byte) string {
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// unquote decodes a raw JSON string value (with its quotes) to a Go string.
// Invalid UTF-8 and unpaired surrogates become U+FFFD, as in encoding/json.
func unquote(raw []byte) string {
	inner := raw[1 : len(raw)-1]
	if plain(inner) {
		return string(inner)
	}
	return string(unquoteBytes(make([]byte, 0, len(inner)), raw))
}

// plain reports whether s needs no unescaping or UTF-8 repair.
func plain(s []byte) bool {
	for _, c := range s {
		if c == '\\' || c >= utf8.RuneSelf {
			return utf8.Valid(s) && !containsByte(s, '\\')
		}
	}
	return true
}

func containsByte(s []byte, c byte) bool {
	for _, x := range s {
		if x == c {
			return true
		}
	}
	return false
}

// unquoteBytes appends the decoded contents of the raw JSON string to dst.
func unquoteBytes(dst, raw []byte) []byte {
	s := raw[1 : len(raw)-1]
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRune(s[i:])
			dst = utf8.AppendRune(dst, r) // RuneError for bad bytes
			i += n
			continue
		}
		if c != '\\' {
			dst = append(dst, c)
			i++
			continue
		}
		e := s[i+1]
		i += 2
		switch e {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hex4(s[i:])
			i += 4
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					r2 = hex4(s[i+2:])
				}
				if p := utf16.DecodeRune(r, r2); p != utf8.RuneError {
					r = p
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
		default: // '"', '\\', '/'
			dst = append(dst, e)
		}
	}
	return dst
}

// hex4 decodes four hex digits; json.Valid has already checked them.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// parseInt parses a raw JSON number that must be a plain integer literal
// (no fraction, no exponent: JSON.stringify never writes either for an
// integer) in [lo, hi].
func parseInt(v []byte, lo, hi int64) (int64, bool) {
	neg := len(v) > 0 && v[0] == '-'
	digits := v
	if neg {
		digits = v[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		return 0, false // 18 digits cannot overflow int64
	}
	var n int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, n >= lo && n <= hi
}
