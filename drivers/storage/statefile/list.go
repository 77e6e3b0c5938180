package statefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// List returns the set-aside copies in the data directory and its
// immediate subdirectories (lan/), oldest first: what the screen's Links
// page and `claude-pi doctor` report until a person removes them. The
// copies' names are the record, so a restart forgets nothing and there
// is no second file to damage.
func List(dataDir string) ([]Damage, error) {
	var out []Damage
	top, err := os.ReadDir(dataDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, e := range top {
		if d, ok := parseCopy("", e.Name()); ok {
			d.Copy = filepath.Join(dataDir, e.Name())
			out = append(out, d)
			continue
		}
		if !e.IsDir() || e.Name() == "packs" {
			continue // packs/ holds pack folders, never a kept file
		}
		sub, err := os.ReadDir(filepath.Join(dataDir, e.Name()))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, s := range sub {
			if d, ok := parseCopy(e.Name(), s.Name()); ok {
				d.Copy = filepath.Join(dataDir, e.Name(), s.Name())
				out = append(out, d)
			}
		}
	}
	slices.SortFunc(out, byAge)
	return out, errors.Join(errs...)
}

// byAge orders copies oldest first: by the stamp, then N, then the name.
func byAge(a, b Damage) int {
	if c := a.At.Compare(b.At); c != 0 {
		return c
	}
	if a.seq != b.seq {
		return a.seq - b.seq
	}
	return strings.Compare(a.Copy, b.Copy)
}

// parseCopy reads NAME.damaged-STAMP-N-REASON back into a Damage.
func parseCopy(dir, name string) (Damage, bool) {
	i := strings.LastIndex(name, asideInfix)
	if i <= 0 {
		return Damage{}, false
	}
	file, rest := name[:i], name[i+len(asideInfix):]
	stamp, rest, ok := strings.Cut(rest, "-")
	if !ok {
		return Damage{}, false
	}
	at, err := time.Parse(stampLayout, stamp)
	if err != nil {
		return Damage{}, false
	}
	num, slug, ok := strings.Cut(rest, "-")
	n, err := strconv.Atoi(num)
	if !ok || err != nil {
		return Damage{}, false
	}
	reason := Invalid
	for r, s := range reasons {
		if s == slug {
			reason = r
		}
	}
	if dir != "" {
		file = dir + "/" + file
	}
	return Damage{File: file, Reason: reason, At: at, seq: n}, true
}
