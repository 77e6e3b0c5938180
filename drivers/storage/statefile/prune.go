package statefile

import (
	"os"
	"path/filepath"
	"slices"
)

// KeepCopies is how many set-aside copies of one file are kept. A Pi on a
// desk for years whose card keeps damaging the same file (a failing card,
// a power strip that cuts it every night) would otherwise fill the data
// directory with copies nobody reads; the newest few are what a person
// or a bug report needs.
const KeepCopies = 5

// prune removes path's oldest set-aside copies beyond KeepCopies, ordered
// as List orders them (the stamp, then N). It is best effort: a copy that
// cannot be removed costs disk space, never the load that set one aside.
// It returns how many it removed.
func prune(path string) int {
	dir, base := filepath.Split(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var copies []Damage
	for _, e := range entries {
		d, ok := parseCopy("", e.Name())
		if !ok || d.File != base {
			continue
		}
		d.Copy = filepath.Join(dir, e.Name())
		copies = append(copies, d)
	}
	if len(copies) <= KeepCopies {
		return 0
	}
	slices.SortFunc(copies, byAge)
	removed := 0
	for _, d := range copies[:len(copies)-KeepCopies] {
		// A copy may be a directory (a stray mkdir set aside): RemoveAll.
		if os.RemoveAll(d.Copy) == nil {
			removed++
		}
	}
	return removed
}
