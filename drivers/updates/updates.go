// Package updates reads what Debian's apt and unattended-upgrades leave on
// disk, for `claude-pi doctor` and the info page: when the security updates
// last ran, whether (and since when) a reboot is waiting, and whether an
// upgrade of claude-pi itself failed its health check and was rolled back.
//
// It only reads files under a root ("/" on the Pi, a temporary directory in
// tests): apt.systemd.daily's stamps in /var/lib/apt/periodic (touched only
// on success), unattended-upgrades' log, and /run/reboot-required, which
// Debian's packages create when their new code needs a reboot.
package updates

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The paths, relative to the root.
const (
	UpgradeStamp   = "var/lib/apt/periodic/unattended-upgrades-stamp"
	ListsStamp     = "var/lib/apt/periodic/update-success-stamp"
	Log            = "var/log/unattended-upgrades/unattended-upgrades.log"
	RebootRequired = "run/reboot-required"
	RebootPkgs     = "run/reboot-required.pkgs"
	Program        = "usr/bin/unattended-upgrade"
)

// Limits past which doctor warns.
const (
	StaleAfter       = 7 * 24 * time.Hour // security updates
	RebootLateAfter  = 3 * 24 * time.Hour // a reboot waiting
	maxLogTail       = 64 << 10           // bytes of the log read
	maxRebootPkgsLen = 4 << 10
)

// Status is what the files say.
type Status struct {
	Installed   bool      // unattended-upgrades is installed
	LastUpgrade time.Time // its last successful run; zero: never
	LastLists   time.Time // the last successful package-list update; zero: never
	LastError   string    // the log's last line, when it is an ERROR
	RebootSince time.Time // zero: no reboot waiting
	RebootPkgs  []string  // the packages that asked for it
	// Unfinished lists the packages dpkg left not fully installed, and
	// DpkgInterrupted says its journal holds entries: an install was cut
	// (a power loss) and apt refuses to go on.
	Unfinished      []Package
	DpkgInterrupted bool
	// Claude-pi's own upgrades (health-check, rollback.go): the one being
	// checked, a rollback under way, the last one rolled back; nil: none.
	Checking, RollingBack, RolledBack *Rollback
}

// LastComplete is when the last whole run ended at the latest: the older
// of the two stamps, since both must be recent (lists fetched, upgrades
// installed). Zero when either never happened.
func (s Status) LastComplete() time.Time {
	if s.LastLists.Before(s.LastUpgrade) {
		return s.LastLists
	}
	return s.LastUpgrade
}

// Read reads the status under root. Missing files are not errors (they mean
// "never" or "none"); other read errors are.
func Read(root string) (Status, error) {
	var s Status
	var errs []error
	p := func(rel string) string { return filepath.Join(root, rel) }
	if _, err := os.Stat(p(Program)); err == nil {
		s.Installed = true
	}
	mtime := func(rel string) time.Time {
		fi, err := os.Stat(p(rel))
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
			return time.Time{}
		}
		return fi.ModTime()
	}
	s.LastUpgrade = mtime(UpgradeStamp)
	s.LastLists = mtime(ListsStamp)
	s.RebootSince = mtime(RebootRequired)
	if !s.RebootSince.IsZero() {
		b, err := readHead(p(RebootPkgs), maxRebootPkgsLen)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
		seen := map[string]bool{}
		for _, f := range strings.Fields(string(b)) {
			if !seen[f] {
				seen[f] = true
				s.RebootPkgs = append(s.RebootPkgs, f)
			}
		}
	}
	var err error
	s.Unfinished, s.DpkgInterrupted, err = unfinished(root)
	if err != nil {
		errs = append(errs, err)
	}
	if err := readRollbacks(root, &s); err != nil {
		errs = append(errs, err)
	}
	last, err := lastLine(p(Log))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, err)
	}
	if strings.Contains(last, " ERROR ") {
		s.LastError = last
	}
	return s, errors.Join(errs...)
}

// Finding is one line of doctor's report. OK false is a warning: updates
// never fail the run.
type Finding struct {
	Name, Detail, Fix string
	OK                bool
}

