package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claude-pi/claude-pi/internal/pisystem"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/setup/*.golden from the current output")

// setupFixture copies testdata/setup/NAME (boot files of one OS) to a
// temporary root, with the package's config.toml where that OS has it:
// a plain file on Raspberry Pi OS, a link to the FAT partition's copy on
// the Claude_Pi image (as image/lib/customize makes it).
func setupFixture(t *testing.T, name string) string {
	t.Helper()
	root := t.TempDir()
	src := filepath.Join("testdata", "setup", name)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(root, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(root, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	conf, err := os.ReadFile("../../packaging/deb/config.toml")
	if err != nil {
		t.Fatal(err)
	}
	write := func(rel string, b []byte) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if name == "image" {
		custom, err := os.ReadFile("../../image/lib/config.txt")
		if err != nil {
			t.Fatal(err)
		}
		write(pisystem.ImageFirmwareCustom, custom)
		// config.txt as raspi-firmware's kernel hook (Debian 13) writes it:
		// its own lines, then the custom file.
		head, err := os.ReadFile(filepath.Join(src, "config.txt.head"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(filepath.Join(root, "config.txt.head")); err != nil {
			t.Fatal(err)
		}
		write("boot/firmware/config.txt", append(append(head, "\n# Inserted by /etc/default/raspi-firmware-custom\n"...), custom...))
		write("boot/firmware/claude-pi.toml", conf)
		if err := os.MkdirAll(filepath.Join(root, "etc/claude-pi"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("/boot/firmware/claude-pi.toml", filepath.Join(root, "etc/claude-pi/config.toml")); err != nil {
			t.Fatal(err)
		}
	} else {
		write("etc/claude-pi/config.toml", conf)
	}
	return root
}

// snapshot reads every regular file under root (links followed by path,
// not stored twice).
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		files[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// lineDiff is a minimal diff of two texts: the lines only in a ("-") and
// only in b ("+"), with b's line numbers, from their longest common
// subsequence. Enough to read a golden file.
func lineDiff(a, b string) string {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			i, j = i+1, j+1
		case j < len(y) && (i == len(x) || lcs[i][j+1] >= lcs[i+1][j]):
			fmt.Fprintf(&out, "+%4d %s\n", j+1, y[j])
			j++
		default:
			fmt.Fprintf(&out, "-     %s\n", x[i])
			i++
		}
	}
	return out.String()
}

// changes is what setup did to the tree: each changed or new file's diff.
func changes(before, after map[string]string) string {
	var names []string
	for n := range after {
		if before[n] != after[n] {
			names = append(names, n)
		}
	}
	for n := range before {
		if _, ok := after[n]; !ok {
			names = append(names, n+" (removed)")
		}
	}
	slices.Sort(names)
	var out strings.Builder
	for _, n := range names {
		fmt.Fprintf(&out, "--- /%s\n", n)
		if strings.HasSuffix(n, backupSuffix) {
			orig := strings.TrimSuffix(n, backupSuffix)
			if after[n] == before[orig] {
				out.WriteString("(new: the file as it was before)\n")
			} else {
				out.WriteString("(new, and NOT the file as it was before)\n")
			}
			continue
		}
		out.WriteString(lineDiff(before[n], after[n]))
	}
	return out.String()
}

func runSetup(t *testing.T, root string, args ...string) (string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := setupCommand(context.Background(), append([]string{"--root", root}, args...), nil, &out, &errb)
	if err != nil {
		return out.String() + "error: " + err.Error() + "\n", err
	}
	return out.String(), nil
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "setup", name+".golden")
	if *updateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run TestSetupGolden -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test -run TestSetupGolden -update rewrites it):\n--- got\n%s\n--- diff want -> got\n%s",
			path, got, lineDiff(string(want), got))
	}
}

// TestSetupGolden runs setup for each board on copies of both OSes' boot
// files and compares what it printed and changed with the golden diffs;
// a second run must change nothing.
func TestSetupGolden(t *testing.T) {
	for _, osName := range []string{"rpios", "image"} {
		for _, board := range []string{"pirate-audio", "waveshare-lcd13", "display-hat-mini", "sim"} {
			t.Run(osName+"/"+board, func(t *testing.T) {
				root := setupFixture(t, osName)
				before := snapshot(t, root)
				out, err := runSetup(t, root, "--board", board)
				if err != nil {
					t.Fatalf("setup: %v\n%s", err, out)
				}
				after := snapshot(t, root)
				got := strings.ReplaceAll(out, root, "ROOT") + "\n" + changes(before, after)
				checkGolden(t, osName+"."+board, got)

				again, err := runSetup(t, root, "--board", board)
				if err != nil {
					t.Fatalf("second setup: %v", err)
				}
				if !strings.Contains(again, "nothing to change") {
					t.Errorf("second run is not idempotent:\n%s", again)
				}
				if d := changes(after, snapshot(t, root)); d != "" {
					t.Errorf("second run changed files:\n%s", d)
				}
			})
		}
	}
}

// TestSetupSwitchBoard: from a Pirate Audio to the Waveshare HAT, the I²S
// DAC overlay (on the Waveshare's button pins 19 and 21) is commented out,
// and the first backup still holds the file as it was before any setup.
func TestSetupSwitchBoard(t *testing.T) {
	for _, osName := range []string{"rpios", "image"} {
		t.Run(osName, func(t *testing.T) {
			root := setupFixture(t, osName)
			before := snapshot(t, root)
			if out, err := runSetup(t, root, "--board", "pirate-audio"); err != nil {
				t.Fatal(out)
			}
			mid := snapshot(t, root)
			out, err := runSetup(t, root, "--board", "waveshare-lcd13")
			if err != nil {
				t.Fatal(out)
			}
			after := snapshot(t, root)
			checkGolden(t, osName+".pirate-audio-then-waveshare", strings.ReplaceAll(out, root, "ROOT")+"\n"+changes(mid, after))
			for n, s := range after {
				if orig, ok := strings.CutSuffix(n, backupSuffix); ok && s != before[orig] {
					t.Errorf("%s is not the file as it was before the first setup", n)
				}
			}
		})
	}
}

func TestSetupRefuses(t *testing.T) {
	laptop := t.TempDir()
	if err := os.MkdirAll(filepath.Join(laptop, "etc/claude-pi"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(laptop, "etc/claude-pi/config.toml"), []byte("# board = \"sim\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := fakeRoot(t, map[string]string{
		"proc/device-tree/model":    "Raspberry Pi 4 Model B Rev 1.5\x00",
		"etc/os-release":            "PRETTY_NAME=\"Ubuntu 24.04 LTS\"\n",
		"boot/firmware/config.txt":  "[all]\n",
		"etc/claude-pi/config.toml": "",
	})
	noBoot := fakeRoot(t, map[string]string{
		"proc/device-tree/model":    "Raspberry Pi 4 Model B Rev 1.5\x00",
		"etc/rpi-issue":             "Raspberry Pi reference\n",
		"etc/claude-pi/config.toml": "",
	})
	for _, tc := range []struct {
		name, root, board, want string
	}{
		{"a HAT off a Pi", laptop, "pirate-audio", "needs a Raspberry Pi"},
		{"an OS setup does not know", other, "pirate-audio", "Ubuntu 24.04 LTS on Raspberry Pi 4"},
		{"no boot partition", noBoot, "waveshare-lcd13", "is the boot partition mounted?"},
		{"no configuration", fakeRoot(t, map[string]string{"etc/rpi-issue": "", "boot/firmware/config.txt": ""}), "sim", "install the claude-pi package"},
		{"unknown board", laptop, "pirate-video", "unknown board"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := snapshot(t, tc.root)
			out, err := runSetup(t, tc.root, "--board", tc.board)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one saying %q\n%s", err, tc.want, out)
			}
			if d := changes(before, snapshot(t, tc.root)); d != "" {
				t.Errorf("a refused setup changed files:\n%s", d)
			}
		})
	}
	// The simulator needs no Pi: only the board line changes.
	out, err := runSetup(t, laptop, "--board", "sim")
	if err != nil || !strings.Contains(out, "not a Raspberry Pi") {
		t.Fatalf("sim on a laptop: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(laptop, "etc/claude-pi/config.toml")); string(b) != "board = \"sim\"\n" {
		t.Errorf("config.toml = %q", b)
	}
}

func TestSetupDryRunWritesNothing(t *testing.T) {
	root := setupFixture(t, "rpios")
	before := snapshot(t, root)
	out, err := runSetup(t, root, "--board", "pirate-audio", "--dry-run")
	if err != nil || !strings.Contains(out, "uncommented dtparam=spi=on") {
		t.Fatalf("%v\n%s", err, out)
	}
	if d := changes(before, snapshot(t, root)); d != "" {
		t.Errorf("--dry-run changed files:\n%s", d)
	}
}
