package statefile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// settings is an object document with its own checks, like ui.json.
type settings struct {
	V     int `json:"v"`
	Level int `json:"level"`
}

func (s settings) Validate() error {
	if s.V != 1 {
		return fmt.Errorf("version %d, want 1", s.V)
	}
	if s.Level < 0 || s.Level > 100 {
		return fmt.Errorf("level %d out of 0-100", s.Level)
	}
	return nil
}

// pairing is an element of an array document, like lan/clients.json.
type pairing struct {
	Name string `json:"name"`
}

var stamp = time.Date(2026, 12, 4, 20, 23, 41, 0, time.UTC)

func testDir(t *testing.T) Dir {
	return Dir{Path: t.TempDir(), Now: func() time.Time { return stamp }}
}

// damage is one way a kept file goes bad; put makes it so at path.
type damage struct {
	name   string
	reason Reason
	put    func(path string) error
}

func content(b string) func(string) error {
	return func(p string) error { return os.WriteFile(p, []byte(b), 0o644) }
}

// damages are the kinds the appliance meets: a power cut (empty,
// truncated, zeros), a hand edit (invalid, wrong type, unknown field, out
// of range), a stray mkdir, a file it cannot read.
func damages(object bool) []damage {
	valid, wrongType := `{"v":1,"level":5}`, `[{"name":"desk"}]`
	if !object {
		valid, wrongType = `[{"name":"desk"}]`, `{"v":1,"level":5}`
	}
	ds := []damage{
		{"empty", Empty, content("")},
		{"whitespace", Empty, content(" \n\t")},
		{"truncated", Truncated, content(valid[:len(valid)/2])},
		{"zeros", InvalidJSON, content("\x00\x00\x00\x00")},
		{"invalid", InvalidJSON, content("{not json")},
		{"trailing", InvalidJSON, content(valid + " {}")},
		{"wrong type", WrongType, content(wrongType)},
		{"number", WrongType, content("42")},
		{"too large", TooLarge, content(strings.Repeat(" ", 5000) + valid)},
		{"directory", Directory, func(p string) error { return os.Mkdir(p, 0o755) }},
		{"directory with files", Directory, func(p string) error {
			if err := os.Mkdir(p, 0o755); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(p, "x"), []byte("x"), 0o644)
		}},
	}
	if haveFifo {
		ds = append(ds, damage{"fifo", NotRegular, mkfifo})
	}
	if object {
		ds = append(ds,
			damage{"unknown field", WrongType, content(`{"v":1,"level":5,"colour":"red"}`)},
			damage{"out of range", Invalid, content(`{"v":1,"level":500}`)},
			damage{"foreign version", Invalid, content(`{"v":7}`)},
		)
	} else {
		ds = append(ds, damage{"unknown field", WrongType, content(`[{"name":"desk","pin":1}]`)})
	}
	if os.Geteuid() != 0 { // root reads a 0000 file anyway
		ds = append(ds, damage{"unreadable", Unreadable, func(p string) error {
			return os.WriteFile(p, []byte(valid), 0)
		}})
	}
	return ds
}

func TestLoadSetsAsideEachDamage(t *testing.T) {
	for _, kind := range []struct {
		file   string
		object bool
		load   func(Dir, string) *Damage
	}{
		{"ui.json", true, func(d Dir, n string) *Damage {
			v, _, dmg := LoadJSON(d, n, 4096, settings{V: 1, Level: 50})
			if dmg != nil && v != (settings{V: 1, Level: 50}) {
				t.Errorf("damaged %s gave %+v, want the defaults", n, v)
			}
			return dmg
		}},
		{"lan/clients.json", false, func(d Dir, n string) *Damage {
			v, _, dmg := LoadJSON[[]pairing](d, n, 4096, nil)
			if dmg != nil && v != nil {
				t.Errorf("damaged %s gave %+v, want no pairings", n, v)
			}
			return dmg
		}},
	} {
		for _, dm := range damages(kind.object) {
			t.Run(kind.file+"/"+dm.name, func(t *testing.T) {
				d := testDir(t)
				path := d.path(kind.file)
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := dm.put(path); err != nil {
					t.Fatal(err)
				}
				dmg := kind.load(d, kind.file)
				if dmg == nil {
					t.Fatalf("%s: no damage reported", dm.name)
				}
				if dmg.Reason != dm.reason || dmg.File != kind.file || dmg.AsideErr != nil {
					t.Errorf("damage = %+v, want %s of %s set aside", dmg, dm.reason, kind.file)
				}
				if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("%s still in place after set-aside: %v", path, err)
				}
				if _, err := os.Lstat(dmg.Copy); err != nil {
					t.Errorf("copy %s: %v", dmg.Copy, err)
				}
				listed, err := List(d.Path)
				if err != nil || len(listed) != 1 {
					t.Fatalf("List = %+v, %v; want the one copy", listed, err)
				}
				if got := listed[0]; got.File != kind.file || got.Reason != dm.reason || !got.At.Equal(stamp) || got.Copy != dmg.Copy {
					t.Errorf("List()[0] = %+v, want %+v", got, dmg)
				}
				// The service saves its defaults next, and that must work.
				if err := d.Save(kind.file, []byte("{}\n"), 0o600); err != nil {
					t.Errorf("save after set-aside: %v", err)
				}
			})
		}
	}
}

