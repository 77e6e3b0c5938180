//go:build unix

package storage

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// errLink: a symbolic link where ReplaceFile or ReadFileNoFollow expect a
// plain directory or file.
var errLink = errors.New("is a symbolic link or not a regular file; refusing to follow it (remove it, and check who put it there)")

// openDir opens the directory of path without following a link in its
// last element: the caller works relative to the descriptor from then on,
// so no later rename of the directory can send it elsewhere.
func openDir(path string) (int, string, error) {
	// Dir, not Split: a trailing slash would make the kernel follow a
	// link in the last element whatever the flags say.
	dir, base := filepath.Dir(path), filepath.Base(path)
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
		return -1, "", fmt.Errorf("storage: %s %w", dir, errLink)
	}
	if err != nil {
		return -1, "", &os.PathError{Op: "open", Path: dir, Err: err}
	}
	return fd, base, nil
}

// ReadFileNoFollow is os.ReadFile for a file in a directory that another
// user may write (the appliance's lan/, read by root): neither the file
// nor its directory may be a symbolic link, and the file must be a
// regular one (a FIFO would block the reader).
func ReadFileNoFollow(path string) ([]byte, error) {
	dfd, base, err := openDir(path)
	if err != nil {
		return nil, err
	}
	defer unix.Close(dfd)
	fd, err := unix.Openat(dfd, base, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ELOOP) {
		return nil, fmt.Errorf("storage: %s %w", path, errLink)
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("storage: %s %w", path, errLink)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, &os.PathError{Op: "read", Path: path, Err: err}
	}
	return b, nil
}

// replaceFile is ReplaceFile on unix: the directory is opened without
// following a link, the existing file is looked at without following one
// (a link there is refused, so that root never copies the mode and owner
// of a file it was pointed at), and the temporary file is created, and
// renamed over path, relative to the directory's descriptor.
func replaceFile(path string, data []byte, perm os.FileMode) (err error) {
	dfd, base, err := openDir(path)
	if err != nil {
		return fmt.Errorf("storage: writing %s: %w", path, err)
	}
	defer unix.Close(dfd)
	var st unix.Stat_t
	like := false
	switch err := unix.Fstatat(dfd, base, &st, unix.AT_SYMLINK_NOFOLLOW); {
	case err == nil && st.Mode&unix.S_IFMT != unix.S_IFREG:
		return fmt.Errorf("storage: writing %s: %w", path, errLink)
	case err == nil:
		like, perm = true, os.FileMode(st.Mode&0o777)
	case !errors.Is(err, unix.ENOENT):
		return fmt.Errorf("storage: writing %s: %w", path, err)
	}
	var rnd [6]byte
	rand.Read(rnd[:])
	tmp := "." + base + tempInfix + hex.EncodeToString(rnd[:])
	fd, err := unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("storage: writing %s: %w", path, err)
	}
	f := os.NewFile(uintptr(fd), tmp)
	defer func() {
		if err != nil {
			f.Close()
			unix.Unlinkat(dfd, tmp, 0)
			err = fmt.Errorf("storage: writing %s: %w", path, err)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if like && (int(st.Uid) != os.Geteuid() || int(st.Gid) != os.Getegid()) {
		// Only root may give a file away, and only root edits a file it
		// does not own here (the appliance's, over ssh).
		if err = f.Chown(int(st.Uid), int(st.Gid)); err != nil {
			return err
		}
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = unix.Renameat(dfd, tmp, dfd, base); err != nil {
		return err
	}
	return unix.Fsync(dfd)
}
