// Package storage keeps the appliance's persisted state on the data
// directory so that it survives a power cut at any instant: small files
// are replaced atomically (WriteFile), character packs are staged and
// swapped in whole (PackStore), and FSInfo reports the free space the
// status ack and the push capacity check need. The appliance's kept
// files (stats, settings, pairings) are loaded, saved and set aside by
// statefile, on top of WriteFile.
//
// A Pi loses power by having its plug pulled, so every replacement is a
// rename of a fully written, fsynced file or folder, followed by an fsync
// of the parent directory that makes the rename itself durable.
package storage

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// tempInfix marks WriteFile's temporary files: ".NAME.tmp-RANDOM" beside
// NAME, on the same filesystem so the final rename is atomic.
const tempInfix = ".tmp-"

// WriteFile replaces path with data atomically: a reader (or the next boot)
// sees either the old content or the new, never a mix or a truncated file.
// It writes a temporary file in the same directory, fsyncs it, renames it
// over path and fsyncs the directory.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return writeFile(path, data, perm, nil)
}

// ReplaceFile is WriteFile for a file someone else may own: an existing
// file keeps its mode, owner and group (perm applies to a new one). `sudo
// claude-pi pair --local --revoke` edits the appliance's clients.json as
// root, and a plain rewrite would leave a root-owned file the appliance
// (user claude-pi) can no longer read.
//
// The directory and the file are another user's, so neither is followed
// if it is a symbolic link: a compromised appliance user must not make
// root write, or copy the owner of, a file elsewhere (issue 23).
func ReplaceFile(path string, data []byte, perm os.FileMode) error {
	return replaceFile(path, data, perm)
}

// writeFile is WriteFile; with like set the new file gets like's owner
// and group.
func writeFile(path string, data []byte, perm os.FileMode, like os.FileInfo) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+tempInfix+"*")
	if err != nil {
		return fmt.Errorf("storage: writing %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
			err = fmt.Errorf("storage: writing %s: %w", path, err)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if like != nil {
		if uid, gid, ok := owner(like); ok && (uid != os.Geteuid() || gid != os.Getegid()) {
			// Only root may give a file away, and only root edits a file
			// it does not own here (the appliance's, over ssh).
			if err = f.Chown(uid, gid); err != nil {
				return err
			}
		}
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	return SyncDir(dir)
}

// RemoveTemps deletes temporary files that a WriteFile of path left behind
// when the power failed before its rename. Call it at boot, before reading
// path; the file at path itself is untouched.
func RemoveTemps(path string) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	matches, err := filepath.Glob(filepath.Join(dir, "."+escapeGlob(base)+tempInfix+"*"))
	if err != nil {
		return fmt.Errorf("storage: listing temporary files of %s: %w", path, err)
	}
	for _, m := range matches {
		if err := os.Remove(m); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("storage: removing %s: %w", m, err)
		}
	}
	return nil
}

// SyncDir fsyncs a directory, making the creations, renames and removals of
// its entries durable.
func SyncDir(dir string) error {
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("storage: syncing directory %s: %w", dir, err)
	}
	return nil
}

func escapeGlob(s string) string {
	r := strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `\`, `\\`)
	return r.Replace(s)
}
