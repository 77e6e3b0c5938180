package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/claude-pi/claude-pi/boards"
)

// check-files sets a zero-filled bond aside into the data directory, says
// so, and doctor then reports it with what to do; a second run (the next
// boot) prints nothing.
func TestBluetoothCheckFilesThenDoctor(t *testing.T) {
	fakeProc(t, "systemd", "sshd")
	root := t.TempDir()
	bt := filepath.Join(root, "var/lib/bluetooth")
	data := "/var/lib/claude-pi"
	info := filepath.Join(bt, "DC:A6:32:01:02:03", "F0:18:98:AA:BB:CC", "info")
	settings := filepath.Join(bt, "DC:A6:32:01:02:03", "settings")
	if err := os.MkdirAll(filepath.Dir(info), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(info, make([]byte, 180), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte("[General]\nAlias=Claude_Pi\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"bluetooth", "check-files", "--dir", bt, "--aside", filepath.Join(root, data, "bluetooth")}
	var out, errOut bytes.Buffer
	if err := run(context.Background(), args, failReader{t}, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	for _, want := range []string{"bluetooth/DC:A6:32:01:02:03_F0:18:98:AA:BB:CC_info is zero-filled", "remove Claude_Pi from the computer's Bluetooth devices"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if _, err := os.Lstat(info); !os.IsNotExist(err) {
		t.Errorf("the damaged info is still where bluetoothd reads it: %v", err)
	}
	if b, err := os.ReadFile(settings); err != nil || !bytes.Contains(b, []byte("Alias=Claude_Pi")) {
		t.Errorf("the whole settings file was touched: %q %v", b, err)
	}

	p, err := boards.Lookup("sim")
	if err != nil {
		t.Fatal(err)
	}
	var report bytes.Buffer
	if n := printChecks(&report, p, doctor{root: root, dataDir: data}.stateFiles()); n != 0 {
		t.Errorf("%d failures, want a WARN", n)
	}
	if !strings.Contains(report.String(), "WARN set aside  bluetooth/DC:A6:32:01:02:03_F0:18:98:AA:BB:CC_info (zero-filled)") ||
		!strings.Contains(report.String(), "pair again") {
		t.Errorf("doctor:\n%s", report.String())
	}

	out.Reset()
	if err := run(context.Background(), args, failReader{t}, &out, &errOut); err != nil || out.Len() != 0 {
		t.Errorf("second run: %v, printed %q", err, out.String())
	}
}

// No /var/lib/bluetooth (bluetoothd never ran): nothing to do, no error.
func TestBluetoothCheckFilesNoStorage(t *testing.T) {
	fakeProc(t)
	root := t.TempDir()
	var out bytes.Buffer
	err := run(context.Background(), []string{"bluetooth", "check-files", "--dir", filepath.Join(root, "none"), "--aside", filepath.Join(root, "aside")}, failReader{t}, &out, &out)
	if err != nil || out.Len() != 0 {
		t.Errorf("%v %q", err, out.String())
	}
}

// Beside a running bluetoothd nothing is touched: it creates each new file
// empty an instant before writing it, and a new bond caught so would be
// set aside. The command says how to run it instead.
func TestBluetoothCheckFilesNotBesideBluetoothd(t *testing.T) {
	fakeProc(t, "systemd", "bluetoothd")
	root := t.TempDir()
	info := filepath.Join(root, "bt", "DC:A6:32:01:02:03", "F0:18:98:AA:BB:CC", "info")
	if err := os.MkdirAll(filepath.Dir(info), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(info, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"bluetooth", "check-files", "--dir", filepath.Join(root, "bt"), "--aside", filepath.Join(root, "aside")}, failReader{t}, &out, &errOut)
	if err != nil || out.Len() != 0 {
		t.Fatalf("%v, printed %q", err, out.String())
	}
	if !strings.Contains(errOut.String(), "bluetoothd is running (pid 2)") || !strings.Contains(errOut.String(), "systemctl stop bluetooth") {
		t.Errorf("stderr %q", errOut.String())
	}
	if _, err := os.Stat(info); err != nil {
		t.Errorf("the file was touched beside a running bluetoothd: %v", err)
	}
}

// fakeProc points runningBluetoothd at a /proc of these commands, pids 1…
func fakeProc(t *testing.T, comms ...string) {
	t.Helper()
	dir := t.TempDir()
	for i, c := range comms {
		p := filepath.Join(dir, strconv.Itoa(i+1))
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "comm"), []byte(c+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "self"), 0o755); err != nil {
		t.Fatal(err)
	}
	old := procDir
	procDir = dir
	t.Cleanup(func() { procDir = old })
}
