package updates

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"
)

// What /usr/lib/claude-pi/health-check (packaging/deb) keeps, relative to
// the root: the postinst writes Pending on each upgrade of claude-pi; a
// failed check writes RollingBack before it reinstalls the previous
// version, and RolledBack once dpkg says that version is installed again.
// A later version that passes removes RolledBack and the apt pin (Hold).
const (
	RollbackDir = "var/lib/claude-pi/rollback"
	Pending     = RollbackDir + "/pending"
	RollingBack = RollbackDir + "/rolling-back"
	RolledBack  = RollbackDir + "/rolled-back"
	Hold        = "etc/apt/preferences.d/claude-pi-rollback"
	maxRecord   = 4 << 10
)

// Rollback is one record of health-check's: an upgrade of claude-pi from
// Prev to Bad. Reason says why Bad failed; At is when Prev was installed
// again (zero while that is not done, or for Pending: when Bad was).
type Rollback struct {
	Prev, Bad, Reason string
	At                time.Time
}

// readRollbacks fills s from the rollback records under root. A missing
// record means none; one that root cannot read (doctor without sudo, as
// /var/lib/claude-pi is the appliance's) is left out silently.
func readRollbacks(root string, s *Status) error {
	var errs []error
	read := func(rel string, prev, bad, at string) *Rollback {
		b, err := readHead(filepath.Join(root, rel), maxRecord)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			return nil
		}
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		r, err := parseRollback(string(b), prev, bad, at)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w (health-check rewrites it on the next upgrade; sudo rm it to clear)", "/"+rel, err))
			return nil
		}
		return &r
	}
	// pending is "from=N to=N+1 at=..."; rolling-back the same without at;
	// rolled-back names the bad version from and the one back to.
	s.Checking = read(Pending, "from", "to", "at")
	s.RollingBack = read(RollingBack, "from", "to", "")
	s.RolledBack = read(RolledBack, "to", "from", "at")
	return errors.Join(errs...)
}

// parseRollback reads a key=value record; prevKey and badKey name the
// versions' keys, atKey the time's ("" for none). Both versions are
// required; unknown keys are ignored (a later health-check may add some).
func parseRollback(body, prevKey, badKey, atKey string) (Rollback, error) {
	kv := map[string]string{}
	for _, l := range strings.Split(body, "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			if _, dup := kv[k]; !dup {
				kv[k] = strings.TrimSpace(v)
			}
		}
	}
	r := Rollback{Prev: kv[prevKey], Bad: kv[badKey], Reason: kv["reason"]}
	if r.Prev == "" || r.Bad == "" {
		return Rollback{}, errors.New("damaged: no versions in it")
	}
	if atKey != "" && kv[atKey] != "" {
		t, err := time.Parse(time.RFC3339, kv[atKey])
		if err != nil {
			return Rollback{}, fmt.Errorf("damaged: %s=%q is not a time", atKey, kv[atKey])
		}
		r.At = t
	}
	return r, nil
}

// rollbackFinding is doctor's line on claude-pi's own upgrades. A
// rollback under way is never reported as done, nor a done one as fine.
func rollbackFinding(s Status, now time.Time) Finding {
	f := Finding{Name: "claude-pi update", OK: true, Detail: "no upgrade rolled back"}
	switch {
	case s.RollingBack != nil:
		r := s.RollingBack
		f.OK = false
		f.Detail = "rolling back the update to " + r.Bad + " (back to " + r.Prev + "): " + clip(r.Reason, 160)
		f.Fix = "it finishes by itself, or at the next boot if cut: journalctl -u claude-pi-health-check -u claude-pi-recover says how far it got"
	case s.RolledBack != nil:
		r := s.RolledBack
		f.OK = false
		f.Detail = "update to " + r.Bad + " rolled back"
		if !r.At.IsZero() {
			f.Detail += " " + ago(now, r.At)
		}
		f.Detail += ": " + clip(r.Reason, 160) + "; " + r.Prev + " runs, " + r.Bad + " is held"
		f.Fix = "nothing to do: the next version that passes its check installs by itself and clears this; " +
			"to try " + r.Bad + " again: sudo rm /" + Hold + " (journalctl -u claude-pi-health-check has the check's log)"
	case s.Checking != nil:
		f.Detail = "checking the update to " + s.Checking.Bad + " (health-check: every service RUNNING for 3 min)"
	}
	return f
}
