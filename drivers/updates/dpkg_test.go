package updates

import (
	"slices"
	"strings"
	"testing"
)

// status is a dpkg status file with one stanza per "name=Status" pair.
func status(pairs ...string) string {
	var b strings.Builder
	for _, p := range pairs {
		name, st, _ := strings.Cut(p, "=")
		b.WriteString("Package: " + name + "\nStatus: " + st + "\nPriority: optional\nDescription: a package\n long text\n .\n more\n\n")
	}
	return b.String()
}

func TestUnfinishedPackages(t *testing.T) {
	tests := []struct {
		name    string
		status  string
		journal []string // files in var/lib/dpkg/updates
		want    []string
		cut     bool
	}{
		{name: "clean", status: status("apt=install ok installed", "old=deinstall ok config-files", "gone=purge ok not-installed"),
			journal: []string{"tmp.i"}},
		{name: "cut mid-unpack", status: status("apt=install ok installed", "claude-pi=install reinstreq half-installed"),
			want: []string{"claude-pi (half-installed, reinstall required)"}, cut: true},
		{name: "cut in postinst", status: status("claude-pi=install ok half-configured", "bluez=install ok unpacked"),
			want: []string{"claude-pi (half-configured)", "bluez (unpacked)"}, cut: true},
		{name: "journal not folded in", status: status("apt=install ok installed"), journal: []string{"0004"}, cut: true},
		{name: "no trailing blank line", status: strings.TrimSuffix(status("x=install ok triggers-pending"), "\n\n"),
			want: []string{"x (triggers-pending)"}, cut: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			ran(t, root, 0, 0)
			put(t, root, DpkgStatus, tc.status, now)
			for _, j := range tc.journal {
				put(t, root, DpkgUpdates+"/"+j, "Package: apt\n", now)
			}
			s, err := Read(root)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range s.Unfinished {
				got = append(got, p.String())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Unfinished = %q, want %q", got, tc.want)
			}
			f := Check(s, now)[2]
			if f.Name != "packages" || f.OK == tc.cut || (f.Fix == "") != f.OK {
				t.Fatalf("packages finding %+v, want ok=%v with a fix only when not ok", f, !tc.cut)
			}
			if tc.cut && !strings.Contains(f.Fix, "/usr/lib/claude-pi/recover") {
				t.Errorf("fix %q does not name the recover script", f.Fix)
			}
			for _, w := range tc.want {
				if !strings.Contains(f.Detail, w) {
					t.Errorf("detail %q does not name %q", f.Detail, w)
				}
			}
		})
	}
}
