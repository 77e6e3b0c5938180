// Package statefile owns every file the appliance keeps in its data
// directory (stats.json, ui.json, docks.json, buddy.json,
// lan/clients.json): it loads them, replaces them atomically and sets a
// damaged one aside.
//
// A file that cannot be used, whatever the damage (unreadable, empty,
// cut short by a power cut, not JSON, the wrong kind of document, values
// out of range, a directory in its place), is renamed to a copy that
// never replaces another one, and its owner starts from its defaults: a
// damaged file costs what it held (stats, settings, pairings), never a
// service. The copy's name records the file, when and why, so List can
// tell the screen and `claude-pi doctor` without another file to keep.
package statefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/claude-pi/claude-pi/drivers/storage"
)

// Dir is the data directory. The zero value of each hook is the real
// thing; tests replace them.
type Dir struct {
	// Path is the data directory.
	Path string
	// Write replaces a file atomically; nil is storage.WriteFile. A test
	// puts a full disk here.
	Write func(path string, data []byte, perm os.FileMode) error
	// Now stamps set-aside copies; nil is time.Now.
	Now func() time.Time
}

// Reason says what was wrong with a file; it is part of the set-aside
// copy's name (Reason.slug) and of what the screen shows.
type Reason string

const (
	Unreadable  Reason = "unreadable"
	Empty       Reason = "empty"
	Truncated   Reason = "truncated"
	InvalidJSON Reason = "invalid JSON"
	WrongType   Reason = "wrong type"
	Invalid     Reason = "invalid content"
	TooLarge    Reason = "too large"
	Directory   Reason = "a directory"
	NotRegular  Reason = "not a regular file"
	// Zeroed is a file of zero bytes only: its length reached the disk
	// and its data never did (a write with no fsync, then a power cut).
	Zeroed Reason = "zero-filled"
)

// reasons maps each Reason to the word in a copy's name and back.
var reasons = map[Reason]string{
	Unreadable: "unreadable", Empty: "empty", Truncated: "truncated",
	InvalidJSON: "invalid-json", WrongType: "wrong-type", Invalid: "invalid",
	TooLarge: "too-large", Directory: "directory", NotRegular: "not-regular",
	Zeroed: "zero-filled",
}

func (r Reason) slug() string {
	if s, ok := reasons[r]; ok {
		return s
	}
	return reasons[Invalid]
}

// Damage is one file set aside: what it was, why, when and where the copy
// is.
type Damage struct {
	// File is the file under the data directory, slash-separated
	// ("lan/clients.json").
	File   string
	Reason Reason
	// At is when it was set aside, to the second (the copy's name).
	At time.Time
	// Copy is the set-aside copy's path; "" when the rename failed
	// (AsideErr), and the file is then still in the way.
	Copy string
	// Err is the reader's or the decoder's own words; nil for a copy
	// found by List.
	Err error
	// AsideErr is why the file could not be set aside.
	AsideErr error

	seq int // the copy's N, which orders copies of one second
}

// Summary is the line the screen and doctor show:
// "lan/clients.json (invalid JSON) at 2026-12-04 20:23:41 UTC".
func (d *Damage) Summary() string {
	return fmt.Sprintf("%s (%s) at %s", d.File, d.Reason, d.At.UTC().Format("2006-01-02 15:04:05 MST"))
}

// Error is the log's sentence: what, why, and what the person can do.
func (d *Damage) Error() string {
	cause := ""
	if d.Err != nil {
		cause = ": " + d.Err.Error()
	}
	if d.AsideErr != nil {
		return fmt.Sprintf("%s is %s%s; setting it aside failed (%v): using the defaults, and saving it will fail until the data directory is writable", d.File, d.Reason, cause, d.AsideErr)
	}
	return fmt.Sprintf("%s is %s%s; set aside as %s, using the defaults", d.File, d.Reason, cause, filepath.Base(d.Copy))
}

func (d Dir) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}

func (d Dir) path(name string) string { return filepath.Join(d.Path, filepath.FromSlash(name)) }

// Load reads the file name (slash-separated, under the data directory)
// and hands its content to decode. It reports found false for a missing
// file (nothing to do: defaults). Anything else that stops decode from
// accepting the file sets it aside and returns the Damage; the caller
// then starts from its defaults. decode may return a *DecodeError to
// name the damage (DecodeJSON does); an error wrapping encoding/json's is
// named from it, and any other is Invalid.
//
// max bounds what is read: the appliance's files are small, and a huge
// one is damage, not something to hold in memory.
func (d Dir) Load(name string, max int64, decode func([]byte) error) (found bool, dmg *Damage) {
	path := d.path(name)
	// A temporary file left by a save the power cut short is never the
	// file; a failure to remove it only costs disk space.
	_ = storage.RemoveTemps(path)
	b, reason, err := read(path, max)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err == nil:
		if err = decode(b); err == nil {
			return true, nil
		}
		reason = jsonReason(err) // a decoder of its own (stats.Decode) wraps encoding/json's
		if de := (*DecodeError)(nil); errors.As(err, &de) {
			reason = de.Reason
		}
	}
	return true, d.setAside(name, reason, err)
}

