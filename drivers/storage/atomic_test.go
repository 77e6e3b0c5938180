package storage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFileReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "stats.json")
	for _, content := range []string{"first\n", "second, longer\n", ""} {
		if err := WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != content {
			t.Fatalf("content = %q, want %q", got, content)
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("perm = %v, want 0600", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries, want only stats.json: %v", len(entries), entries)
	}
}

func TestWriteFileErrorNamesPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "x.json")
	err := WriteFile(path, []byte("x"), 0o644)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v, want one naming %s", err, path)
	}
}

// A power cut before the rename leaves a temporary file; RemoveTemps
// deletes it and keeps the real file and unrelated files.
func TestRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "stats.json")
	keep := []string{"stats.json", "other.json", ".other.json.tmp-1"}
	for _, n := range append(keep, ".stats.json.tmp-123", ".stats.json.tmp-abc") {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := RemoveTemps(path); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != ".other.json.tmp-1,other.json,stats.json" {
		t.Fatalf("left %v, want %v", got, keep)
	}
}

func TestFSInfoSane(t *testing.T) {
	free, total, err := FSInfo(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if total == 0 || free > total {
		t.Fatalf("free %d, total %d: want 0 < total and free <= total", free, total)
	}
	if _, _, err := FSInfo(filepath.Join(t.TempDir(), "nope")); err == nil {
		t.Fatal("FSInfo of a missing dir: no error")
	}
}

func BenchmarkWriteFile(b *testing.B) {
	path := filepath.Join(b.TempDir(), "stats.json")
	data := []byte(`{"v":1,"appr":42,"deny":3,"nap":0,"tokens":1234567,"vel":[4,5,8]}` + "\n")
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := WriteFile(path, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReplaceFileKeepsOwner: root editing the appliance's file must leave
// it readable by the appliance's user: same mode, same owner and group.
func TestReplaceFileKeepsOwner(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "clients.json")
	if err := ReplaceFile(p, []byte("a"), 0o600); err != nil { // missing: created
		t.Fatal(err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("created with mode %v, %v; want 0600", fi.Mode(), err)
	}
	if err := os.Chmod(p, 0o640); err != nil {
		t.Fatal(err)
	}
	chowned := os.Geteuid() == 0
	if chowned {
		if err := os.Chown(p, 4242, 4343); err != nil {
			t.Fatal(err)
		}
	}
	if err := ReplaceFile(p, []byte("b"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != "b" {
		t.Fatalf("read back %q, %v", b, err)
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v, %v", fi.Mode(), err)
	}
	if uid, gid, ok := owner(fi); chowned && ok && (uid != 4242 || gid != 4343) {
		t.Fatalf("owner %d:%d, want 4242:4343", uid, gid)
	}
	if !chowned {
		t.Log("not root: owner change not exercised")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*tmp-*")); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}
