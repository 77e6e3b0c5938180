package updates

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var now = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)

// put writes rel under root with mtime at.
func put(t *testing.T, root, rel, body string, at time.Time) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, at, at); err != nil {
		t.Fatal(err)
	}
}

// ran puts unattended-upgrades there, with its last run and the last list
// update the given ages ago.
func ran(t *testing.T, root string, upgrade, lists time.Duration) {
	t.Helper()
	put(t, root, Program, "", now)
	put(t, root, UpgradeStamp, "", now.Add(-upgrade))
	put(t, root, ListsStamp, "", now.Add(-lists))
}

func TestCheck(t *testing.T) {
	day := 24 * time.Hour
	tests := []struct {
		name     string
		files    func(t *testing.T, root string)
		upOK     bool
		upDetail string // substring
		rebootOK bool
		rbDetail string
	}{
		{"fresh, no reboot", func(t *testing.T, r string) {
			ran(t, r, 5*time.Hour, 6*time.Hour)
			put(t, r, Log, "2026-12-02 06:00:01,000 INFO No packages found that can be upgraded unattended\n", now)
		}, true, "5 h ago", true, "none waiting"},
		{"eight days old", func(t *testing.T, r string) {
			ran(t, r, 8*day, 1*day)
		}, false, "8 days ago", true, "none waiting"},
		{"lists stale though upgrades ran", func(t *testing.T, r string) {
			ran(t, r, 1*day, 10*day)
		}, false, "10 days ago", true, "none waiting"},
		{"never ran", func(t *testing.T, r string) {
			put(t, r, Program, "", now)
		}, false, "never", true, "none waiting"},
		{"log ends in an error", func(t *testing.T, r string) {
			ran(t, r, 1*day, 1*day)
			put(t, r, Log, "x INFO ok\n2026-12-02 06:00:01,000 ERROR Cache has broken packages, exiting\n\n", now)
		}, false, "broken packages", true, "none waiting"},
		{"reboot waiting a day", func(t *testing.T, r string) {
			ran(t, r, 1*day, 1*day)
			put(t, r, RebootRequired, "*** System restart required ***\n", now.Add(-1*day))
			put(t, r, RebootPkgs, "linux-image-6.12.0-1-arm64\nlibc6\nlibc6\n", now.Add(-1*day))
		}, true, "24 h ago", true, "(for linux-image-6.12.0-1-arm64, libc6)"},
		{"reboot waiting four days", func(t *testing.T, r string) {
			ran(t, r, 1*day, 1*day)
			put(t, r, RebootRequired, "", now.Add(-4*day))
		}, true, "24 h ago", false, "4 days ago"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			tc.files(t, root)
			s, err := Read(root)
			if err != nil {
				t.Fatal(err)
			}
			fs := Check(s, now)
			if len(fs) != 4 || fs[2].Name != "packages" || !fs[2].OK || fs[3].Name != "claude-pi update" || !fs[3].OK {
				t.Fatalf("findings %+v, want 4: packages, then claude-pi update, both OK", fs)
			}
			up, rb := fs[0], fs[1]
			if up.OK != tc.upOK || !strings.Contains(up.Detail, tc.upDetail) {
				t.Errorf("updates: %+v, want ok=%v detail containing %q", up, tc.upOK, tc.upDetail)
			}
			if rb.OK != tc.rebootOK || !strings.Contains(rb.Detail, tc.rbDetail) {
				t.Errorf("reboot: %+v, want ok=%v detail containing %q", rb, tc.rebootOK, tc.rbDetail)
			}
			if (up.Fix == "") != up.OK || (rb.Fix == "") != rb.OK {
				t.Errorf("a warning needs a fix and only a warning has one: %+v %+v", up, rb)
			}
		})
	}
}

func TestCheckNotInstalled(t *testing.T) {
	s, err := Read(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fs := Check(s, now)
	if len(fs) != 3 || fs[0].OK || !strings.Contains(fs[0].Fix, "apt install unattended-upgrades") || !fs[1].OK || !fs[2].OK {
		t.Fatalf("got %+v, want a warning saying to install unattended-upgrades, then packages and claude-pi update OK", fs)
	}
}

func TestReadLongLog(t *testing.T) {
	root := t.TempDir()
	var b strings.Builder
	for b.Len() < 3*maxLogTail {
		b.WriteString("2026-11-01 06:00:01,000 INFO No packages found that can be upgraded unattended\n")
	}
	b.WriteString("2026-12-02 06:00:01,000 ERROR dpkg was interrupted\n")
	put(t, root, Log, b.String(), now)
	s, err := Read(root)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.LastError, "dpkg was interrupted") {
		t.Fatalf("LastError %q, want the log's last line", s.LastError)
	}
}

func TestBusy(t *testing.T) {
	p := filepath.Join(t.TempDir(), "busy")
	b := NewBusy(p)
	want := func(rs ...string) {
		t.Helper()
		got, err := ReadBusy(p)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, rs) {
			t.Fatalf("marker %q, want %q", got, rs)
		}
		if _, err := os.Stat(p); (err == nil) != (len(rs) > 0) {
			t.Fatalf("marker exists=%v with reasons %q", err == nil, rs)
		}
	}
	want()
	steps := []struct {
		reason string
		on     bool
		want   []string
	}{
		{"prompt", true, []string{"prompt"}},
		{"speaking", true, []string{"prompt", "speaking"}},
		{"prompt", true, []string{"prompt", "speaking"}},
		{"prompt", false, []string{"speaking"}},
		{"speaking", false, nil},
		{"speaking", false, nil},
	}
	for _, s := range steps {
		if err := b.Set(s.reason, s.on); err != nil {
			t.Fatal(err)
		}
		want(s.want...)
	}
	for _, bad := range []string{"", "a\nb"} {
		if err := b.Set(bad, true); err == nil {
			t.Errorf("Set(%q) accepted", bad)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

func TestBusyUnwritableDir(t *testing.T) {
	b := NewBusy(filepath.Join(t.TempDir(), "missing", "busy"))
	if err := b.Set("prompt", true); err == nil || !strings.Contains(err.Error(), "RuntimeDirectory") {
		t.Fatalf("err %v, want one naming the runtime directory", err)
	}
	// The failed write is not remembered as done: the next Set tries again.
	if err := b.Set("prompt", true); err == nil {
		t.Fatal("second Set succeeded without writing")
	}
}
