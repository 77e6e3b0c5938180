//go:build !linux

package statefile

// renameNoReplace renames old to new unless new exists (fs.ErrExist).
func renameNoReplace(old, new string) error { return renameNoReplaceFallback(old, new) }
