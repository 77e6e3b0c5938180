package appliance

import (
	"context"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/drivers/sdnotify"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// TestNotifySystemdReadyWatchdogStop reads, on a real notify socket, what
// a run tells systemd: READY=1, WATCHDOG=1 pings fed by the supervisor,
// and STOPPING=1, or RELOADING=1 for supervisorctl reload.
func TestNotifySystemdReadyWatchdogStop(t *testing.T) {
	for _, tt := range []struct {
		cause error
		last  string
	}{
		{errShutdown, sdnotify.Stopping},
		{ErrRestart, sdnotify.Reloading},
	} {
		t.Run(tt.last, func(t *testing.T) {
			addr := filepath.Join(t.TempDir(), "notify")
			conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: addr, Net: "unixgram"})
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			read := func() string {
				conn.SetReadDeadline(time.Now().Add(supervisortest.Patience))
				buf := make([]byte, 256)
				n, err := conn.Read(buf)
				if err != nil {
					t.Fatal(err)
				}
				return string(buf[:n])
			}
			t.Setenv("WATCHDOG_USEC", "30000") // a ping every 10 ms
			t.Setenv("WATCHDOG_PID", "")
			tree := supervisortest.Start(t, answering[struct{}]("ble", nil))
			ctx, stop := context.WithCancelCause(context.Background())
			done := notifySystemd(ctx, sdnotify.At(addr), tree, slog.New(slog.NewTextHandler(io.Discard, nil)))
			if got := read(); got != sdnotify.Ready {
				t.Fatalf("first datagram %q, want %q", got, sdnotify.Ready)
			}
			for range 2 {
				if got := read(); got != sdnotify.Watchdog {
					t.Fatalf("datagram %q, want %q", got, sdnotify.Watchdog)
				}
			}
			stop(tt.cause)
			done()
			for {
				got := read()
				if got == sdnotify.Watchdog {
					continue // sent before the stop
				}
				if got != tt.last {
					t.Errorf("last datagram %q, want %q", got, tt.last)
				}
				break
			}
		})
	}
}
