package ctlsock

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/supervisor/ctlsock/ctlsocktest"
)

// lifecycleServer is a socket whose Shutdown and Restart hooks report on
// calls.
func lifecycleServer(t *testing.T) (sock string, calls chan string) {
	t.Helper()
	calls = make(chan string, 4)
	fake := ctlsocktest.New([]string{"ble", "dock"})
	path := filepath.Join(t.TempDir(), "ctl.sock")
	s, err := Listen(path, fake, Options{
		Shutdown: func() { calls <- "shutdown" },
		Restart:  func() { calls <- "restart" },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return path, calls
}

// TestSupervisorctlReloadShutdown: Debian's supervisorctl gets
// supervisord's answers to reload and shutdown, and its own clean message
// for a second one; update and reread get a CANT_REREAD that names reload.
func TestSupervisorctlReloadShutdown(t *testing.T) {
	needSupervisorctl(t)
	for _, verb := range []string{"reload", "shutdown"} {
		sock, calls := lifecycleServer(t)
		want := map[string]string{"reload": "Restarted supervisord\n", "shutdown": "Shut down\n"}[verb]
		hook := map[string]string{"reload": "restart", "shutdown": "shutdown"}[verb]
		if got, code := ctl(t, sock, verb); got != want || code != 0 {
			t.Errorf("supervisorctl %s: (exit %d) %q, want %q", verb, code, got, want)
		}
		select {
		case c := <-calls:
			if c != hook {
				t.Errorf("supervisorctl %s ran the %s hook", verb, c)
			}
		default:
			t.Errorf("supervisorctl %s ran no hook", verb)
		}
		// The program is stopping now; supervisord says so.
		if got, _ := ctl(t, sock, verb); got != "ERROR: already shutting down\n" {
			t.Errorf("a second supervisorctl %s: %q", verb, got)
		}
		if len(calls) != 0 {
			t.Errorf("a second %s ran the hook again", verb)
		}
	}
	sock, calls := lifecycleServer(t)
	for _, verb := range []string{"update", "reread"} {
		got, code := ctl(t, sock, verb)
		if code == 0 || !strings.Contains(got, "CANT_REREAD") || !strings.Contains(got, "supervisorctl reload") || strings.Contains(got, "UNKNOWN_METHOD") {
			t.Errorf("supervisorctl %s: (exit %d) %q, want a CANT_REREAD fault naming supervisorctl reload", verb, code, got)
		}
	}
	if len(calls) != 0 {
		t.Errorf("update ran a lifecycle hook")
	}
	if got, _ := ctl(t, sock, "reload", "now"); !strings.Contains(got, "reload accepts no arguments") {
		t.Errorf("supervisorctl reload now: %q", got)
	}
}

// TestSupervisorctlFg: fg follows the actor's log with no "Cannot read"
// for the stderr stream, and a typed line is answered with what fg is for.
func TestSupervisorctlFg(t *testing.T) {
	needSupervisorctl(t)
	s, fake, _ := startServer(t)
	fake.WriteLog("ble", "before\n")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := ctlCommand(t, ctx, s.Path(), "fg", "ble")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout // the "Cannot read" line goes to stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	next := func() string {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("fg output ended: %v", lines.Err())
		}
		return lines.Text()
	}
	for _, want := range []string{"==> Press Ctrl-C to exit <==", "before"} {
		if got := next(); got != want {
			t.Fatalf("fg printed %q, want %q", got, want)
		}
	}
	fake.WriteLog("ble", "live\n")
	if got := next(); got != "live" {
		t.Fatalf("fg printed %q, want the live line", got)
	}
	io.WriteString(stdin, "hello\n")
	got := next()
	// fg's log thread notices that fg ended only when a line arrives (or
	// after asyncore's 30 s poll), as with supervisord: keep writing until
	// it has gone.
	stopWriting := make(chan struct{})
	defer close(stopWriting)
	go func() {
		for {
			select {
			case <-stopWriting:
				return
			case <-time.After(100 * time.Millisecond):
				fake.WriteLog("ble", "after\n")
			}
		}
	}()
	// The rest, through the scanner: it has read ahead of the pipe.
	var rest strings.Builder
	for lines.Scan() {
		rest.WriteString(lines.Text() + "\n")
	}
	cmd.Wait()
	all := got + "\n" + rest.String()
	// The fault is printed by fg's main thread; its log thread may print
	// "CLOSED Cannot connect…" first as the main thread exits (seen once
	// in a fresh root), so it is looked for in all that followed.
	if !strings.Contains(all, "NO_FILE") || !strings.Contains(all, "reads no input") {
		t.Errorf("after a typed line:\n%s\nwant the NO_FILE fault saying fg only follows the log", all)
	}
	if strings.Contains(all, "Cannot read") || strings.Contains(all, "404") {
		t.Errorf("fg reported an unreadable stream:\n%s", all)
	}
	if !strings.Contains(all, "Exiting foreground") {
		t.Errorf("fg did not exit cleanly:\n%s", all)
	}
}

// TestPermissionAdviceFitsTheMode: only a group-writable socket gets the
// advice to join its group; the default 0600 one names its owner and
// control_group instead.
func TestPermissionAdviceFitsTheMode(t *testing.T) {
	s, _, c := startServer(t)
	for _, tt := range []struct {
		mode       os.FileMode
		want, lack string
	}{
		{0o600, "for its owner", "member of"},
		{0o660, "member of", "for its owner"},
	} {
		if err := os.Chmod(s.Path(), tt.mode); err != nil {
			t.Fatal(err)
		}
		msg := c.explain(os.ErrPermission).Error()
		if !strings.Contains(msg, tt.want) || strings.Contains(msg, tt.lack) || !strings.Contains(msg, fmt.Sprintf("%04o", tt.mode)) {
			t.Errorf("mode %04o: %q, want it to say %q and not %q", tt.mode, msg, tt.want, tt.lack)
		}
		if tt.mode == 0o600 && !strings.Contains(msg, "control_group") {
			t.Errorf("mode 0600: %q does not name control_group", msg)
		}
	}
}

// TestSupervisorctlAddRemove: add and remove get supervisord's own
// answers, so supervisorctl prints its usual lines instead of
// UNKNOWN_METHOD, and nothing is removed from status.
func TestSupervisorctlAddRemove(t *testing.T) {
	needSupervisorctl(t)
	s, fake, _ := startServer(t) // ble and dock run; display is stopped
	for _, tc := range []struct {
		args     []string
		want     string // a substring of the output
		exitCode int
	}{
		{[]string{"add", "ble"}, "ERROR: process group already active\n", 0},
		{[]string{"add", "nosuch"}, "ERROR: no such process/group: nosuch\n", 1},
		{[]string{"add", "ble:ble"}, "ERROR: no such process/group: ble:ble\n", 1},
		{[]string{"remove", "dock"}, "ERROR: process/group still running: dock\n", 1},
		{[]string{"remove", "nosuch"}, "ERROR: no such process/group: nosuch\n", 1},
		{[]string{"remove", "display"}, "display is built into claude-pi and cannot be removed; it stays stopped until supervisorctl start display", 1},
	} {
		got, code := ctl(t, s.Path(), tc.args...)
		if !strings.Contains(got, tc.want) || code != tc.exitCode || strings.Contains(got, "UNKNOWN_METHOD") {
			t.Errorf("supervisorctl %s: (exit %d) %q, want %q (exit %d)", strings.Join(tc.args, " "), code, got, tc.want, tc.exitCode)
		}
	}
	if n := len(fake.Processes()); n != 3 {
		t.Errorf("%d processes after add/remove, want all 3", n)
	}
}