// Check turns a status into doctor's lines, judged at now.
func Check(s Status, now time.Time) []Finding {
	if !s.Installed {
		return []Finding{{Name: "security updates", Detail: "unattended-upgrades is not installed: nothing installs them",
			Fix: "sudo apt install unattended-upgrades (the Claude_Pi image has it), or run sudo apt update && sudo apt upgrade weekly"},
			packagesFinding(s), rollbackFinding(s, now)}
	}
	up := Finding{Name: "security updates", OK: true}
	last := s.LastComplete()
	switch {
	case s.LastUpgrade.IsZero() || s.LastLists.IsZero():
		up.OK = false
		up.Detail = "unattended-upgrades has never completed a run"
	case now.Sub(last) > StaleAfter:
		up.OK = false
		up.Detail = "last completed " + ago(now, last)
	default:
		up.Detail = "last run " + ago(now, s.LastUpgrade)
	}
	if s.LastError != "" {
		up.OK = false
		up.Detail += "; its log ends in: " + clip(s.LastError, 160)
	}
	if !up.OK {
		up.Fix = "see /var/log/unattended-upgrades/ and journalctl -u apt-daily.service -u apt-daily-upgrade.service; " +
			"is the network up and the clock right? sudo unattended-upgrade -d runs it now"
	}
	rb := Finding{Name: "reboot", OK: true, Detail: "none waiting"}
	if !s.RebootSince.IsZero() {
		rb.Detail = "waiting since " + ago(now, s.RebootSince)
		if len(s.RebootPkgs) > 0 {
			rb.Detail += " (for " + clip(strings.Join(s.RebootPkgs, ", "), 120) + ")"
		}
		if now.Sub(s.RebootSince) > RebootLateAfter {
			rb.OK = false
			rb.Fix = "the quiet-window reboot has not happened: journalctl -u claude-pi-reboot.service says why " +
				"(a prompt pending each night?); sudo reboot when nothing is pending"
		}
	}
	return []Finding{up, rb, packagesFinding(s), rollbackFinding(s, now)}
}

// packagesFinding says whether dpkg finished its last install: a cut one
// stops every later update until it is finished.
func packagesFinding(s Status) Finding {
	if len(s.Unfinished) == 0 && !s.DpkgInterrupted {
		return Finding{Name: "packages", OK: true, Detail: "every install finished"}
	}
	d := "an install did not finish (a power cut?)"
	if len(s.Unfinished) > 0 {
		names := make([]string, len(s.Unfinished))
		for i, p := range s.Unfinished {
			names[i] = p.String()
		}
		d += ": " + clip(strings.Join(names, ", "), 160)
	}
	return Finding{Name: "packages", Detail: d + "; apt installs nothing until it is finished",
		Fix: "sudo /usr/lib/claude-pi/recover (claude-pi-recover.service runs it at every boot; " +
			"journalctl -u claude-pi-recover says what it did), or sudo dpkg --configure -a && sudo apt-get install --reinstall PACKAGE"}
}

func ago(now, t time.Time) string {
	d := now.Sub(t).Round(time.Minute)
	var rel string
	switch {
	case d < 0:
		rel = "in the future (is the clock right?)"
	case d < time.Hour:
		rel = fmt.Sprintf("%d min ago", int(d.Minutes()))
	case d < 48*time.Hour:
		rel = fmt.Sprintf("%d h ago", int(d.Hours()))
	default:
		rel = fmt.Sprintf("%d days ago", int(d.Hours()/24))
	}
	return t.UTC().Format("2006-01-02 15:04 UTC") + ", " + rel
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func readHead(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	k, err := f.Read(b)
	if err != nil && k == 0 && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b[:k], nil
}

// lastLine is the log's last non-empty line, read from at most its last
// maxLogTail bytes (the log grows for months between rotations).
func lastLine(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if off := fi.Size() - maxLogTail; off > 0 {
		if _, err := f.Seek(off, 0); err != nil {
			return "", err
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), maxLogTail)
	last := ""
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			last = l
		}
	}
	return last, sc.Err()
}
