package storage

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/claude-pi/claude-pi/protocols/buddy/folderpush"
)

// Names inside the packs directory. Staging and the previous pack start
// with '.' so that nothing that lists packs mistakes them for one.
const (
	packsDir      = "packs"
	currentDir    = "current"
	oldDir        = ".old"
	stagingPrefix = ".staging-"
	// labelFile, inside a pack, is the name it was pushed under
	// (folderpush.Labeler); a pushed file can never be called this, as
	// folderpush.CheckName refuses a leading '.'.
	labelFile = ".pack.json"
	maxLabel  = 4 << 10
)

// packLabel is labelFile's content.
type packLabel struct {
	Name string `json:"name"`
}

// PackStore is the character-pack storage of folderpush, on a real
// directory: DATA/packs/current holds the installed pack, a push is staged
// in DATA/packs/.staging-*, and Commit swaps it in.
//
// Commit's steps and what Recover (run by OpenPackStore at boot) finds
// after a power cut between them:
//
//  1. fsync every staged file and the staging folder.
//     Crash before or during: staging is removed; current is untouched.
//  2. rename current → .old (skipped for the first pack).
//     Crash after: current is missing and .old is the previous pack →
//     .old is renamed back to current; staging is removed.
//  3. rename staging → current, then fsync packs/.
//     Crash after: current is the new, complete pack (it was synced in
//     step 1) and .old the previous → .old is removed. The desktop got
//     no char_end ack, but the pack it sent is complete and valid.
//  4. remove .old.
//     Crash during: as after step 3.
//
// So the pack directory always holds one complete pack (or none before the
// first install), never a mix. Renames are atomic on the same filesystem,
// which the layout guarantees.
type PackStore struct {
	dir string // DATA/packs

	// Test hooks: hook runs at each commit step and aborts Commit, as a
	// power cut would, when it returns an error; failWrite fails a
	// staged write.
	hook      func(step string) error
	failWrite func(name string) error
}

var _ folderpush.FS = (*PackStore)(nil)

// OpenPackStore opens (creating it if needed) the pack store under
// dataDir and runs Recover.
func OpenPackStore(dataDir string) (*PackStore, error) {
	dir := filepath.Join(dataDir, packsDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("storage: creating pack store: %w", err)
	}
	s := &PackStore{dir: dir}
	if err := s.Recover(); err != nil {
		return nil, err
	}
	return s, nil
}

// Dir is the installed pack's folder, DATA/packs/current. It may not exist
// (no pack installed yet).
func (s *PackStore) Dir() string { return filepath.Join(s.dir, currentDir) }

// Installed reports whether a pack is installed.
func (s *PackStore) Installed() bool {
	fi, err := os.Stat(s.Dir())
	return err == nil && fi.IsDir()
}

// InstalledName is the installed pack's name as it was pushed, read from
// the pack itself, so the owner of buddy.json can reconcile with what is
// on disk after a crash. labelled is false for a pack installed before
// packs carried their name: name is then the manifest's own name
// (folderpush.PackName), a guess. installed is false when there is no
// pack.
func (s *PackStore) InstalledName() (name string, labelled, installed bool) {
	if !s.Installed() {
		return "", false, false
	}
	if b, err := readSmall(filepath.Join(s.Dir(), labelFile), maxLabel); err == nil {
		var l packLabel
		if json.Unmarshal(b, &l) == nil && l.Name != "" {
			return folderpush.PackName(l.Name), true, true
		}
	}
	var m struct {
		Name string `json:"name"`
	}
	if b, err := readSmall(filepath.Join(s.Dir(), folderpush.ManifestName), folderpush.MaxManifestSize); err == nil {
		_ = json.Unmarshal(b, &m) // a damaged manifest is the ui's to report; the name is "pet"
	}
	return folderpush.PackName(m.Name), false, true
}

func readSmall(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(b)) > max {
		err = fmt.Errorf("%s is over %d bytes", path, max)
	}
	return b, err
}

// Recover brings the store back to one complete pack after a crash at any
// point of a push or a Commit (see PackStore) and removes stale staging
// folders. It is idempotent.
func (s *PackStore) Recover() error {
	cur, old := s.Dir(), filepath.Join(s.dir, oldDir)
	_, curErr := os.Stat(cur)
	_, oldErr := os.Stat(old)
	switch {
	case oldErr == nil && os.IsNotExist(curErr):
		// Crash after step 2: put the previous pack back.
		if err := os.Rename(old, cur); err != nil {
			return fmt.Errorf("storage: restoring previous pack: %w", err)
		}
	case oldErr == nil:
		// Crash after step 3 or during step 4: the new pack is in place.
		if err := os.RemoveAll(old); err != nil {
			return fmt.Errorf("storage: removing previous pack: %w", err)
		}
	}
	if err := s.removeStaging(); err != nil {
		return err
	}
	return SyncDir(s.dir)
}

func (s *PackStore) removeStaging() error {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return fmt.Errorf("storage: listing pack store: %w", err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), stagingPrefix) {
			if err := os.RemoveAll(filepath.Join(s.dir, e.Name())); err != nil {
				return fmt.Errorf("storage: removing stale staging: %w", err)
			}
		}
	}
	return nil
}

