package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/claude-pi/claude-pi/boards"
	"github.com/claude-pi/claude-pi/drivers/serial"
	"github.com/claude-pi/claude-pi/drivers/updates"
	"github.com/claude-pi/claude-pi/internal/appliance"
	"github.com/claude-pi/claude-pi/internal/pisystem"
	"github.com/claude-pi/claude-pi/supervisor/ctlsock"
)

const doctorSynopsis = `Usage: claude-pi doctor [--board NAME]

Checks that this machine has what the board needs: SPI enabled, the GPIO
chip, a Bluetooth adapter, the audio card, a CoreS3 on USB and the
config.txt lines. It first says what it runs on (the Claude_Pi image,
Raspberry Pi OS, another OS on a Pi, or not a Pi) and gives the fixes
right for that. Then it asks the running appliance for its services: one
in BACKOFF, FATAL or EXITED fails. Prints one line per check, and a fix
for each failure; optional parts (audio, the CoreS3, and Bluetooth on the
sim board) WARN, and so does an appliance that is not running. Exits 1 if
any check failed.`

type doctorOpts struct{ board, config string }

func doctorFlags(w io.Writer) (*flag.FlagSet, *doctorOpts) {
	o := &doctorOpts{}
	fs := newFlagSet("doctor", doctorSynopsis, w)
	fs.StringVar(&o.board, "board", "", "the board `name` ("+strings.Join(boards.Names(), ", ")+"); default: the configuration's board")
	fs.StringVar(&o.config, "config", appliance.DefaultConfigPath, "configuration `file`, for its board")
	return fs, o
}

// doctorCommand is `claude-pi doctor`.
func doctorCommand(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs, o := doctorFlags(stderr)
	if help, err := parseFlagsOnly(fs, args); help || err != nil {
		return err
	}
	name, how := o.board, "set: --board "+o.board
	c, cerr := appliance.LoadConfig(o.config, configExplicit(fs))
	if cerr != nil && name == "" {
		return cerr
	}
	if name == "" {
		name, how = c.Board, fmt.Sprintf("set: board = %q in %s", c.Board, o.config)
	}
	if name == "" || name == "auto" {
		// As run does: a HAT that names itself is chosen by board auto.
		det := boards.Detect("/")
		if det.Board == "" {
			return usagef("doctor: which board? pass --board NAME (%s); board auto cannot choose: %s", strings.Join(boards.Names(), ", "), det.How)
		}
		name, how = det.Board, "board auto: "+det.How
	}
	p, err := boards.Lookup(name)
	if err != nil {
		return usagef("doctor: %v", err)
	}
	d := doctor{root: "/", enumerate: serial.SysfsEnumerator}
	if cerr == nil {
		d.dataDir, d.socket = appliance.AppliancePaths(c, appliance.ThisHost())
	}
	checks := d.run(p)
	fmt.Fprintf(stdout, "system: %s\n", pisystem.Detect(d.root).Describe())
	fmt.Fprintf(stdout, "board chosen: %s\n", how)
	failed := printChecks(stdout, p, checks)
	writePins(stdout, p)
	if failed > 0 {
		return fmt.Errorf("doctor: %d of %d checks failed", failed, len(checks))
	}
	return nil
}

// check is one line of the doctor's report.
type check struct {
	name   string
	ok     bool
	detail string // what was found, or what is missing
	fix    string // only for failures
	// optional checks print WARN and do not fail the run.
	optional bool
}

// doctor inspects a root file system: "/" on the Pi, a t.TempDir() in
// tests.
type doctor struct {
	root      string
	enumerate serial.Enumerator
	socket    string // the running appliance's control socket; "" skips its services
	dataDir   string // the appliance's, under root; "" skips the state files
}

func (d doctor) path(p string) string { return filepath.Join(d.root, p) }

