package updates

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rollbackOf is Check's claude-pi update finding for the records under root.
func rollbackOf(t *testing.T, root string) (Finding, Status, error) {
	t.Helper()
	s, err := Read(root)
	fs := Check(s, now)
	f := fs[len(fs)-1]
	if f.Name != "claude-pi update" {
		t.Fatalf("last finding %+v, want claude-pi update", f)
	}
	return f, s, err
}

func TestRollbackFinding(t *testing.T) {
	bad := "from=2026.12.04.1+g2\nto=2026.12.01.1+g1\nat=2026-12-02T11:00:00Z\n" +
		"reason=not every service RUNNING 60 s after the upgrade: lan FATAL\n"
	tests := []struct {
		name   string
		files  map[string]string
		ok     bool
		detail []string // substrings
		fix    string
	}{
		{"no records", nil, true, []string{"no upgrade rolled back"}, ""},
		{"checking", map[string]string{Pending: "from=1\nto=2\nat=2026-12-02T11:59:00Z\nrunning=yes\n"},
			true, []string{"checking the update to 2"}, ""},
		{"rolled back", map[string]string{RolledBack: bad}, false,
			[]string{"update to 2026.12.04.1+g2 rolled back", "1 h ago", "lan FATAL", "2026.12.01.1+g1 runs"}, "sudo rm /" + Hold},
		// A rollback under way is never reported as done, even with an
		// older record of a finished one beside it.
		{"rolling back", map[string]string{RolledBack: bad, Pending: "from=1\nto=2\n",
			RollingBack: "from=1\nto=2\nreason=claude-pi.service does not stay up\n"}, false,
			[]string{"rolling back the update to 2 (back to 1)", "does not stay up"}, "next boot"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			ran(t, root, time.Hour, time.Hour)
			for rel, body := range tc.files {
				put(t, root, rel, body, now)
			}
			f, _, err := rollbackOf(t, root)
			if err != nil {
				t.Fatal(err)
			}
			if f.OK != tc.ok {
				t.Errorf("%+v: ok %v, want %v", f, f.OK, tc.ok)
			}
			for _, d := range tc.detail {
				if !strings.Contains(f.Detail, d) {
					t.Errorf("detail %q lacks %q", f.Detail, d)
				}
			}
			if !strings.Contains(f.Fix, tc.fix) || (tc.fix == "") != (f.Fix == "") {
				t.Errorf("fix %q, want one containing %q", f.Fix, tc.fix)
			}
		})
	}
}

// A damaged record is an error naming the file and the fix, the other
// findings still come, and a damaged rolled-back never reads as "fine".
func TestRollbackDamaged(t *testing.T) {
	for name, body := range map[string]string{
		"no versions": "garbage\x00\x01",
		"bad time":    "from=2\nto=1\nat=yesterday\n",
		"empty":       "",
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			ran(t, root, time.Hour, time.Hour)
			put(t, root, RolledBack, body, now)
			f, s, err := rollbackOf(t, root)
			if err == nil || !strings.Contains(err.Error(), "/"+RolledBack) || !strings.Contains(err.Error(), "damaged") {
				t.Errorf("err %v, want one naming /%s as damaged", err, RolledBack)
			}
			if s.RolledBack != nil || !f.OK || s.LastUpgrade.IsZero() {
				t.Errorf("status %+v finding %+v: want the rest read, no rollback claimed", s, f)
			}
		})
	}
}

// Doctor runs without sudo too: the appliance's 0750 data dir is then
// unreadable, which is no error.
func TestRollbackUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every file")
	}
	root := t.TempDir()
	ran(t, root, time.Hour, time.Hour)
	put(t, root, RolledBack, "from=2\nto=1\n", now)
	if err := os.Chmod(filepath.Join(root, RollbackDir), 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(root, RollbackDir), 0o755) })
	if _, s, err := rollbackOf(t, root); err != nil || s.RolledBack != nil {
		t.Errorf("err %v, rolled back %+v: want neither", err, s.RolledBack)
	}
}

func FuzzParseRollback(f *testing.F) {
	f.Add("from=1\nto=2\nat=2026-12-02T11:00:00Z\nreason=x\n")
	f.Add("from=\nto=2\n")
	f.Add("at=2026-13-99T00:00:00Z\nfrom=1\nto=2")
	f.Fuzz(func(t *testing.T, body string) {
		r, err := parseRollback(body, "from", "to", "at")
		if err == nil && (r.Prev == "" || r.Bad == "") {
			t.Fatalf("%q: accepted without versions: %+v", body, r)
		}
	})
}
