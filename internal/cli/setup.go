package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/claude-pi/claude-pi/boards"
	"github.com/claude-pi/claude-pi/drivers/storage"
	"github.com/claude-pi/claude-pi/internal/appliance"
	"github.com/claude-pi/claude-pi/internal/pisystem"
)

const setupSynopsis = `Usage: sudo claude-pi setup --board NAME

Prepares this Raspberry Pi for a HAT: SPI on, the audio overlay and its
pins, Bluetooth not disabled, and board = NAME in the configuration. It
writes what the OS it finds needs: Raspberry Pi OS's config.txt lines
(dtparam=spi=on, dtoverlay=hifiberry-dac, ...), or on the Claude_Pi image
its own overlays, in /etc/default/raspi-firmware-custom and config.txt.
Prints each change, keeps the file as it was before its first change in
FILE.before-claude-pi, changes nothing the second time, and says when a
reboot is needed (otherwise it restarts claude-pi).`

type setupOpts struct {
	board, root, config string
	dryRun              bool
}

func setupFlags(w io.Writer) (*flag.FlagSet, *setupOpts) {
	o := &setupOpts{}
	fs := newFlagSet("setup", setupSynopsis, w)
	fs.StringVar(&o.board, "board", "", "the HAT: `name` ("+strings.Join(boards.Names(), ", ")+")")
	fs.StringVar(&o.root, "root", "/", "the system's root `dir` (a mounted SD card's root, or a test fixture)")
	fs.StringVar(&o.config, "config", appliance.DefaultConfigPath, "the configuration `file` to set the board in, under --root")
	fs.BoolVar(&o.dryRun, "dry-run", false, "print the changes, write nothing")
	return fs, o
}

// setupCommand is `claude-pi setup`.
func setupCommand(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs, o := setupFlags(stderr)
	if help, err := parseFlagsOnly(fs, args); help || err != nil {
		return err
	}
	if o.board == "" {
		return usagef("setup: which board? pass --board NAME (%s)", strings.Join(boards.Names(), ", "))
	}
	p, err := boards.Lookup(o.board)
	if err != nil {
		return usagef("setup: %v", err)
	}
	res, err := setup(o, p, stdout)
	if err != nil || o.dryRun {
		return err
	}
	switch {
	case res.reboot:
		fmt.Fprintln(stdout, "reboot needed: the boot configuration changed (sudo reboot); claude-pi starts after it")
	case res.configChanged && o.root == "/" && systemdRuns():
		fmt.Fprintln(stdout, "restarting claude-pi: systemctl restart claude-pi.service")
		if out, err := exec.Command("systemctl", "restart", "claude-pi.service").CombinedOutput(); err != nil {
			return fmt.Errorf("setup: systemctl restart claude-pi.service: %v: %s (see journalctl -u claude-pi)", err, strings.TrimSpace(string(out)))
		}
	case res.configChanged:
		fmt.Fprintln(stdout, "then: sudo systemctl restart claude-pi")
	}
	return nil
}

func systemdRuns() bool {
	_, err := os.Stat("/run/systemd/system")
	return err == nil
}

// setupResult says what setup changed.
type setupResult struct {
	reboot        bool // a boot file changed
	configChanged bool // the claude-pi configuration changed
}

// setup makes the changes (or, with dryRun, prints them) and returns what
// changed. Each file is replaced atomically, after its backup.
func setup(o *setupOpts, p boards.Profile, w io.Writer) (setupResult, error) {
	sys := pisystem.Detect(o.root)
	fmt.Fprintf(w, "claude-pi setup: %s, board %s\n", sys.Describe(), p.Name)
	var res setupResult
	var edits []fileEdit
	if !p.Simulated {
		switch sys.Kind {
		case pisystem.NotAPi:
			return res, fmt.Errorf("setup: board %s needs a Raspberry Pi, and this is %s; on a computer, --board sim runs the simulator", p.Name, sys.Describe())
		case pisystem.OtherPi:
			return res, fmt.Errorf("setup: %s: claude-pi setup knows Raspberry Pi OS and the Claude_Pi image only; add these lines to the firmware's config.txt yourself, then reboot: %s",
				sys.Describe(), strings.Join(p.ConfigTxt, "; "))
		}
		if sys.ConfigTxt == "" {
			return res, errors.New("setup: no /boot/firmware/config.txt (or /boot/config.txt): is the boot partition mounted? (see /etc/fstab)")
		}
		be := bootEditFor(p, sys.Kind)
		if sys.Kind == pisystem.ClaudePiImage {
			// The custom file is what raspi-firmware rebuilds config.txt
			// from on a kernel update; config.txt itself is what the next
			// boot reads. Both get the same lines.
			edits = append(edits, fileEdit{rel: pisystem.ImageFirmwareCustom, boot: true, apply: be.apply})
		}
		edits = append(edits, fileEdit{rel: sys.ConfigTxt, boot: true, apply: be.apply})
	}
	edits = append(edits, fileEdit{rel: strings.TrimPrefix(filepath.Clean("/"+o.config), "/"), apply: func(s string) (string, []string) {
		return setBoardLine(s, p.Name)
	}})
	changed := 0
	for _, e := range edits {
		n, err := e.run(o.root, o.dryRun, w)
		if err != nil {
			return res, err
		}
		changed += n
		if n > 0 && e.boot {
			res.reboot = true
		}
		if n > 0 && !e.boot {
			res.configChanged = true
		}
	}
	if changed == 0 {
		fmt.Fprintf(w, "nothing to change: this system is set up for %s\n", p.Name)
	}
	return res, nil
}