func (d doctor) run(p boards.Profile) []check {
	sys := pisystem.Detect(d.root)
	setupCmd := "sudo claude-pi setup --board " + p.Name
	var cs []check
	if p.Simulated {
		cs = append(cs, check{name: "board", ok: true, detail: "sim needs no hardware"})
	}
	if disp := p.Display; disp != nil {
		dev := disp.Device()
		c := check{name: "SPI", detail: dev}
		if _, err := os.Stat(d.path(dev)); err == nil {
			c.ok = true
		} else {
			c.detail = dev + " missing"
			switch sys.Kind {
			case pisystem.RaspberryPiOS:
				c.fix = "SPI is off: " + setupCmd + " (adds dtparam=spi=on to config.txt), then reboot"
			case pisystem.ClaudePiImage:
				c.fix = "SPI is off: " + setupCmd + " (loads dtoverlay=claude-pi-spi0 in config.txt), then reboot"
			case pisystem.OtherPi:
				c.fix = "SPI is off: enable SPI0 with spidev in your OS's boot config (Raspberry Pi OS: dtparam=spi=on), then reboot"
			default:
				c.fix = "this is not a Raspberry Pi: a HAT needs one (--board sim runs the simulator)"
			}
		}
		cs = append(cs, c)
	}
	if !p.Simulated {
		chips, _ := filepath.Glob(d.path("dev/gpiochip*"))
		c := check{name: "GPIO", ok: len(chips) > 0}
		if c.ok {
			c.detail = "/dev/" + filepath.Base(chips[0])
		} else {
			c.detail = "no /dev/gpiochip*"
			c.fix = "the kernel exposes no GPIO chip: run on a Raspberry Pi, or pass its /dev/gpiochip* into the container"
			if sys.Kind == pisystem.NotAPi {
				c.fix = "this is not a Raspberry Pi: a HAT needs one (--board sim runs the simulator)"
			}
		}
		cs = append(cs, c)
	}
	hcis, _ := filepath.Glob(d.path("sys/class/bluetooth/hci*"))
	// The sim board's desktop link works without a radio (the web page,
	// the LAN bridge), so there Bluetooth is optional.
	bt := check{name: "Bluetooth", ok: len(hcis) > 0, optional: p.Simulated}
	if bt.ok {
		bt.detail = filepath.Base(hcis[0])
	} else {
		bt.detail = "no adapter in /sys/class/bluetooth"
		switch sys.Kind {
		case pisystem.RaspberryPiOS, pisystem.OtherPi:
			bt.fix = "turn Bluetooth on: " + setupCmd + " comments out dtoverlay=disable-bt; `sudo rfkill unblock bluetooth`; reboot"
		case pisystem.ClaudePiImage:
			bt.fix = "the image keeps Bluetooth on: `sudo rfkill unblock bluetooth`, and see journalctl -b -u bluetooth (is bluez-firmware's patch loaded?)"
		default:
			bt.fix = "plug in a USB Bluetooth adapter, or `sudo rfkill unblock bluetooth`"
		}
	}
	cs = append(cs, bt)
	cs = append(cs, d.audio(p, sys))
	cs = append(cs, d.coreS3())
	if len(p.ConfigTxt) > 0 && sys.Kind != pisystem.NotAPi {
		cs = append(cs, d.configTxt(p, sys))
	}
	// Issue 27: security updates, a waiting reboot, who owns supervisorctl's
	// socket (warnings only; the logic is in drivers/updates and ctlsock).
	if _, err := os.Stat(d.path("var/lib/dpkg")); err == nil {
		st, err := updates.Read(d.root)
		for _, f := range updates.Check(st, time.Now()) {
			cs = append(cs, check{name: f.Name, ok: f.OK, detail: f.Detail, fix: f.Fix, optional: true})
		}
		if err != nil {
			cs = append(cs, check{name: "update records", detail: err.Error(), fix: "check the permissions of /var/lib/apt/periodic and /var/log/unattended-upgrades", optional: true})
		}
	}
	cs = append(cs, d.stateFiles()...)
	if _, err := os.Stat(d.path("run/claude-pi")); err == nil {
		ok, detail, fix := ctlsock.Owner(d.path(ctlsock.StockPath), "/run/claude-pi/supervisor.sock")
		cs = append(cs, check{name: "supervisorctl", ok: ok, detail: detail, fix: fix, optional: true})
	}
	if d.socket != "" {
		cs = append(cs, d.services()...)
	}
	return cs
}

// audio is optional on every board: without a card the chimes are skipped
// and everything else works.
func (d doctor) audio(p boards.Profile, sys pisystem.System) check {
	found, detail, fix := pisystem.SoundCard(d.root, p, sys)
	return check{name: "audio", optional: true, ok: found, detail: detail, fix: fix}
}

func (d doctor) coreS3() check {
	c := check{name: "CoreS3", optional: true}
	ports, err := d.enumerate()
	if err == nil {
		p, ferr := serial.Find(&serial.Opts{Enumerate: func() ([]*serial.PortDetails, error) { return ports, nil }})
		if ferr == nil {
			c.ok = true
			c.detail = p.Name
			return c
		}
		err = ferr
	}
	c.detail = err.Error()
	if errors.Is(err, serial.ErrNotFound) {
		c.fix = "plug the M5Stack CoreS3 into a USB data port (not a charge-only cable); the appliance runs without the dock"
	} else {
		c.fix = "cannot list serial ports: check /sys/class/tty is readable"
	}
	return c
}

// configTxt checks for the lines setup writes, as that system needs them.
func (d doctor) configTxt(p boards.Profile, sys pisystem.System) check {
	c := check{name: "config.txt"}
	want := bootEditFor(p, sys.Kind).want
	var text, used string
	for _, f := range pisystem.ConfigTxtPaths {
		if b, err := os.ReadFile(d.path(f)); err == nil {
			text, used = string(b), "/"+f
			break
		}
	}
	if used == "" {
		c.detail = "no /boot/firmware/config.txt"
		c.fix = "is the boot partition mounted? (see /etc/fstab) then: sudo claude-pi setup --board " + p.Name +
			" (its config.txt needs " + strings.Join(want, "; ") + ")"
		return c
	}
	have := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		have[line] = true
	}
	var missing []string
	for _, l := range want {
		if !have[l] {
			missing = append(missing, l)
		}
	}
	if len(missing) == 0 {
		c.ok = true
		c.detail = used + " has " + strings.Join(want, ", ")
		return c
	}
	c.detail = used + " lacks " + strings.Join(missing, ", ")
	c.fix = "sudo claude-pi setup --board " + p.Name + " adds them (under [all]), then reboot: " + strings.Join(missing, "; ")
	if sys.Kind == pisystem.OtherPi {
		c.fix = "add to " + used + " (under [all]) and reboot: " + strings.Join(missing, "; ")
	}
	return c
}

// printChecks writes the report and returns how many checks failed.
func printChecks(w io.Writer, p boards.Profile, cs []check) int {
	fmt.Fprintf(w, "board %s: %s\n", p.Name, p.Title)
	failed := 0
	for _, c := range cs {
		status := "OK  "
		switch {
		case c.ok:
		case c.optional:
			status = "WARN"
		default:
			status = "FAIL"
			failed++
		}
		fmt.Fprintf(w, "%s %-10s %s\n", status, c.name, c.detail)
		if !c.ok && c.fix != "" {
			fmt.Fprintf(w, "     %-10s fix: %s\n", "", c.fix)
		}
	}
	return failed
}
