package dock

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"testing"
)

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{"whisper-cli -m /opt/m.bin", []string{"whisper-cli", "-m", "/opt/m.bin"}, false},
		{`  a   'b c'  "d \"e\" $f"  g\ h `, []string{"a", "b c", `d "e" $f`, "g h"}, false},
		{`"" x`, []string{"", "x"}, false},
		{`a'b'"c"`, []string{"abc"}, false},
		{`"a\b"`, []string{`a\b`}, false},
		{"echo $HOME; rm -rf /", []string{"echo", "$HOME;", "rm", "-rf", "/"}, false},
		{"", nil, false},
		{"'open", nil, true},
		{`"open`, nil, true},
		{`trailing\`, nil, true},
		{"bad \xff", nil, true},
	}
	for _, tt := range tests {
		got, err := SplitCommand(tt.in)
		if (err != nil) != tt.wantErr || !slices.Equal(got, tt.want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q (error %v)", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestAppendWAV(t *testing.T) {
	b := appendWAV(nil, []byte{1, 2, 3, 4}, 16000)
	le := binary.LittleEndian
	if len(b) != 48 || string(b[:4]) != "RIFF" || le.Uint32(b[4:]) != 40 || le.Uint32(b[24:]) != 16000 ||
		le.Uint32(b[28:]) != 32000 || le.Uint32(b[40:]) != 4 || !bytes.Equal(b[44:], []byte{1, 2, 3, 4}) {
		t.Errorf("appendWAV = % x", b)
	}
}

// FuzzSplitCommand: never panics, and the words quoted back (each in single
// quotes) split to the same words.
func FuzzSplitCommand(f *testing.F) {
	for _, s := range []string{"whisper-cli -m /opt/m.bin -f", `a 'b c' "d \"e\"" f\ g`, `'open`, `x\`, `"" ''`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := SplitCommand(s)
		if err != nil {
			return
		}
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
		again, err := SplitCommand(strings.Join(quoted, " "))
		if err != nil || !slices.Equal(again, words) {
			t.Fatalf("%q split to %q; quoted back %q split to %q, %v", s, words, quoted, again, err)
		}
	})
}

// FuzzParseVerdict: never panics, and saying the same thing twice means
