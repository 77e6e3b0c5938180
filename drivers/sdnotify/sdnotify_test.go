package sdnotify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// listen is a notify socket as systemd opens it: a unixgram socket that
// the test reads datagrams from.
func listen(t *testing.T, addr string) *net.UnixConn {
	t.Helper()
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: addr, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func read(t *testing.T, conn *net.UnixConn) string {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second)) // a hang fails, a slow run does not
	buf := make([]byte, 4096)
	n, err := conn.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	return string(buf[:n])
}

func TestNotifySendsOneDatagramPerState(t *testing.T) {
	addrs := []string{filepath.Join(t.TempDir(), "notify")}
	if runtime.GOOS == "linux" {
		addrs = append(addrs, fmt.Sprintf("@claude-pi-sdnotify-test-%d", os.Getpid()))
	}
	for _, addr := range addrs {
		t.Run(addr, func(t *testing.T) {
			conn := listen(t, addr)
			t.Setenv("NOTIFY_SOCKET", addr)
			s := FromEnv()
			if !s.Enabled() {
				t.Fatal("NOTIFY_SOCKET set but not Enabled")
			}
			for _, state := range []string{Ready, Watchdog, Stopping} {
				if err := s.Notify(state); err != nil {
					t.Fatal(err)
				}
				if got := read(t, conn); got != state {
					t.Errorf("datagram %q, want %q", got, state)
				}
			}
		})
	}
}

func TestNotifyWithoutSystemd(t *testing.T) {
	t.Setenv("NOTIFY_SOCKET", "")
	if s := FromEnv(); s.Enabled() || s.Notify(Ready) != nil {
		t.Error("no NOTIFY_SOCKET: want a Socket that is off and sends nothing")
	}
	missing := filepath.Join(t.TempDir(), "gone")
	err := At(missing).Notify(Ready)
	if err == nil || !strings.Contains(err.Error(), "NOTIFY_SOCKET") || !strings.Contains(err.Error(), missing) {
		t.Errorf("Notify to a missing socket = %v, want an error naming NOTIFY_SOCKET and the path", err)
	}
}

func TestWatchdogInterval(t *testing.T) {
	self := strconv.Itoa(os.Getpid())
	for _, tt := range []struct {
		usec, pid string
		want      time.Duration
	}{
		{"60000000", "", time.Minute},
		{"60000000", self, time.Minute},
		{"60000000", "1", 0}, // meant for another process
		{"", "", 0},
		{"soon", "", 0},
		{"-5", "", 0},
	} {
		t.Setenv("WATCHDOG_USEC", tt.usec)
		t.Setenv("WATCHDOG_PID", tt.pid)
		if got := WatchdogInterval(); got != tt.want {
			t.Errorf("WATCHDOG_USEC=%q WATCHDOG_PID=%q: %v, want %v", tt.usec, tt.pid, got, tt.want)
		}
	}
}

// TestKeepPingsOnlyWhileHealthy drives Keep tick by tick: a failing or
// hanging health check withholds the ping, a healthy one sends it.
func TestKeepPingsOnlyWhileHealthy(t *testing.T) {
	rec := &Recorder{C: make(chan string, 1)}
	tick := make(chan time.Time)
	checks := make(chan string, 3)
	answers := []func(context.Context) error{
		func(context.Context) error { return errors.New("root actor gone") },
		func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }, // wedged
		func(context.Context) error { return nil },
	}
	i := 0
	healthy := func(ctx context.Context) error {
		f := answers[i]
		i++
		err := f(ctx)
		checks <- fmt.Sprint(err)
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		Keep(ctx, rec, tick, 10*time.Millisecond, healthy, slog.New(slog.NewTextHandler(io.Discard, nil)))
		close(done)
	}()
	for range answers {
		tick <- time.Now()
		<-checks
	}
	select {
	case got := <-rec.C:
		if got != Watchdog {
			t.Errorf("sent %q, want %q", got, Watchdog)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("healthy check sent no ping")
	}
	cancel()
	<-done
	if got := rec.Sent(); !slices.Equal(got, []string{Watchdog}) {
		t.Errorf("sent %q over 2 unhealthy and 1 healthy tick, want one WATCHDOG=1", got)
	}
}
