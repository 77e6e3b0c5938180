package folderpush

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckName(t *testing.T) {
	for _, tt := range []struct {
		name string
		ok   bool
		why  string
	}{
		{"idle_0.gif", true, ""},
		{"manifest.json", true, ""},
		{"a..b", true, ""}, // no separator, so it cannot climb
		{"çà ünïcode.gif", true, ""},
		{strings.Repeat("x", 64), true, ""},
		{strings.Repeat("x", 65), false, "65 bytes"},
		{"", false, "empty"},
		{".", false, "starts with a dot"},
		{"..", false, "starts with a dot"},
		{"../x", false, "starts with a dot"},
		{".hidden", false, "starts with a dot"},
		{"a/b", false, "path separator"},
		{`a\b`, false, "path separator"},
		{"C:x", false, "':'"},
		{"a\x00b", false, "U+0000"},
		{"a\nb", false, "U+000A"},
		{"a\x7fb", false, "U+007F"},
		{"a\u009bb", false, "U+009B"},
		{"a\xffb", false, "UTF-8"},
	} {
		err := CheckName(tt.name)
		if (err == nil) != tt.ok {
			t.Errorf("CheckName(%q) = %v, want ok %v", tt.name, err, tt.ok)
			continue
		}
		if err != nil && (!errors.Is(err, ErrInvalidPath) || !strings.Contains(err.Error(), tt.why)) {
			t.Errorf("CheckName(%q) = %q, want it to wrap ErrInvalidPath and mention %q", tt.name, err, tt.why)
		}
	}
}

func TestPackName(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"bufo", "bufo"},
		{"", "pet"},
		{" \t\n ", "pet"},
		{"b\x00u\x1bfo\xff", "bufo"},
		{"../../etc", "../../etc"}, // metadata only, never a path
		{strings.Repeat("é", 40), strings.Repeat("é", 32)},
	} {
		if got := packName(tt.in); got != tt.want {
			t.Errorf("packName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
