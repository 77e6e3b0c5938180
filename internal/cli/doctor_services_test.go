package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-pi/claude-pi/boards"
	"github.com/claude-pi/claude-pi/supervisor"
	"github.com/claude-pi/claude-pi/supervisor/ctlsock"
	"github.com/claude-pi/claude-pi/supervisor/ctlsock/ctlsocktest"
)

// TestDoctorFailsWhileAServiceIsDown asks a real control socket: a FATAL
// service fails doctor, naming it and its state; one stopped by hand
// warns; all RUNNING is one OK line; no appliance warns.
func TestDoctorFailsWhileAServiceIsDown(t *testing.T) {
	p, err := boards.Lookup("sim")
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "s.sock")
	fake := ctlsocktest.New([]string{"approvals", "audio", "ble"})
	srv, err := ctlsock.Listen(sock, fake, ctlsock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	report := func(d doctor) (string, int) {
		var out bytes.Buffer
		n := printChecks(&out, p, d.services())
		return out.String(), n
	}
	d := doctor{root: t.TempDir(), socket: sock}

	if out, n := report(d); n != 0 || !strings.Contains(out, "OK   services   all 3 RUNNING") {
		t.Errorf("all running: %d failed\n%s", n, out)
	}

	fake.SetState("approvals", supervisor.Fatal, "FATAL: store unreadable (down since 20:31, retry in 25s)")
	fake.SetState("audio", supervisor.Stopped, "Dec 04 08:31 PM")
	out, n := report(d)
	if n != 1 || !strings.Contains(out, "FAIL approvals  FATAL: FATAL: store unreadable (down since 20:31") ||
		!strings.Contains(out, "supervisorctl tail approvals") {
		t.Errorf("approvals FATAL: %d failed, want 1 naming it and its state\n%s", n, out)
	}
	if !strings.Contains(out, "WARN audio") || strings.Contains(out, "services") {
		t.Errorf("audio STOPPED: want a WARN naming it and no all-running line\n%s", out)
	}

	d.socket = filepath.Join(t.TempDir(), "none.sock")
	if out, n := report(d); n != 0 || !strings.Contains(out, "WARN services") || !strings.Contains(out, "no claude-pi running") {
		t.Errorf("no appliance: %d failed, want a WARN\n%s", n, out)
	}
}