func TestLoadValidAndMissing(t *testing.T) {
	d := testDir(t)
	v, found, dmg := LoadJSON(d, "ui.json", 4096, settings{V: 1})
	if found || dmg != nil || v != (settings{V: 1}) {
		t.Fatalf("missing file: %+v %v %v, want defaults, not found, no damage", v, found, dmg)
	}
	if err := d.SaveJSON("ui.json", settings{V: 1, Level: 7}, 0o644); err != nil {
		t.Fatal(err)
	}
	v, found, dmg = LoadJSON(d, "ui.json", 4096, settings{V: 1})
	if !found || dmg != nil || v.Level != 7 {
		t.Fatalf("saved file: %+v %v %v, want level 7", v, found, dmg)
	}
	if l, _ := List(d.Path); len(l) != 0 {
		t.Errorf("List = %+v after a clean load", l)
	}
}

// Two damages in the same second (or at a boot time a Pi without a clock
// repeats) keep both copies.
func TestTwoDamagesSameSecondKeepBoth(t *testing.T) {
	d := testDir(t)
	for _, b := range []string{"first damage", "second damage", ""} {
		if err := os.WriteFile(d.path("stats.json"), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, dmg := d.Load("stats.json", 4096, func([]byte) error { return errors.New("bad") }); dmg == nil || dmg.AsideErr != nil {
			t.Fatalf("load %q: %v", b, dmg)
		}
	}
	listed, err := List(d.Path)
	if err != nil || len(listed) != 3 {
		t.Fatalf("List = %+v, %v; want three copies", listed, err)
	}
	var got []string
	for _, l := range listed {
		b, err := os.ReadFile(l.Copy)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(b))
	}
	if strings.Join(got, "|") != "first damage|second damage|" {
		t.Errorf("copies hold %q, want each damage once", got)
	}
}

// A copy name already taken, by a file or by an empty directory (which
// rename(2) would silently replace), is never overwritten.
func TestSetAsideNeverReplaces(t *testing.T) {
	for _, taken := range []string{"file", "empty directory"} {
		t.Run(taken, func(t *testing.T) {
			d := testDir(t)
			path := d.path("docks.json")
			first := fmt.Sprintf("%s%s%s-1-%s", path, asideInfix, stamp.Format(stampLayout), Directory.slug())
			if taken == "file" {
				if err := os.WriteFile(first, []byte("evidence"), 0o644); err != nil {
					t.Fatal(err)
				}
			} else if err := os.Mkdir(first, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
			_, dmg := d.Load("docks.json", 4096, func([]byte) error { return nil })
			if dmg == nil || dmg.AsideErr != nil || dmg.Copy == first {
				t.Fatalf("damage = %+v, want a copy beside %s", dmg, first)
			}
			if taken == "file" {
				if b, _ := os.ReadFile(first); string(b) != "evidence" {
					t.Errorf("earlier copy now holds %q", b)
				}
			} else if fi, err := os.Stat(first); err != nil || !fi.IsDir() {
				t.Errorf("earlier copy gone: %v", err)
			}
		})
	}
}

func TestFallbackRenameNeverReplaces(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := renameNoReplaceFallback(a, b); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("file over file: %v, want ErrExist", err)
	}
	os.Remove(b)
	os.Mkdir(b, 0o755)
	os.Remove(a)
	os.Mkdir(a, 0o755)
	if err := renameNoReplaceFallback(a, b); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("directory over empty directory: %v, want ErrExist", err)
	}
	if err := renameNoReplaceFallback(a, filepath.Join(dir, "c")); err != nil {
		t.Fatalf("directory to a free name: %v", err)
	}
}