// read returns the file's content, or the Reason it cannot be used.
func read(path string, max int64) ([]byte, Reason, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", err
	}
	switch {
	case err != nil:
		return nil, Unreadable, err
	case fi.IsDir():
		return nil, Directory, errors.New("a directory is where the file should be")
	case !fi.Mode().IsRegular():
		// A FIFO would block the open; a device is never ours.
		return nil, NotRegular, fmt.Errorf("mode %v", fi.Mode().Type())
	case fi.Size() == 0:
		return nil, Empty, errors.New("0 bytes")
	case fi.Size() > max:
		return nil, TooLarge, fmt.Errorf("%d bytes, limit %d", fi.Size(), max)
	}
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, "", err
		}
		return nil, Unreadable, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	switch {
	case err != nil:
		return nil, Unreadable, err
	case int64(len(b)) > max:
		return nil, TooLarge, fmt.Errorf("over %d bytes", max)
	case len(b) == 0:
		return nil, Empty, errors.New("0 bytes")
	}
	return b, "", nil
}

// setAside renames name to a copy that never replaces another and
// returns the Damage to report.
func (d Dir) setAside(name string, reason Reason, cause error) *Damage {
	dmg := &Damage{File: name, Reason: reason, At: d.now().UTC().Truncate(time.Second), Err: cause}
	dmg.Copy, dmg.AsideErr = setAside(d.path(name), reason, dmg.At)
	return dmg
}

// asideInfix starts the part of a copy's name after the file's:
// NAME.damaged-20261204T202341Z-1-invalid-json.
const asideInfix = ".damaged-"

const stampLayout = "20060102T150405Z"

// maxCopies bounds the search for a free copy name within one second; a
// Pi without a clock that keeps damaging the same file at the same boot
// second still gets a new copy each time, up to this many.
const maxCopies = 10000

// setAside renames path to the first free PATH.damaged-STAMP-N-REASON.
// The rename refuses to replace an existing name (renameNoReplace), so
// two damages in the same second, or at a repeated boot time, keep both
// copies. Then only the newest KeepCopies of path's copies stay (prune).
func setAside(path string, reason Reason, at time.Time) (string, error) {
	return SetAsideAs(path, path, reason, at)
}

// SetAsideAs sets path aside under another name: it renames path to the
// first free AS.damaged-STAMP-N-REASON, in AS's directory (on the same
// file system as path), so that List of that directory reports it as AS.
// It is how a file that is not the appliance's own (bluetoothd's, under
// /var/lib/bluetooth) is reported with the appliance's: one rename, so a
// power cut leaves the file either in place or set aside, never both.
// The newest KeepCopies of AS's copies stay.
func SetAsideAs(path, as string, reason Reason, at time.Time) (string, error) {
	stamp := at.UTC().Format(stampLayout)
	for n := nextCopy(as, stamp); n <= maxCopies; n++ {
		aside := fmt.Sprintf("%s%s%s-%d-%s", as, asideInfix, stamp, n, reason.slug())
		err := renameNoReplace(path, aside)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("statefile: setting aside %s: %w", path, err)
		}
		// The copy's directory first: once it holds the copy, a cut
		// cannot lose the file, whatever became of the old name.
		if err := storage.SyncDir(filepath.Dir(as)); err != nil {
			return aside, err
		}
		if filepath.Dir(as) != filepath.Dir(path) {
			if err := storage.SyncDir(filepath.Dir(path)); err != nil {
				return aside, err
			}
		}
		prune(as)
		return aside, nil
	}
	return "", fmt.Errorf("statefile: setting aside %s: %d copies already set aside at %s; remove some", path, maxCopies, stamp)
}

// nextCopy is one more than the highest N among path's copies set aside
// at stamp, whatever their reason, so that N orders them; 1 for the first.
// renameNoReplace still guards the name itself.
func nextCopy(path, stamp string) int {
	prefix := filepath.Base(path) + asideInfix + stamp + "-"
	entries, _ := os.ReadDir(filepath.Dir(path))
	n := 1
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok {
			continue
		}
		num, _, _ := strings.Cut(rest, "-")
		if k, err := strconv.Atoi(num); err == nil && k >= n {
			n = k + 1
		}
	}
	return n
}

// Save replaces the file name with data atomically (a temporary file in
// the same directory, fsynced, renamed over it, the directory fsynced),
// creating its directory. A directory in the file's place is set aside
// first, so one stray mkdir does not fail every save after it.
func (d Dir) Save(name string, data []byte, perm os.FileMode) error {
	path := d.path(name)
	dirPerm := os.FileMode(0o755)
	if perm&0o077 == 0 {
		dirPerm = 0o700 // a private file lives in a private directory
	}
	if err := os.MkdirAll(filepath.Dir(path), dirPerm); err != nil {
		return fmt.Errorf("statefile: saving %s: %w", name, err)
	}
	if fi, err := os.Lstat(path); err == nil && fi.IsDir() {
		if dmg := d.setAside(name, Directory, nil); dmg.AsideErr != nil {
			return fmt.Errorf("statefile: saving %s: a directory is in its place: %w", name, dmg.AsideErr)
		}
	}
	write := d.Write
	if write == nil {
		write = storage.WriteFile
	}
	return write(path, data, perm)
}