// Free implements folderpush.FS: the filesystem's free bytes, which the
// installed pack already occupies, so a new pack must fit beside it.
func (s *PackStore) Free() (int64, error) {
	free, _, err := FSInfo(s.dir)
	if err != nil {
		return 0, err
	}
	return int64(min(free, math.MaxInt64)), nil
}

// Stage implements folderpush.FS: it drops leftover staging folders and
// creates an empty one.
func (s *PackStore) Stage() (folderpush.Staging, error) {
	if err := s.removeStaging(); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(s.dir, stagingPrefix)
	if err != nil {
		return nil, fmt.Errorf("storage: creating staging folder: %w", err)
	}
	return &staging{s: s, dir: dir, names: make(map[string]bool)}, nil
}

type staging struct {
	s     *PackStore
	dir   string
	names map[string]bool // files created, to sync at Commit
	done  bool
}

func (st *staging) Create(name string) (folderpush.File, error) {
	if st.done {
		return nil, errors.New("storage: create in a finished staging folder")
	}
	// The receiver checked name; check again because a path here would
	// write outside the pack store.
	if err := folderpush.CheckName(name); err != nil {
		return nil, fmt.Errorf("storage: staging %q: %w", name, err)
	}
	f, err := os.OpenFile(filepath.Join(st.dir, name), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("storage: staging %q: %w", name, err)
	}
	st.names[name] = true
	// Chunks are 256 bytes: buffer them instead of one syscall each.
	return &stagedFile{st: st, name: name, f: f, w: bufio.NewWriterSize(f, 32<<10)}, nil
}

// Label implements folderpush.Labeler: the name goes into the staged
// folder and is synced and swapped in with the pack's files.
func (st *staging) Label(name string) error {
	if st.done {
		return errors.New("storage: label of a finished staging folder")
	}
	b, err := json.Marshal(packLabel{Name: name})
	if err != nil {
		return fmt.Errorf("storage: labelling the pack: %v", err)
	}
	if err := os.WriteFile(filepath.Join(st.dir, labelFile), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("storage: labelling the pack: %w", err)
	}
	st.names[labelFile] = true // synced by Commit
	return nil
}

func (st *staging) ReadFile(name string) ([]byte, error) {
	if err := folderpush.CheckName(name); err != nil {
		return nil, fmt.Errorf("storage: reading staged %q: %w", name, err)
	}
	b, err := os.ReadFile(filepath.Join(st.dir, name))
	if err != nil {
		return nil, fmt.Errorf("storage: reading staged %q: %w", name, err)
	}
	return b, nil
}

func (st *staging) step(name string) error {
	if st.s.hook != nil {
		return st.s.hook(name)
	}
	return nil
}

// Commit implements folderpush.Staging; see PackStore for the steps.
func (st *staging) Commit() error {
	if st.done {
		return errors.New("storage: commit of a finished staging folder")
	}
	for name := range st.names {
		if err := syncFile(filepath.Join(st.dir, name)); err != nil {
			return err
		}
	}
	if err := SyncDir(st.dir); err != nil {
		return err
	}
	if err := st.step("synced"); err != nil {
		return err
	}
	cur, old := st.s.Dir(), filepath.Join(st.s.dir, oldDir)
	if err := os.RemoveAll(old); err != nil { // a leftover would block the rename
		return fmt.Errorf("storage: removing stale previous pack: %w", err)
	}
	hadPack := st.s.Installed()
	if hadPack {
		if err := os.Rename(cur, old); err != nil {
			return fmt.Errorf("storage: moving current pack aside: %w", err)
		}
		if err := st.step("moved-old"); err != nil {
			return err
		}
	}
	if err := os.Rename(st.dir, cur); err != nil {
		if hadPack {
			if rerr := os.Rename(old, cur); rerr != nil {
				err = errors.Join(err, fmt.Errorf("restoring previous pack: %w", rerr))
			}
		}
		return fmt.Errorf("storage: installing pack: %w", err)
	}
	st.done = true
	if err := SyncDir(st.s.dir); err != nil {
		return err
	}
	if err := st.step("swapped"); err != nil {
		return err
	}
	if hadPack {
		// The new pack is durable; a failure here only leaves .old for
		// the next Recover, so report it without failing the install.
		_ = os.RemoveAll(old)
	}
	return nil
}

// Discard implements folderpush.Staging.
func (st *staging) Discard() error {
	if st.done {
		return nil
	}
	st.done = true
	if err := os.RemoveAll(st.dir); err != nil {
		return fmt.Errorf("storage: discarding staging: %w", err)
	}
	return nil
}

func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("storage: syncing %s: %w", path, err)
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("storage: syncing %s: %w", path, err)
	}
	return nil
}

type stagedFile struct {
	st   *staging
	name string
	f    *os.File
	w    *bufio.Writer
}

func (sf *stagedFile) Write(p []byte) (int, error) {
	if sf.st.s.failWrite != nil {
		if err := sf.st.s.failWrite(sf.name); err != nil {
			return 0, err
		}
	}
	return sf.w.Write(p)
}

// Close flushes and closes; the fsync waits for Commit because the
// desktop gives file_end 10 s and a pack may have many files.
func (sf *stagedFile) Close() error {
	err := sf.w.Flush()
	if cerr := sf.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("storage: closing staged %q: %w", sf.name, err)
	}
	return nil
}