// A directory put where a file belongs is set aside by the next save too,
// not only at the next start.
func TestSaveSetsAsideDirectory(t *testing.T) {
	d := testDir(t)
	if err := os.MkdirAll(filepath.Join(d.path("stats.json"), "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := d.Save("stats.json", []byte("{}\n"), 0o644); err != nil {
		t.Fatalf("save over a directory: %v", err)
	}
	if b, err := os.ReadFile(d.path("stats.json")); err != nil || string(b) != "{}\n" {
		t.Errorf("stats.json = %q, %v", b, err)
	}
	if l, _ := List(d.Path); len(l) != 1 || l[0].Reason != Directory {
		t.Errorf("List = %+v, want the directory", l)
	}
}

func TestSaveFullDiskKeepsOld(t *testing.T) {
	d := testDir(t)
	if err := d.Save("buddy.json", []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d.Write = func(string, []byte, os.FileMode) error { return syscall.ENOSPC }
	if err := d.Save("buddy.json", []byte("new\n"), 0o644); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("save on a full disk: %v, want ENOSPC", err)
	}
	if b, _ := os.ReadFile(d.path("buddy.json")); !bytes.Equal(b, []byte("old\n")) {
		t.Errorf("buddy.json = %q after a failed save, want the old one", b)
	}
}

func TestSummary(t *testing.T) {
	d := Damage{File: "lan/clients.json", Reason: InvalidJSON, At: stamp}
	if got, want := d.Summary(), "lan/clients.json (invalid JSON) at 2026-12-04 20:23:41 UTC"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
}

func TestListIgnoresOtherNames(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"stats.json", ".damaged-20261204T202341Z-1-empty", "x.damaged-notatime-1-empty", "x.damaged-20261204T202341Z-n-empty", "x.damaged-20261204T202341Z"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if l, err := List(dir); err != nil || len(l) != 0 {
		t.Errorf("List = %+v, %v; want nothing", l, err)
	}
	if l, err := List(filepath.Join(dir, "missing")); err != nil || l != nil {
		t.Errorf("List of a missing dir = %+v, %v", l, err)
	}
}

// A file damaged again and again keeps only its newest KeepCopies copies,
// whatever their second (a clock that jumps back after a boot orders by
// the stamp, as List does); another file's copies are never touched.
func TestOnlyTheNewestCopiesAreKept(t *testing.T) {
	d := testDir(t)
	at := stamp
	d.Now = func() time.Time { return at }
	if err := os.WriteFile(d.path("ui.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, dmg := d.Load("ui.json", 4096, func([]byte) error { return errors.New("bad") }); dmg == nil || dmg.AsideErr != nil {
		t.Fatalf("ui.json: %v", dmg)
	}
	// The oldest damage is a stray directory, set aside as a directory.
	if err := os.MkdirAll(filepath.Join(d.path("stats.json"), "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, dmg := d.Load("stats.json", 4096, func([]byte) error { return nil }); dmg == nil || dmg.Reason != Directory {
		t.Fatalf("directory: %v", dmg)
	}
	const damages = KeepCopies + 3
	for i := 1; i < damages; i++ {
		at = stamp.Add(time.Duration(i) * time.Minute)
		if i%2 == 0 {
			at = stamp.Add(time.Duration(i-1) * time.Minute) // two in one minute's second
		}
		if err := os.WriteFile(d.path("stats.json"), fmt.Appendf(nil, "damage %d", i), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, dmg := d.Load("stats.json", 4096, func([]byte) error { return errors.New("bad") }); dmg == nil || dmg.AsideErr != nil {
			t.Fatalf("damage %d: %v", i, dmg)
		}
	}
	listed, err := List(d.Path)
	if err != nil {
		t.Fatal(err)
	}
	var stats []string
	ui := 0
	for _, l := range listed {
		switch l.File {
		case "ui.json":
			ui++
		case "stats.json":
			b, err := os.ReadFile(l.Copy)
			if err != nil {
				t.Fatalf("%s: %v", l.Copy, err)
			}
			stats = append(stats, string(b))
		}
	}
	want := []string{"damage 3", "damage 4", "damage 5", "damage 6", "damage 7"}
	if strings.Join(stats, "|") != strings.Join(want, "|") {
		t.Errorf("stats.json copies hold %q, want the newest %d: %q", stats, KeepCopies, want)
	}
	if ui != 1 {
		t.Errorf("ui.json copies: %d, want its one copy kept", ui)
	}
}
