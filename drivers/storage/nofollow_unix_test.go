//go:build unix

package storage

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestReplaceFileRefusesLinks is issue 23 item 5: `sudo claude-pi pair
// --local --revoke` rewrites clients.json in lan/, a directory the
// appliance's user owns. A link there, for the file or for lan/ itself,
// is refused, and what it points at is left alone.
func TestReplaceFileRefusesLinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("precious"), 0o640); err != nil {
		t.Fatal(err)
	}
	lan := filepath.Join(dir, "lan")
	os.Mkdir(lan, 0o700)
	os.Symlink(target, filepath.Join(lan, "clients.json"))
	elsewhere := filepath.Join(dir, "elsewhere")
	os.Mkdir(elsewhere, 0o700)
	os.Symlink(elsewhere, filepath.Join(dir, "lanlink"))
	for _, p := range []string{filepath.Join(lan, "clients.json"), filepath.Join(dir, "lanlink", "clients.json")} {
		if err := ReplaceFile(p, []byte("[]"), 0o600); err == nil || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("ReplaceFile(%s): %v, want a refusal", p, err)
		}
		if _, err := ReadFileNoFollow(p); err == nil || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("ReadFileNoFollow(%s): %v, want a refusal", p, err)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "precious" {
		t.Fatalf("the link's target became %q", b)
	}
	if left, _ := os.ReadDir(elsewhere); len(left) != 0 {
		t.Fatalf("files written through the directory link: %v", left)
	}
	// A FIFO would block the reader: refused too.
	fifo := filepath.Join(lan, "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err == nil {
		if _, err := ReadFileNoFollow(fifo); err == nil {
			t.Error("a FIFO was read")
		}
	}
	// A missing file reads as not existing, as os.ReadFile says.
	if _, err := ReadFileNoFollow(filepath.Join(lan, "none.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}
