// Package keyfile checks that a file reads as a GLib key file, the
// ini-like format bluetoothd keeps its adapter settings and bonds in
// (/var/lib/bluetooth). It is the test a power cut fails: bluetoothd
// writes each file with g_file_set_contents, which skips the fsync when
// the old file is empty or missing (every file's first write, and
// bluetoothd creates an empty file before its first write), so a cut in
// the seconds after a first write can leave the file's length on the
// disk without its data: zero bytes where the text was.
//
// Check reads a file as GLib's parser (g_key_file_load_from_data) does: a
// line is blank, a comment (#), a group header ([name]) or key=value, the
// first key comes after a group, and every line is UTF-8. It is stricter
// in one way: a zero byte anywhere is damage, since bluetoothd never
// writes one and GLib would silently cut the line short at it. So what
// bluetoothd writes passes, and what a cut leaves does not.
package keyfile

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// Reason is what is wrong with a file, from the most telling cause down.
type Reason string

const (
	// Empty is a file of no bytes: bluetoothd created it and the cut came
	// before its content was renamed over it.
	Empty Reason = "empty"
	// Zeroed is a file of zero bytes only: its length reached the disk,
	// its data never did.
	Zeroed Reason = "zero-filled"
	// NotUTF8 is a line GLib refuses as not UTF-8.
	NotUTF8 Reason = "not UTF-8"
	// NotKeyFile is a line that is no group, key=value or comment (a
	// zero byte inside a line is one).
	NotKeyFile Reason = "not a key file"
	// NoGroup is a key before the first group header.
	NoGroup Reason = "no group"
)

// Error says where and how a file fails Check.
type Error struct {
	Reason Reason
	// Line is the 1-based line that fails; 0 for the whole file (Empty,
	// Zeroed).
	Line int
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return "keyfile: " + string(e.Reason)
	}
	return fmt.Sprintf("keyfile: line %d: %s", e.Line, e.Reason)
}

// Check returns nil when b reads as a key file, or an *Error.
func Check(b []byte) error {
	if len(b) == 0 {
		return &Error{Reason: Empty}
	}
	if allZero(b) {
		return &Error{Reason: Zeroed}
	}
	inGroup := false
	for n, rest := 1, b; len(rest) > 0; n++ {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		switch kind, err := classify(line); {
		case err != "":
			return &Error{Reason: err, Line: n}
		case kind == group:
			inGroup = true
		case kind == keyValue && !inGroup:
			return &Error{Reason: NoGroup, Line: n}
		}
	}
	return nil
}

type lineKind int

const (
	blank lineKind = iota
	group
	keyValue
)

// classify reads one line (without its \n) as GLib's
// g_key_file_parse_line does.
func classify(line []byte) (lineKind, Reason) {
	if bytes.IndexByte(line, 0) >= 0 {
		return 0, NotKeyFile // a comment too: see the package comment
	}
	if !utf8.Valid(line) {
		return 0, NotUTF8
	}
	// GLib strips leading white space (g_ascii_isspace), and a trailing
	// \r with the other trailing white space, before it looks at a line.
	s := bytes.TrimLeft(line, " \t\r\n\v\f")
	s = bytes.TrimRight(s, " \t\r\n\v\f")
	switch {
	case len(s) == 0 || s[0] == '#':
		return blank, ""
	case s[0] == '[':
		if len(s) < 2 || s[len(s)-1] != ']' || !groupName(s[1:len(s)-1]) {
			return 0, NotKeyFile
		}
		return group, ""
	}
	eq := bytes.IndexByte(s, '=')
	if eq <= 0 || !keyName(bytes.TrimRight(s[:eq], " \t")) {
		return 0, NotKeyFile
	}
	return keyValue, ""
}

// groupName: not empty, no brackets, no control characters (GLib's
// g_key_file_is_group_name).
func groupName(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	for _, c := range s {
		if c == '[' || c == ']' || c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

// keyName: not empty, and a '[' only as the start of a trailing
// [locale] (GLib's g_key_file_is_key_name).
func keyName(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	i := bytes.IndexByte(s, '[')
	if i < 0 {
		return bytes.IndexByte(s, ']') < 0
	}
	return i > 0 && s[len(s)-1] == ']' && bytes.IndexAny(s[i+1:len(s)-1], "[]") < 0
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
