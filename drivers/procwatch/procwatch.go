// Package procwatch tells a hook when the Claude Code process that started
// it has ended. Claude Code runs hooks through `/bin/sh -c` in a session
// of their own, so when the CLI is killed (SIGKILL, a crash, a closed
// laptop lid) nothing kills the hook: it must notice by itself, or its
// prompt stays on the Pi for the hook's whole wait.
//
// Each OS has its own probe: a pidfd on Linux (exact, and blind to pid
// reuse), kill(pid, 0) on the other Unixes, a process handle on Windows.
// On Unix the hook's parent is also watched by Getppid: a hook whose
// shell died is reparented, whatever became of the pid.
package procwatch

import (
	"context"
	"os"
	"strconv"
	"time"
)

// Interval is how often the processes are probed: a prompt leaves the Pi
// within about this long (plus one round trip) of the CLI's end.
const Interval = 200 * time.Millisecond

// Gone says which watched process ended.
type Gone struct {
	PID  int
	What string // "CLAUDE_PID", "parent"
}

// probe reports whether a process is still alive; close frees what it
// holds.
type probe struct {
	pid   int
	what  string
	alive func() bool
	close func()
}

// Watch probes every pid (and this process's parent) each interval and
// sends on the returned channel, once, the first that ended. Pids that
// cannot be watched (<= 1, not running at the start) are skipped: an
// unknown CLAUDE_PID must not withdraw a prompt. The channel is closed
// when ctx ends first.
func Watch(ctx context.Context, interval time.Duration, pids map[string]int) <-chan Gone {
	var probes []probe
	seen := map[int]bool{}
	add := func(what string, pid int) {
		if pid <= 1 || seen[pid] {
			return
		}
		seen[pid] = true
		if p, ok := open(pid); ok {
			p.what = what
			probes = append(probes, p)
		}
	}
	for what, pid := range pids {
		add(what, pid)
	}
	if ppid := os.Getppid(); ppid > 1 {
		add("parent", ppid)
		if reparents {
			probes = append(probes, probe{pid: ppid, what: "parent", alive: func() bool { return os.Getppid() == ppid }, close: func() {}})
		}
	}
	out := make(chan Gone, 1)
	go func() {
		defer func() {
			for _, p := range probes {
				p.close()
			}
			close(out)
		}()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			for _, p := range probes {
				if !p.alive() {
					out <- Gone{PID: p.pid, What: p.what}
					return
				}
			}
		}
	}()
	return out
}

// EnvPID reads a pid from the environment variable name; 0 when unset or
// not a number.
func EnvPID(name string) int {
	n, err := strconv.Atoi(os.Getenv(name))
	if err != nil || n < 0 {
		return 0
	}
	return n
}
