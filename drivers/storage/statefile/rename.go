package statefile

import (
	"fmt"
	"io/fs"
	"os"
)

// renameNoReplaceFallback is renameNoReplace without renameat2. A file is
// hard-linked to new (link never replaces) and then unlinked; a
// directory, which cannot be linked, is renamed after a check that new is
// free. Only this process names copies of its own files, so nothing
// creates new between the check and the rename.
func renameNoReplaceFallback(old, new string) error {
	fi, err := os.Lstat(old)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		if err := os.Link(old, new); err != nil {
			return err
		}
		return os.Remove(old)
	}
	if _, err := os.Lstat(new); err == nil {
		return &os.LinkError{Op: "rename", Old: old, New: new, Err: fs.ErrExist}
	} else if !os.IsNotExist(err) {
		return fmt.Errorf("checking %s: %w", new, err)
	}
	return os.Rename(old, new)
}