// fileEdit is one file setup may change: rel is under the root, and apply
// returns the new text and one line per change.
type fileEdit struct {
	rel   string
	boot  bool
	apply func(string) (string, []string)
}

// backupSuffix names the copy of a file as it was before setup first
// changed it; later runs leave that copy alone.
const backupSuffix = ".before-claude-pi"

func (e fileEdit) run(root string, dryRun bool, w io.Writer) (int, error) {
	shown := "/" + e.rel
	path, err := resolveUnder(root, e.rel)
	if err != nil {
		return 0, fmt.Errorf("setup: %s: %w", shown, err)
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && !e.boot {
		return 0, fmt.Errorf("setup: no %s: install the claude-pi package (it ships one), or pass --config FILE", shown)
	}
	if err != nil {
		return 0, fmt.Errorf("setup: reading %s: %w", shown, err)
	}
	text, changes := e.apply(string(b))
	if text == string(b) {
		return 0, nil
	}
	for _, c := range changes {
		fmt.Fprintf(w, "  %s: %s\n", shown, c)
	}
	if dryRun {
		return len(changes), nil
	}
	info, err := os.Stat(path)
	if err != nil {
		return 0, fmt.Errorf("setup: %s: %w", shown, err)
	}
	backup := path + backupSuffix
	shownBackup := backup // where the link led, as the system names it
	if rel, err := filepath.Rel(root, backup); err == nil {
		shownBackup = "/" + rel
	}
	if _, err := os.Stat(backup); errors.Is(err, os.ErrNotExist) {
		if err := storage.WriteFile(backup, b, info.Mode().Perm()); err != nil {
			return 0, writeErr(shownBackup, err)
		}
		fmt.Fprintf(w, "  %s: the file as it was is in %s\n", shown, shownBackup)
	}
	if err := storage.WriteFile(path, []byte(text), info.Mode().Perm()); err != nil {
		return 0, writeErr(shown, err)
	}
	return len(changes), nil
}

func writeErr(shown string, err error) error {
	if errors.Is(err, os.ErrPermission) {
		return fmt.Errorf("setup: cannot write %s: run it with sudo", shown)
	}
	return fmt.Errorf("setup: writing %s: %w", shown, err)
}

// resolveUnder returns rel's path under root, following symbolic links the
// way the system would see them with root as "/" (the image's
// /etc/claude-pi/config.toml links to /boot/firmware/claude-pi.toml).
func resolveUnder(root, rel string) (string, error) {
	path := filepath.Join(root, rel)
	for range 8 {
		target, err := os.Readlink(path)
		if err != nil {
			return path, nil // not a link (or missing: the caller says so)
		}
		if filepath.IsAbs(target) {
			path = filepath.Join(root, target)
		} else {
			path = filepath.Join(filepath.Dir(path), target)
		}
	}
	return "", errors.New("too many levels of symbolic links")
}

// imageLine is what the Claude_Pi image loads instead of a Raspberry Pi OS
// config.txt line: Debian's upstream device trees know no dtparam= names
// and have no Foundation overlays (image/overlays/).
var imageLine = map[string]string{
	"dtparam=spi=on":          "dtoverlay=claude-pi-spi0",
	"dtoverlay=hifiberry-dac": "dtoverlay=claude-pi-i2s-dac",
}

// i2sPins are the I²S DAC overlays' pins (BCLK, LRCLK, DOUT): a board that
// uses one of them as a GPIO cannot have the overlay loaded.
var i2sPins = []string{"GPIO18", "GPIO19", "GPIO21"}

// bootEditFor is the config.txt change board p needs on system kind k.
func bootEditFor(p boards.Profile, k pisystem.Kind) bootEdit {
	e := bootEdit{
		header: "# claude-pi setup --board " + p.Name,
		disable: map[string]string{
			"dtoverlay=disable-bt":     "Bluetooth is how the desktop reaches claude-pi",
			"dtoverlay=pi3-disable-bt": "Bluetooth is how the desktop reaches claude-pi",
		},
	}
	dac := "dtoverlay=hifiberry-dac"
	for _, l := range p.ConfigTxt {
		if k == pisystem.ClaudePiImage && imageLine[l] != "" {
			l = imageLine[l]
		}
		e.want = append(e.want, l)
	}
	if k == pisystem.ClaudePiImage {
		dac = imageLine[dac]
	}
	if !slices.Contains(e.want, dac) {
		for _, pu := range p.Pins() {
			if slices.Contains(i2sPins, pu.Pin) {
				e.disable[dac] = fmt.Sprintf("its I²S pins include %s, the %s", pu.Pin, pu.Use)
				break
			}
		}
	}
	return e
}

// bootEdit changes a config.txt (or raspi-firmware-custom): every want line
// active where it applies to every Pi (before any [filter] section, or
// under [all]), and every disable line commented out wherever it is.
type bootEdit struct {
	want    []string
	disable map[string]string // line -> why it goes
	header  string            // the comment above lines setup appends
}

func (e bootEdit) apply(text string) (string, []string) {
	lines := strings.Split(text, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var changes []string
	// unconditional[i]: line i applies to every Pi.
	unconditional := make([]bool, len(lines))
	all := true
	for i, l := range lines {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") {
			all = t == "[all]"
		}
		unconditional[i] = all
	}
	for i, l := range lines {
		if why, ok := e.disable[configLine(l)]; ok {
			lines[i] = "#" + l + " # commented out by claude-pi setup: " + why
			changes = append(changes, fmt.Sprintf("line %d: commented out %s (%s)", i+1, configLine(l), why))
		}
	}
	var missing []string
next:
	for _, w := range e.want {
		for i, l := range lines {
			if unconditional[i] && configLine(l) == w {
				continue next
			}
		}
		for i, l := range lines {
			t := strings.TrimSpace(l)
			if unconditional[i] && strings.HasPrefix(t, "#") && strings.TrimSpace(strings.TrimLeft(t, "#")) == w {
				lines[i] = w
				changes = append(changes, fmt.Sprintf("line %d: uncommented %s", i+1, w))
				continue next
			}
		}
		missing = append(missing, w)
	}
	if len(missing) > 0 {
		lines = append(lines, "", e.header)
		if !all {
			lines = append(lines, "[all]")
		}
		for _, w := range missing {
			lines = append(lines, w)
			changes = append(changes, "added "+w)
		}
	}
	if len(changes) == 0 {
		return text, nil
	}
	return strings.Join(lines, "\n") + "\n", changes
}

// configLine is a config.txt line without its comment and spaces: what
// the firmware acts on ("" for a comment or blank line).
func configLine(l string) string {
	if i := strings.IndexByte(l, '#'); i >= 0 {
		l = l[:i]
	}
	return strings.TrimSpace(l)
}

// setBoardLine sets `board = "NAME"` in a claude-pi configuration: it
// replaces an active board line, else the first commented one (the
// package's file has `# board = "pirate-audio"`), else it adds one before
// the first table.
func setBoardLine(text, name string) (string, []string) {
	want := fmt.Sprintf("board = %q", name)
	lines := strings.Split(text, "\n")
	isBoard := func(l string) bool {
		k, _, ok := strings.Cut(l, "=")
		return ok && strings.TrimSpace(k) == "board"
	}
	top := len(lines) // the first table header: board must come before it
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "[") {
			top = i
			break
		}
	}
	for i, l := range lines[:top] {
		if isBoard(strings.TrimSpace(l)) && !strings.HasPrefix(strings.TrimSpace(l), "#") {
			if strings.TrimSpace(l) == want {
				return text, nil
			}
			lines[i] = want
			return strings.Join(lines, "\n"), []string{fmt.Sprintf("line %d: %s (was %s)", i+1, want, strings.TrimSpace(l))}
		}
	}
	for i, l := range lines[:top] {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "#") && isBoard(strings.TrimLeft(t, "# ")) {
			lines[i] = want
			return strings.Join(lines, "\n"), []string{fmt.Sprintf("line %d: %s (was unset)", i+1, want)}
		}
	}
	lines = slices.Insert(lines, top, want, "")
	return strings.Join(lines, "\n"), []string{fmt.Sprintf("line %d: added %s", top+1, want)}
}
