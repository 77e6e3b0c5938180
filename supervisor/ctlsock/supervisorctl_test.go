package ctlsock

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// These tests run Debian's real supervisorctl against the socket, so that
// what users type over ssh is what is pinned, not our reading of it.

const supervisorctlPath = "/usr/bin/supervisorctl"

func needSupervisorctl(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(supervisorctlPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s missing on CI (apt-get install supervisor): %v", supervisorctlPath, err)
		}
		t.Skipf("%s not installed: %v", supervisorctlPath, err)
	}
}

// ctlCommand builds a supervisorctl run with its own config, so the
// host's /etc/supervisor/supervisord.conf cannot change what it does.
func ctlCommand(t *testing.T, ctx context.Context, sock string, args ...string) *exec.Cmd {
	t.Helper()
	conf := filepath.Join(t.TempDir(), "ctl.conf")
	if err := os.WriteFile(conf, []byte("[supervisorctl]\nserverurl=unix://"+sock+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, supervisorctlPath, append([]string{"-c", conf}, args...)...)
	cmd.Env = append(os.Environ(), "PYTHONIOENCODING=utf-8", "LANG=C.UTF-8")
	return cmd
}

// ctl runs supervisorctl to completion and returns its output and exit code.
func ctl(t *testing.T, sock string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := ctlCommand(t, ctx, sock, args...).CombinedOutput()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("supervisorctl %v: %v", args, err)
	}
	return string(out), code
}

func TestSupervisorctl(t *testing.T) {
	needSupervisorctl(t)
	s, fake, _ := startServer(t)
	fake.WriteLog("ble", "scan started\nconnected to Claude\n")
	fake.WriteLog("", "claude-pi: tree up\n")
	sock := s.Path()
	pad := func(name, state, desc string) string {
		return name + strings.Repeat(" ", 33-len(name)) + state + strings.Repeat(" ", 10-len(state)) + desc + "\n"
	}
	statusAll := pad("ble", "RUNNING", "advertising as Claude_Pi · 1 central · encrypted") +
		pad("display", "STOPPED", "Not started") +
		pad("dock", "RUNNING", "CoreS3 on /dev/ttyACM0")
	steps := []struct {
		args []string
		want string
		code int
	}{
		{[]string{"status"}, statusAll, 3}, // 3: something is stopped (LSB)
		{[]string{"status", "ble"}, pad("ble", "RUNNING", "advertising as Claude_Pi · 1 central · encrypted"), 0},
		{[]string{"status", "foo"}, "foo: ERROR (no such process)\n", 4},
		{[]string{"version"}, SupervisorVersion + "\n", 0},
		{[]string{"pid"}, "4242\n", 0},
		{[]string{"pid", "ble"}, "4242\n", 0},
		{[]string{"pid", "foo"}, "No such process foo\n", 1},
		{[]string{"start", "display"}, "display: started\n", 0},
		{[]string{"start", "ble"}, "ble: ERROR (already started)\n", 0},
		{[]string{"start", "foo"}, "foo: ERROR (no such process)\n", 1},
		{[]string{"stop", "dock"}, "dock: stopped\n", 0},
		{[]string{"stop", "dock"}, "dock: ERROR (not running)\n", 0},
		{[]string{"restart", "ble"}, "ble: stopped\nble: started\n", 0},
		{[]string{"stop", "all"}, "display: stopped\nble: stopped\n", 0},
		{[]string{"start", "all"}, "ble: started\ndock: started\ndisplay: started\n", 0},
		{[]string{"start", "ble:*"}, "", 0},
		{[]string{"stop", "ble:*"}, "ble: stopped\n", 0},
		{[]string{"start", "ble:*"}, "ble: started\n", 0},
		{[]string{"start", "nope:*"}, "nope: ERROR (no such group)\n", 2},
		{[]string{"tail", "ble"}, "scan started\nconnected to Claude\n\n", 0},
		{[]string{"tail", "-9", "ble"}, "o Claude\n\n", 0},
		{[]string{"tail", "foo"}, "foo: ERROR (no such process name)\n", 1},
		{[]string{"tail", "ble", "stderr"}, "ble: ERROR (no log file)\n", 1},
		{[]string{"maintail"}, "claude-pi: tree up\n\n", 0},
		{[]string{"signal", "HUP", "ble"}, "ble: signalled\n", 0},
		{[]string{"signal", "BOGUS", "ble"}, "ble: ERROR (bad signal name)\n", 1},
		{[]string{"signal", "HUP", "foo"}, "foo: ERROR (no such process)\n", 1},
		{[]string{"clear", "ble"}, "ble: cleared\n", 0},
		{[]string{"clear", "all"}, "ble: cleared\ndock: cleared\ndisplay: cleared\n", 0},
		{[]string{"clear", "foo"}, "foo: ERROR (no such process)\n", 1},
		{[]string{"avail"}, "ble                              in use    auto      1:1\n" +
			"display                          in use    auto      3:3\n" +
			"dock                             in use    auto      2:2\n", 0},
	}
	for _, st := range steps {
		got, code := ctl(t, sock, st.args...)
		if got != st.want || code != st.code {
			t.Errorf("supervisorctl %s:\n got (exit %d) %q\nwant (exit %d) %q", strings.Join(st.args, " "), code, got, st.code, st.want)
		}
	}
	if sigs := fake.Signals(); len(sigs) != 1 || sigs[0] != "ble HUP" {
		t.Errorf("signals delivered = %q, want [ble HUP]", sigs)
	}
}

// TestSupervisorctlTailFollow reads a few streamed lines through
// `supervisorctl tail -f`, kills it, and checks the server let go of the
// Backend subscription.
func TestSupervisorctlTailFollow(t *testing.T) {
	needSupervisorctl(t)
	for _, tc := range []struct {
		args []string
		name string
	}{
		{[]string{"tail", "-f", "ble"}, "ble"},
		{[]string{"maintail", "-f"}, ""},
	} {
		s, fake, _ := startServer(t)
		fake.WriteLog(tc.name, "before\n")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := ctlCommand(t, ctx, s.Path(), tc.args...)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(out)
		want := []string{"==> Press Ctrl-C to exit <==", "before", "live 1", "live 2"}
		for i, w := range want {
			if i == 2 {
				// The stream is open once the head has arrived.
				fake.WriteLog(tc.name, "live 1\nlive 2\n")
			}
			if !lines.Scan() {
				t.Fatalf("%v: stream ended before %q: %v", tc.args, w, lines.Err())
			}
			if got := lines.Text(); got != w {
				t.Fatalf("%v: line %d = %q, want %q", tc.args, i, got, w)
			}
		}
		cmd.Process.Kill()
		cmd.Wait()
		cancel()
		deadline := time.Now().Add(10 * time.Second)
		for fake.Followers(tc.name) != 0 {
			if time.Now().After(deadline) {
				t.Fatalf("%v: server still follows the log after the client left", tc.args)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
