package lanpair

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ReplaceJSON writes v to path atomically like WriteJSON, but keeps the
// existing file's mode, owner and group. `sudo claude-pi pair --local
// --revoke` edits the appliance's clients.json as root; a plain rewrite
// would leave a root-owned 0600 file that the appliance (user claude-pi)
// can no longer read at its next start. A missing file is created as
// WriteJSON would.
func ReplaceJSON(path string, v any) error {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return WriteJSON(path, v)
	}
	if err != nil {
		return fmt.Errorf("lanpair: writing %s: %w", path, err)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("lanpair: encoding %s: %v", path, err)
	}
	return writeFile(path, append(b, '\n'), fi.Mode().Perm(), fi)
}

// writeFile replaces path with data atomically: a temporary file beside
// it, fsynced, renamed over it, then the directory fsynced, so a power cut
// leaves the old content or the new. With like set, the new file gets
// like's owner and group. lanpair does this itself rather than through
// drivers/storage because it is part of the hook, which must build for
// macOS and Windows too.
func writeFile(path string, data []byte, perm os.FileMode, like os.FileInfo) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("lanpair: writing %s: %w", path, err)
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("lanpair: writing %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Chmod(perm); err != nil {
		return fail(err)
	}
	if like != nil {
		if uid, gid, ok := owner(like); ok && (uid != os.Geteuid() || gid != os.Getegid()) {
			// Only root may give a file away, and only root edits a file
			// it does not own here (the appliance's, over ssh).
			if err := f.Chown(uid, gid); err != nil {
				return fail(err)
			}
		}
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("lanpair: writing %s: %w", path, err)
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("lanpair: writing %s: %w", path, err)
	}
	return nil
}
