package ctlsock

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOwner(t *testing.T) {
	tests := []struct {
		name   string
		make   func(t *testing.T, stock, ours string)
		ok     bool
		detail string
	}{
		{"our link", func(t *testing.T, s, o string) { must(t, os.Symlink(o, s)) }, true, "-> "},
		{"missing", func(t *testing.T, s, o string) {}, false, "missing"},
		{"another link", func(t *testing.T, s, o string) { must(t, os.Symlink("/elsewhere.sock", s)) }, false, "not claude-pi's"},
		{"supervisord's socket", func(t *testing.T, s, o string) {
			l, err := net.Listen("unix", s)
			must(t, err)
			t.Cleanup(func() { l.Close() })
		}, false, "supervisord owns"},
		{"a plain file", func(t *testing.T, s, o string) { must(t, os.WriteFile(s, nil, 0o644)) }, false, "neither"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			stock, ours := filepath.Join(dir, "s.sock"), filepath.Join(dir, "ours.sock")
			tc.make(t, stock, ours)
			ok, detail, fix := Owner(stock, ours)
			if ok != tc.ok || !strings.Contains(detail, tc.detail) || (fix == "") != ok {
				t.Fatalf("Owner = %v, %q, %q; want ok=%v, detail containing %q, a fix only when not ok", ok, detail, fix, tc.ok, tc.detail)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
