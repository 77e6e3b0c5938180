package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDataDirLock: a second appliance on the same data dir is refused with
// the first one's pid; once the first lets go, the dir is free again.
func TestDataDirLock(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	unlock, err := lockDataDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = lockDataDir(dir)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) || !strings.Contains(err.Error(), "--data-dir") {
		t.Fatalf("second lock: %v, want it to name pid %d and --data-dir", err, os.Getpid())
	}
	unlock()
	unlock2, err := lockDataDir(dir)
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	unlock2()
}

// TestSecondApplianceOnTheDataDir: `claude-pi run` itself refuses, before
// it binds a port, so the message is about the data dir.
func TestSecondApplianceOnTheDataDir(t *testing.T) {
	dir := t.TempDir()
	unlock, err := lockDataDir(filepath.Join(dir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	err = run(context.Background(), []string{"run", "--config", "/dev/null", "--board", "sim", "--data-dir", filepath.Join(dir, "data"),
		"--control-socket", filepath.Join(dir, "s.sock"), "--http", "127.0.0.1:0", "--nus-listen", "127.0.0.1:0"},
		strings.NewReader(""), &syncBuffer{}, &syncBuffer{})
	if err == nil || !strings.Contains(err.Error(), "in use by another claude-pi (pid ") {
		t.Fatalf("run on a locked data dir: %v", err)
	}
}

// TestDataDirNotWritable: a data dir this user cannot create names
// --data-dir. (Root can write anywhere, so the directory is a file here:
// the same code path reports it.)
func TestDataDirNotWritable(t *testing.T) {
	err := dataDirError("/var/lib/claude-pi", &os.PathError{Op: "mkdir", Path: "/var/lib/claude-pi", Err: os.ErrPermission})
	if !strings.Contains(err.Error(), "--data-dir DIR") || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("permission error: %v", err)
	}
	file := filepath.Join(t.TempDir(), "f")
	writeFile(t, file, "")
	if _, err := lockDataDir(filepath.Join(file, "data")); err == nil || !strings.Contains(err.Error(), "data_dir ") {
		t.Errorf("a data dir under a file: %v", err)
	}
}
