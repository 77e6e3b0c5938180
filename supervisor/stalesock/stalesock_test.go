package stalesock

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestClearMissingPath(t *testing.T) {
	if err := Clear(filepath.Join(t.TempDir(), "none.sock")); err != nil {
		t.Errorf("Clear(missing) = %v, want nil", err)
	}
}

func TestClearRefusesARegularFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(path, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Clear(path); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Errorf("Clear(regular file) = %v, want a 'not a socket' refusal", err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "keep me" {
		t.Errorf("the file after Clear: %q, %v; want it untouched", b, err)
	}
}

func TestClearKeepsALiveSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "live.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := Clear(path); !errors.Is(err, ErrInUse) {
		t.Errorf("Clear(live socket) = %v, want ErrInUse", err)
	}
	if _, err := os.Lstat(path); err != nil {
		t.Errorf("the live socket is gone after Clear: %v", err)
	}
}

func TestClearRemovesAStaleSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stale.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	// A crash: the listener is gone, its file stays.
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	if _, err := os.Lstat(path); err != nil {
		t.Fatalf("the stale socket file was not left behind: %v", err)
	}
	if err := Clear(path); err != nil {
		t.Fatalf("Clear(stale socket) = %v", err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale socket is still there after Clear: %v", err)
	}
}
