package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/claude-pi/claude-pi/drivers/ble/bluez/store"
	"github.com/claude-pi/claude-pi/internal/appliance"
)

const bluetoothCheckSynopsis = `Usage: claude-pi bluetooth check-files [--dir DIR] [--aside DIR]

Before bluetoothd starts (claude-pi-bluetooth-files.service, as root):
reads each of bluetoothd's files (the adapter's settings, each bond's
info) and sets aside every one a power cut damaged (zero-filled, empty,
not a key file) into the appliance's data directory, where the Pi's
screen and claude-pi doctor report it. Whole files are not touched.
Prints one line for each file set aside; nothing when all are whole.`

// bluetoothCheckCommand is `claude-pi bluetooth check-files`.
func bluetoothCheckCommand(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	flags := newFlagSet("bluetooth check-files", bluetoothCheckSynopsis, stderr)
	dir := flags.String("dir", store.Root, "bluetoothd's storage `dir`")
	aside := flags.String("aside", "", "the `dir` damaged files are set aside in (default: bluetooth/ in the configuration's data_dir, or /var/lib/claude-pi/bluetooth)")
	config := flags.String("config", appliance.DefaultConfigPath, "configuration `file`, for its data_dir")
	if help, err := parseFlagsOnly(flags, args); help || err != nil {
		return err
	}
	if *aside == "" {
		data := "/var/lib/claude-pi"
		// A configuration that cannot be read still gets its bonds
		// checked: the default place is where the screen looks.
		if c, err := appliance.LoadConfig(*config, configExplicit(flags)); err == nil && c.DataDir != "" {
			data = c.DataDir
		}
		*aside = filepath.Join(data, "bluetooth")
	}
	if _, err := os.Stat(*dir); errors.Is(err, fs.ErrNotExist) {
		return nil // bluetoothd has not run yet: nothing kept
	}
	// bluetoothd creates each new file empty an instant before it writes
	// it: beside a running bluetoothd, a new bond could be caught empty
	// and set aside. The unit runs before bluetoothd; by hand it declines.
	if pid := runningBluetoothd(procDir); pid != "" {
		fmt.Fprintf(stderr, "bluetoothd is running (pid %s): its files are checked before it starts, at the next boot or with: sudo systemctl stop bluetooth && sudo claude-pi bluetooth check-files && sudo systemctl start bluetooth\n", pid)
		return nil
	}
	damaged, err := store.SetAsideDamaged(*dir, *aside, time.Now())
	for _, d := range damaged {
		fmt.Fprintf(stdout, "%s\n", d.Error())
		fmt.Fprintf(stdout, "  what it costs: %s\n", lost(d.File))
	}
	if err != nil {
		return fmt.Errorf("bluetooth check-files: %w (run as root; journalctl -u claude-pi-bluetooth-files says more)", err)
	}
	return nil
}

// procDir is where runningBluetoothd looks; tests point it elsewhere.
var procDir = "/proc"

// runningBluetoothd is the pid of a running bluetoothd, or "".
func runningBluetoothd(proc string) string {
	entries, _ := os.ReadDir(proc)
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		comm, err := os.ReadFile(filepath.Join(proc, e.Name(), "comm"))
		if err == nil && strings.TrimSpace(string(comm)) == "bluetoothd" {
			return e.Name()
		}
	}
	return ""
}
