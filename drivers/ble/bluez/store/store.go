// Package store sets aside the files in bluetoothd's storage directory
// (/var/lib/bluetooth) that a power cut damaged, before bluetoothd reads
// them, and reports each one with the appliance's own set-aside files.
//
// bluetoothd writes every file with GLib's g_file_set_contents, which
// does not fsync a file's first write (bluetoothd creates it empty just
// before). A cut in the seconds after a bond is made can leave its info
// file zero-filled: bluetoothd then loads the desktop with no keys, the
// bond silently gone. Set aside, the file is gone the same, but the
// Pi's screen and `claude-pi doctor` say so and say what to do. The
// appliance also shortens that window itself: drivers/ble/bluez syncs
// the file system once a desktop has paired.
package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/claude-pi/claude-pi/drivers/storage"
	"github.com/claude-pi/claude-pi/drivers/storage/statefile"
	"github.com/claude-pi/claude-pi/protocols/keyfile"
)

// Root is bluetoothd's storage directory on Debian.
const Root = "/var/lib/bluetooth"

// maxFile bounds what is read of one file: bluetoothd's are a few KiB (a
// GATT attributes cache can reach tens).
const maxFile = 1 << 20

// adapterFiles and deviceFiles are the key files bluetoothd keeps
// (BlueZ's doc/settings-storage.txt): ADAPTER/NAME, ADAPTER/DEVICE/NAME,
// and one a device in ADAPTER/cache/.
var (
	adapterFiles = []string{"settings", "attributes", "admin_policy_settings"}
	deviceFiles  = []string{"info", "attributes", "ccc"}
)

// Files lists bluetoothd's key files under root, slash-separated and
// relative to it, in directory order. Set-aside copies and GLib's
// temporary files (NAME.XXXXXX) are not among them.
func Files(root string) ([]string, error) {
	var out []string
	if _, err := os.Lstat(filepath.Join(root, "addresses")); err == nil {
		out = append(out, "addresses")
	}
	adapters, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, a := range adapters {
		if !a.IsDir() || !isAddress(a.Name()) {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(root, a.Name()))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, e := range entries {
			switch {
			case !e.IsDir() && slices.Contains(adapterFiles, e.Name()):
				out = append(out, a.Name()+"/"+e.Name())
			case e.IsDir() && e.Name() == "cache":
				cached, err := os.ReadDir(filepath.Join(root, a.Name(), "cache"))
				if err != nil {
					errs = append(errs, err)
				}
				for _, c := range cached {
					if !c.IsDir() && isAddress(c.Name()) {
						out = append(out, a.Name()+"/cache/"+c.Name())
					}
				}
			case e.IsDir() && isAddress(e.Name()):
				for _, name := range deviceFiles {
					rel := a.Name() + "/" + e.Name() + "/" + name
					if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel))); err == nil {
						out = append(out, rel)
					}
				}
			}
		}
	}
	return out, errors.Join(errs...)
}

// SetAsideDamaged checks each of bluetoothd's files under root and sets
// aside every one that does not read as a key file into asideDir (made
// if missing), named after its path there with '/' as '_', so that
// statefile.List of the appliance's data directory reports it
// (bluetooth/ADAPTER_DEVICE_info). A file that cannot be moved there (a
// different file system) is set aside where it is, which bluetoothd
// ignores as well. It returns what it set aside; an error names each
// file it could not set aside. Each Damage's File is the name List will
// report (bluetooth/ADAPTER_DEVICE_info), and its Err the key-file error. It must run before bluetoothd
// starts: bluetoothd rewrites a file it could not load.
func SetAsideDamaged(root, asideDir string, now time.Time) ([]statefile.Damage, error) {
	files, err := Files(root)
	errs := []error{err}
	var out []statefile.Damage
	for _, rel := range files {
		path := filepath.Join(root, filepath.FromSlash(rel))
		reason, cause := check(path)
		if reason == "" {
			continue
		}
		d := statefile.Damage{File: "bluetooth/" + flat(rel), Reason: reason, At: now.UTC().Truncate(time.Second), Err: cause}
		if err := makeDir(asideDir); err != nil {
			errs = append(errs, fmt.Errorf("bluetoothd's %s is %s; making %s for it: %w", rel, reason, asideDir, err))
			continue
		}
		d.Copy, d.AsideErr = statefile.SetAsideAs(path, filepath.Join(asideDir, flat(rel)), reason, d.At)
		if errors.Is(d.AsideErr, syscall.EXDEV) {
			d.File = path
			d.Copy, d.AsideErr = statefile.SetAsideAs(path, path, reason, d.At)
		}
		if d.AsideErr != nil && d.Copy == "" {
			errs = append(errs, fmt.Errorf("bluetoothd's %s is %s and could not be set aside: %w", rel, reason, d.AsideErr))
			continue
		}
		out = append(out, d)
	}
	return out, errors.Join(errs...)
}

// makeDir makes dir if it is missing, and syncs its parent then, so that
// a cut after the set-aside rename cannot lose the directory the copy is
// in.
func makeDir(dir string) error {
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return storage.SyncDir(filepath.Dir(dir))
}

// check reads path and returns why it is damaged, or "" when it reads as
// a key file. A file that cannot be read at all is left alone (reason
// ""): that is a permission or a disk error, not what a cut leaves, and
// the error is bluetoothd's to log.
func check(path string) (statefile.Reason, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return "", nil
	}
	b, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return "", nil
	}
	if len(b) > maxFile {
		return statefile.TooLarge, fmt.Errorf("over %d bytes", maxFile)
	}
	err = keyfile.Check(b)
	var ke *keyfile.Error
	if !errors.As(err, &ke) {
		return "", nil
	}
	switch ke.Reason {
	case keyfile.Empty:
		return statefile.Empty, err
	case keyfile.Zeroed:
		return statefile.Zeroed, err
	}
	return statefile.Invalid, err
}

// flat is rel as one file name: '/' becomes '_', which no address or
// file name of bluetoothd's holds.
func flat(rel string) string { return strings.ReplaceAll(rel, "/", "_") }

// isAddress: a Bluetooth address as bluetoothd names its directories,
// XX:XX:XX:XX:XX:XX in hex.
func isAddress(s string) bool {
	if len(s) != 17 {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if i%3 == 2 {
			if c != ':' {
				return false
			}
			continue
		}
		if !('0' <= c && c <= '9' || 'A' <= c && c <= 'F' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Label names a set-aside file for a small screen: "Bluetooth bond
// F0:18:98:AA:BB:CC" for bluetooth/ADAPTER_DEVICE_info, "Bluetooth
// settings" for an adapter's, "Bluetooth ccc F0:…" and so on; any file
// not set aside by SetAsideDamaged is returned as it is.
func Label(file string) string {
	rest, ok := strings.CutPrefix(file, "bluetooth/")
	if !ok || len(rest) < 19 || !isAddress(rest[:17]) || rest[17] != '_' {
		return file
	}
	tail := rest[18:]
	if dev, ok := strings.CutPrefix(tail, "cache_"); ok {
		return "Bluetooth name cache " + dev
	}
	if len(tail) > 18 && isAddress(tail[:17]) && tail[17] == '_' {
		if tail[18:] == "info" {
			return "Bluetooth bond " + tail[:17]
		}
		return "Bluetooth " + tail[18:] + " " + tail[:17]
	}
	return "Bluetooth " + strings.ReplaceAll(tail, "_", " ")
}
