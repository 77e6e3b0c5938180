// Package memfs is an in-memory folderpush.FS for tests. It models a pack
// store of fixed size, injects failures on demand and records every misuse
// of the FS contract, so tests can assert that the installed pack was only
// ever replaced whole.
package memfs

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"sort"

	"github.com/claude-pi/claude-pi/protocols/buddy/folderpush"
)

// Op names an FS operation, for Fail.
type Op string

// Operations that Fail can intercept.
const (
	OpFree    Op = "free"
	OpStage   Op = "stage"
	OpCreate  Op = "create"
	OpWrite   Op = "write"
	OpClose   Op = "close"
	OpCommit  Op = "commit"
	OpDiscard Op = "discard"
)

// ErrNoSpace is returned by a write that would exceed Size.
var ErrNoSpace = errors.New("memfs: no space left")

// FS is the fake store. Set Size and optionally Current and Fail before use.
type FS struct {
	Size    int64             // total bytes of the store
	Current map[string][]byte // the installed pack; replaced whole by Commit
	// Fail, if set, runs before every operation; a non-nil result makes the
	// operation fail with that error and no effect. name is the file name
	// for create, write and close, "" otherwise.
	Fail func(op Op, name string) error

	Commits int      // successful commits
	Misuse  []string // contract violations by the caller

	stage *staging
}

var _ folderpush.FS = (*FS)(nil)

func (fs *FS) fail(op Op, name string) error {
	if fs.Fail == nil {
		return nil
	}
	return fs.Fail(op, name)
}

func (fs *FS) misuse(format string, args ...any) error {
	err := fmt.Errorf("memfs: "+format, args...)
	fs.Misuse = append(fs.Misuse, err.Error())
	return err
}

func used(m map[string][]byte) int64 {
	var n int64
	for _, b := range m {
		n += int64(len(b))
	}
	return n
}

func (fs *FS) free() int64 {
	n := fs.Size - used(fs.Current)
	if fs.stage != nil {
		n -= used(fs.stage.files)
	}
	return n
}

// Free implements folderpush.FS.
func (fs *FS) Free() (int64, error) {
	if err := fs.fail(OpFree, ""); err != nil {
		return 0, err
	}
	return fs.free(), nil
}

// Stage implements folderpush.FS. Like a real store it silently drops a
// leftover staging folder.
func (fs *FS) Stage() (folderpush.Staging, error) {
	if err := fs.fail(OpStage, ""); err != nil {
		return nil, err
	}
	fs.stage = &staging{fs: fs, files: make(map[string][]byte)}
	return fs.stage, nil
}

// Staged lists the files of the live staging folder, sorted; nil when there
// is none.
func (fs *FS) Staged() []string {
	if fs.stage == nil {
		return nil
	}
	return slicesKeys(fs.stage.files)
}

// HasStaging reports whether a staging folder exists.
func (fs *FS) HasStaging() bool { return fs.stage != nil }

func slicesKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

type staging struct {
	fs    *FS
	files map[string][]byte
	open  map[string]*file
}

func (s *staging) live(op string) error {
	if s.fs.stage != s {
		return s.fs.misuse("%s on a staging folder that was committed, discarded or replaced", op)
	}
	return nil
}

func (s *staging) Create(name string) (folderpush.File, error) {
	if err := s.live("create"); err != nil {
		return nil, err
	}
	if err := folderpush.CheckName(name); err != nil {
		return nil, s.fs.misuse("create with unchecked name: %v", err)
	}
	if err := s.fs.fail(OpCreate, name); err != nil {
		return nil, err
	}
	if s.open[name] != nil {
		return nil, s.fs.misuse("create %q while it is still open", name)
	}
	s.files[name] = []byte{}
	f := &file{s: s, name: name}
	if s.open == nil {
		s.open = make(map[string]*file)
	}
	s.open[name] = f
	return f, nil
}

func (s *staging) ReadFile(name string) ([]byte, error) {
	if err := s.live("read"); err != nil {
		return nil, err
	}
	if s.open[name] != nil {
		return nil, s.fs.misuse("read %q while it is still open", name)
	}
	b, ok := s.files[name]
	if !ok {
		return nil, fmt.Errorf("memfs: %q not staged", name)
	}
	return bytes.Clone(b), nil
}

func (s *staging) Commit() error {
	if err := s.live("commit"); err != nil {
		return err
	}
	if len(s.open) > 0 {
		return s.fs.misuse("commit with %d open files", len(s.open))
	}
	if err := s.fs.fail(OpCommit, ""); err != nil {
		return err
	}
	s.fs.Current = maps.Clone(s.files)
	s.fs.stage = nil
	s.fs.Commits++
	return nil
}

func (s *staging) Discard() error {
	if err := s.live("discard"); err != nil {
		return err
	}
	if err := s.fs.fail(OpDiscard, ""); err != nil {
		// A real store may fail to delete; the folder is then a leftover
		// that the next Stage drops.
		return err
	}
	if len(s.open) > 0 {
		return s.fs.misuse("discard with %d open files", len(s.open))
	}
	s.fs.stage = nil
	return nil
}

type file struct {
	s      *staging
	name   string
	closed bool
}

func (f *file) Write(p []byte) (int, error) {
	if f.closed {
		return 0, f.s.fs.misuse("write to closed %q", f.name)
	}
	if err := f.s.live("write"); err != nil {
		return 0, err
	}
	if err := f.s.fs.fail(OpWrite, f.name); err != nil {
		return 0, err
	}
	if int64(len(p)) > f.s.fs.free() {
		return 0, ErrNoSpace
	}
	f.s.files[f.name] = append(f.s.files[f.name], p...)
	return len(p), nil
}

func (f *file) Close() error {
	if f.closed {
		return f.s.fs.misuse("double close of %q", f.name)
	}
	f.closed = true
	delete(f.s.open, f.name)
	return f.s.fs.fail(OpClose, f.name)
}
