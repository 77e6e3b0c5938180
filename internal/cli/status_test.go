package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/claude-pi/claude-pi/supervisor/ctlsock"
	"github.com/claude-pi/claude-pi/supervisor/ctlsock/ctlsocktest"
)

// TestStatusUnknownNameOnce: `status nosuch` says so in the table, as
// supervisorctl does, and main prints nothing more (the error is reported).
func TestStatusUnknownNameOnce(t *testing.T) {
	sock := shortSocket(t)
	srv, err := ctlsock.Listen(sock, ctlsocktest.New([]string{"ble", "ui"}), ctlsock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	var out, errOut bytes.Buffer
	err = run(context.Background(), []string{"status", "--control-socket", sock, "nosuch"}, nil, &out, &errOut)
	if exitCode(err) != 1 || !errors.As(err, new(reportedError)) {
		t.Fatalf("status nosuch: %v (exit %d), want exit 1 with the error already reported", err, exitCode(err))
	}
	if n := strings.Count(out.String()+errOut.String(), "no such process"); n != 1 {
		t.Errorf("status nosuch printed %q %d times, want once:\n%s%s", "no such process", n, out.String(), errOut.String())
	}
	out.Reset()
	if err := run(context.Background(), []string{"status", "--control-socket", sock, "ui"}, nil, &out, &errOut); err != nil || !strings.HasPrefix(out.String(), "ui ") {
		t.Errorf("status ui: %v %q", err, out.String())
	}
}
