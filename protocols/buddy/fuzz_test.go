package buddy

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// FuzzDecode: Decode never panics; whatever decodes re-encodes to one valid
// JSON line that decodes to the same message and re-encodes to the same
// bytes; whatever fails is invalid JSON, not an object, or a field error.
func FuzzDecode(f *testing.F) {
	for _, line := range transcript {
		f.Add([]byte(line))
	}
	f.Add([]byte(`{"prompt":{"id":"\ud83d\ude42\u2028\"\\","tool":null},"entries":[1,"x"]}`))
	f.Add([]byte(`{"time":[1,2,3]}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		m, err := Decode(line)
		if err != nil {
			var fe *FieldError
			if m != nil || !(errors.Is(err, ErrInvalidJSON) || errors.Is(err, ErrNotObject) || errors.As(err, &fe)) {
				t.Fatalf("Decode(%q) = %#v, %v", line, m, err)
			}
			return
		}
		if h, ok := m.(Heartbeat); ok {
			// Ignored fields are not re-encoded: compare what was kept.
			h.Ignored = nil
			m = h
		}
		enc := Encode(m)
		if bytes.IndexByte(enc, '\n') != len(enc)-1 || !json.Valid(enc) {
			t.Fatalf("Encode(%#v) = %q: not one JSON line", m, enc)
		}
		back, err := Decode(enc[:len(enc)-1])
		if err != nil {
			t.Fatalf("re-decode of %q (from %q): %v", enc, line, err)
		}
		if !reflect.DeepEqual(back, m) {
			t.Fatalf("round trip of %q via %q:\n got %#v\nwant %#v", line, enc, back, m)
		}
		if again := Encode(back); !bytes.Equal(again, enc) {
			t.Fatalf("encoding not stable: %q then %q", enc, again)
		}
	})
}
