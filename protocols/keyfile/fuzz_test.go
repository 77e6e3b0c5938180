package keyfile

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzCheck: no input panics; every refusal is an *Error with a known
// reason and a line inside the input; a file that passes still passes
// with a comment and a blank line added (what GLib also ignores), and
// with a zero byte appended it never does.
func FuzzCheck(f *testing.F) {
	f.Add([]byte(info))
	f.Add([]byte("[General]\nAlias=desk1\n"))
	f.Add(make([]byte, 64))
	f.Add([]byte("[General]\nName[de]=x\r\n"))
	f.Add([]byte("Key=first\n"))
	f.Add([]byte("[General]\nName=Caf\xe9\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		err := Check(b)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%T %v", err, err)
			}
			switch e.Reason {
			case Empty, Zeroed, NotUTF8, NotKeyFile, NoGroup:
			default:
				t.Fatalf("unknown reason %q", e.Reason)
			}
			if e.Line < 0 || e.Line > bytes.Count(b, []byte("\n"))+1 {
				t.Fatalf("line %d of a %d-line input", e.Line, bytes.Count(b, []byte("\n"))+1)
			}
			return
		}
		if err := Check(append([]byte("# c\n\n"), b...)); err != nil {
			t.Fatalf("passed, but not with a comment before it: %v", err)
		}
		if err := Check(append(bytes.Clone(b), 0)); err == nil {
			t.Fatal("a zero byte appended still passed")
		}
	})
}
