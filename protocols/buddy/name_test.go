package buddy

import (
	"strings"
	"testing"
)

func TestSanitizeName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Clawd", "Clawd"},
		{"Cl\"aw\\d", "Cl\"aw\\d"},
		{"a\x00b\nc\u2028d\x7f", "abcd"},
		{strings.Repeat("日", 40), strings.Repeat("日", 32)},
		{strings.Repeat("🙂", 33), strings.Repeat("🙂", 32)},
		{"bad\xffbyte", "bad\uFFFDbyte"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := SanitizeName(tt.in); got != tt.want {
			t.Errorf("SanitizeName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
