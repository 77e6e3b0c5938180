package updates

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// What dpkg leaves when an install is cut (a power loss mid-upgrade).
const (
	DpkgStatus  = "var/lib/dpkg/status"
	DpkgUpdates = "var/lib/dpkg/updates" // its journal: entries not yet folded into status
	// maxStatusLine bounds one line of the status file (descriptions are
	// long, but not this long).
	maxStatusLine = 1 << 20
)

// Package is a package dpkg left not fully installed, and in which state
// ("half-installed", "half-configured", "unpacked", ...).
type Package struct{ Name, State string }

// String is "name (state)", as doctor prints it.
func (p Package) String() string { return p.Name + " (" + p.State + ")" }

// unfinished reads which packages dpkg left not fully installed, and whether its journal holds entries, which is what
// `dpkg --audit` and apt's "dpkg was interrupted" read too. Until someone
// (claude-pi-recover.service at boot) finishes them, apt refuses to install
// anything, so updates stop for good.
func unfinished(root string) (pkgs []Package, journal bool, err error) {
	ents, err := os.ReadDir(filepath.Join(root, DpkgUpdates))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, false, err
	}
	for _, e := range ents {
		// dpkg names its journal entries by number; "tmp.i" is its
		// scratch file, there between writes.
		if n := e.Name(); n != "" && strings.Trim(n, "0123456789") == "" {
			journal = true
			break
		}
	}
	f, err := os.Open(filepath.Join(root, DpkgStatus))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, journal, nil
	}
	if err != nil {
		return nil, journal, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), maxStatusLine)
	var name, status string
	flush := func() {
		if name != "" && status != "" {
			if st := stateOf(status); st != "" {
				pkgs = append(pkgs, Package{Name: name, State: st})
			}
		}
		name, status = "", ""
	}
	for sc.Scan() {
		l := sc.Text()
		switch {
		case l == "":
			flush()
		case strings.HasPrefix(l, "Package: "):
			name = strings.TrimSpace(l[len("Package: "):])
		case strings.HasPrefix(l, "Status: "):
			status = strings.TrimSpace(l[len("Status: "):])
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		return pkgs, journal, fmt.Errorf("%s: %w", DpkgStatus, err)
	}
	return pkgs, journal, nil
}

// stateOf is what is unfinished in a Status field ("want flag state"):
// "" for a package that is installed, not installed or only has its
// config files left.
func stateOf(status string) string {
	f := strings.Fields(status)
	if len(f) != 3 {
		return ""
	}
	flag, state := f[1], f[2]
	switch {
	case flag == "reinstreq":
		return state + ", reinstall required"
	case state == "installed", state == "not-installed", state == "config-files":
		return ""
	}
	return state
}
