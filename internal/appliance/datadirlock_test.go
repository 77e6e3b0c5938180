package appliance

import (
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
