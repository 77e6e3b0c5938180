package folderpush

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxNameLen is the longest file name a push may create, in bytes (spec §8.2).
const MaxNameLen = 64

// ErrInvalidPath is wrapped by every CheckName failure; the wrapping error
// says which rule the name broke.
var ErrInvalidPath = errors.New("invalid path")

// CheckName reports whether name is a plain file name that may be created in
// a staging folder: valid UTF-8, 1 to MaxNameLen bytes, no leading dot (which
// also excludes "." and ".."), no '/', '\\' or ':', and no control
// characters (C0, DEL and C1, including NUL). The desktop sends whatever
// names the dropped folder holds and the reference firmware wrote them
// unchecked (spec §12 item 7); this is the only gate between those names and
// the filesystem.
func CheckName(name string) error {
	bad := func(why string) error { return fmt.Errorf("%w %q: %s", ErrInvalidPath, name, why) }
	switch {
	case name == "":
		return bad("empty")
	case len(name) > MaxNameLen:
		return bad(fmt.Sprintf("%d bytes, limit %d", len(name), MaxNameLen))
	case !utf8.ValidString(name):
		return bad("not valid UTF-8")
	case name[0] == '.':
		return bad("starts with a dot")
	}
	for _, r := range name {
		switch {
		case r == '/' || r == '\\':
			return bad("contains a path separator")
		case r == ':':
			return bad("contains ':'")
		case unicode.IsControl(r):
			return bad(fmt.Sprintf("contains control character %U", r))
		}
	}
	return nil
}

// maxPackName is the longest pack display name we keep, in code points.
const maxPackName = 32

// packName turns char_begin's optional name into display metadata (spec
// §8.2 step 3): invalid UTF-8 and control characters dropped, cut to 32 code
// points, "pet" when nothing is left. It never names anything on disk.
func packName(name string) string {
	var b strings.Builder
	n := 0
	for _, r := range strings.ToValidUTF8(name, "") {
		if unicode.IsControl(r) {
			continue
		}
		if n == maxPackName {
			break
		}
		b.WriteRune(r)
		n++
	}
	s := strings.TrimSpace(b.String())
	if s == "" {
		return "pet"
	}
	return s
}
