// Package sdnotify tells systemd how the appliance is doing, over the
// datagram socket systemd names in $NOTIFY_SOCKET (sd_notify(3)): READY=1
// once every service has started, WATCHDOG=1 while the supervisor answers,
// STOPPING=1 on the way out (RELOADING=1 for supervisorctl reload). Under Type=notify and WatchdogSec= a process
// whose pings stop is killed and restarted, which is what catches an actor
// system that is wedged but has not exited.
//
// The protocol is one datagram per message, so it is written here rather
// than taken from a library.
package sdnotify

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"time"
)

// States sent by the appliance.
const (
	Ready     = "READY=1"
	Watchdog  = "WATCHDOG=1"
	Stopping  = "STOPPING=1"
	Reloading = "RELOADING=1"
)

// Notifier sends one state to the service manager. Socket is the real
// one; Recorder is the fake.
type Notifier interface {
	Notify(state string) error
}

// Socket sends to one notify socket. The zero value (no socket: not run
// by systemd, or by a unit without Type=notify) sends nothing.
type Socket struct {
	addr string
}

// FromEnv is the socket systemd passed in $NOTIFY_SOCKET, which may be a
// path or an abstract name ("@..."); unset gives a Socket that sends
// nothing.
func FromEnv() Socket { return Socket{addr: os.Getenv("NOTIFY_SOCKET")} }

// At is the socket at addr, for tests.
func At(addr string) Socket { return Socket{addr: addr} }

// Enabled reports whether there is a socket to send to.
func (s Socket) Enabled() bool { return s.addr != "" }

// Notify sends state as one datagram. A fresh connection each time keeps
// the Socket free of state to lose or close; it is a few calls a minute.
func (s Socket) Notify(state string) error {
	if s.addr == "" {
		return nil
	}
	// Go's net package turns a leading '@' into the NUL of Linux's
	// abstract socket namespace, as sd_notify does.
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: s.addr, Net: "unixgram"})
	if err != nil {
		return fmt.Errorf("sd_notify %s: NOTIFY_SOCKET %q: %w", state, s.addr, err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(state)); err != nil {
		return fmt.Errorf("sd_notify %s: NOTIFY_SOCKET %q: %w", state, s.addr, err)
	}
	return nil
}

// WatchdogInterval is systemd's WatchdogSec= as passed in $WATCHDOG_USEC,
// or 0 when the watchdog is off for this process ($WATCHDOG_PID names
// another, or the variable is missing or malformed).
func WatchdogInterval() time.Duration {
	if p := os.Getenv("WATCHDOG_PID"); p != "" && p != strconv.Itoa(os.Getpid()) {
		return 0
	}
	us, err := strconv.ParseInt(os.Getenv("WATCHDOG_USEC"), 10, 64)
	if err != nil || us <= 0 {
		return 0
	}
	return time.Duration(us) * time.Microsecond
}

// Keep pings the watchdog at each tick for as long as healthy answers
// within timeout, until ctx ends. A health check that fails or hangs sends
// nothing, so systemd's WatchdogSec= runs out and it restarts the
// process; each missed ping is logged, with why.
func Keep(ctx context.Context, n Notifier, tick <-chan time.Time, timeout time.Duration,
	healthy func(context.Context) error, log *slog.Logger) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
		}
		cctx, cancel := context.WithTimeout(ctx, timeout)
		err := healthy(cctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			log.Error("watchdog ping withheld: the supervisor did not answer; systemd restarts claude-pi if this goes on",
				"err", err, "timeout", timeout)
			continue
		}
		if err := n.Notify(Watchdog); err != nil {
			log.Warn("watchdog ping not sent", "err", err)
		}
	}
}
