package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/claude-pi/claude-pi/protocols/firstboot"
)

const firstbootSettingsSynopsis = `Usage: claude-pi firstboot read [--boot DIR]

For the image's first boot (claude-pi-firstboot.service): reads the
settings Raspberry Pi Imager wrote to the boot partition (cloud-init's
user-data, network-config, meta-data) and firstboot.txt, and prints the
settings to apply in firstboot.txt's form. Where both set a group
(hostname, user, Wi-Fi, time zone, keyboard), Imager's wins. What is not
applied, and why, goes to stderr.`

const firstbootScrubSynopsis = `Usage: claude-pi firstboot scrub [--boot DIR]

After the first boot applied them: overwrites Imager's user-data and
network-config (a password hash, a Wi-Fi key) where they lie on the
card, syncs, and removes them with meta-data.`

// imagerSeedFiles are the files Imager writes for init_format
// cloudinit-rpi (rpi-imager src/downloadthread.cpp, _customizeImage).
var imagerSeedFiles = []string{"user-data", "network-config", "meta-data"}

// readIfThere is a file's bytes, or nil when it does not exist.
func readIfThere(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err == nil && b == nil {
		b = []byte{}
	}
	return b, err
}

// firstbootSettingsCommand is `claude-pi firstboot read`.
func firstbootSettingsCommand(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("firstboot read", firstbootSettingsSynopsis, stderr)
	boot := fs.String("boot", "/boot/firmware", "the boot partition's `dir`")
	if help, err := parseFlagsOnly(fs, args); help || err != nil {
		return err
	}
	var seed firstboot.Seed
	for _, f := range []struct {
		name string
		dst  *[]byte
	}{{"user-data", &seed.UserData}, {"network-config", &seed.NetworkConfig}, {"meta-data", &seed.MetaData}} {
		b, err := readIfThere(filepath.Join(*boot, f.name))
		if err != nil {
			return fmt.Errorf("firstboot: reading Imager's %s: %v", f.name, err)
		}
		*f.dst = b
	}
	txtBytes, err := readIfThere(filepath.Join(*boot, "firstboot.txt"))
	if err != nil {
		return fmt.Errorf("firstboot: reading firstboot.txt: %v", err)
	}
	txt := firstboot.ParseTxt(txtBytes)
	var imager firstboot.Settings
	if seed.Present() {
		var errs []error
		imager, errs = firstboot.ParseSeed(seed)
		fmt.Fprintf(stderr, "Raspberry Pi Imager's settings in %s (instance %q)\n", *boot, imager.InstanceID)
		for _, e := range errs {
			fmt.Fprintf(stderr, "WARNING: %s/%v; its settings are not applied (image/README.md says what Imager's files may hold)\n", *boot, e)
		}
	}
	merged, from := firstboot.Merge(imager, txt)
	for _, n := range merged.Notes {
		fmt.Fprintf(stderr, "note: %s\n", n)
	}
	groups := make([]string, 0, len(from))
	for g := range from {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	for _, g := range groups {
		fmt.Fprintf(stderr, "%s: from %s\n", g, from[g])
	}
	_, err = stdout.Write(firstboot.Format(merged))
	return err
}

// firstbootScrubCommand is `claude-pi firstboot scrub`.
func firstbootScrubCommand(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("firstboot scrub", firstbootScrubSynopsis, stderr)
	boot := fs.String("boot", "/boot/firmware", "the boot partition's `dir`")
	if help, err := parseFlagsOnly(fs, args); help || err != nil {
		return err
	}
	var failed []string
	removed := 0
	for _, name := range imagerSeedFiles {
		path := filepath.Join(*boot, name)
		ok, err := scrubFile(path)
		if err != nil {
			fmt.Fprintf(stderr, "WARNING: %v\n", err)
			failed = append(failed, name)
			continue
		}
		if ok {
			removed++
		}
	}
	if removed > 0 {
		if err := syncDir(*boot); err != nil {
			fmt.Fprintf(stderr, "WARNING: syncing %s: %v\n", *boot, err)
		}
		fmt.Fprintf(stdout, "overwrote and removed %d of Imager's files in %s\n", removed, *boot)
	}
	if failed != nil {
		return fmt.Errorf("firstboot scrub: %v left on %s; remove them by hand (sudo rm)", failed, *boot)
	}
	return nil
}

// scrubFile overwrites path's bytes where they lie, syncs, then removes
// it. Removing alone (or rewriting) only frees the FAT clusters, and the
// hash or Wi-Fi key would stay readable on the card; without the sync the
// overwrite could be dropped from the page cache with the removed file.
// false when there was no file.
func scrubFile(path string) (bool, error) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("opening %s to overwrite it: %v", path, err)
	}
	st, err := f.Stat()
	if err == nil && st.Size() > 0 {
		fill := bytes.Repeat([]byte("#"), int(st.Size()))
		fill[len(fill)-1] = '\n'
		_, err = f.WriteAt(fill, 0)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, fmt.Errorf("overwriting %s: %v", path, err)
	}
	if err := os.Remove(path); err != nil {
		return false, fmt.Errorf("removing %s (overwritten): %v", path, err)
	}
	return true, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
