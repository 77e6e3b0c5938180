// Package supervisor runs every service of the appliance as a supervised
// protoactor-go actor, tracks its health in supervisord's terms, and keeps
// each one's recent log lines so that the real supervisorctl can show them.
//
// Every service actor is a child of one "supervisor" actor, which owns all
// supervision state and decides restarts: protoactor would ignore the
// strategy of an actor spawned from the root context. A failure (a panic
// in Receive, or Handle.Fail) stops that incarnation, which still gets
// actor.Stopping and actor.Stopped, and a fresh actor from Service.New is
// spawned after an exponential backoff (BACKOFF). More than
// Policy.MaxRestarts failures within Policy.Window leave the service FATAL
// while the others run on; "supervisorctl start" revives it, and so does
// the supervisor itself every Policy.RetryFatal, since nobody reads an
// appliance's logs. Restarting one service never touches another.
//
// Signals from "supervisorctl signal SIG name" reach a RUNNING actor as
// messages, since actors share the appliance's process:
//
//   - KILL crashes the actor exactly as a panic would: BACKOFF, then a
//     fresh RUNNING incarnation. "supervisorctl signal KILL ble" is how an
//     operator forces one actor to restart, and what tests use to inject a
//     fault.
//   - HUP arrives as Reload{}, "re-read your configuration".
//   - Any other known signal arrives as Signal{Name: "USR1"} (no SIG
//     prefix); unknown names fail with ErrBadSignal.
//
// Each service keeps its recent log in a Ring of at least 64 KiB, and a
// main ring (name "") gets every line, the supervisor's own included, so
// "supervisorctl tail -f ble" and "supervisorctl maintail" work.
package supervisor

import (
	"errors"
	"time"
)

// State is a process state with supervisord's names and numeric codes, so
// that supervisorctl prints what its users already know.
type State int

const (
	Stopped  State = 0
	Starting State = 10
	Running  State = 20
	Backoff  State = 30
	Stopping State = 40
	Exited   State = 100
	Fatal    State = 200
	Unknown  State = 1000
)

// String returns supervisord's state name, e.g. "RUNNING".
func (s State) String() string {
	switch s {
	case Stopped:
		return "STOPPED"
	case Starting:
		return "STARTING"
	case Running:
		return "RUNNING"
	case Backoff:
		return "BACKOFF"
	case Stopping:
		return "STOPPING"
	case Exited:
		return "EXITED"
	case Fatal:
		return "FATAL"
	}
	return "UNKNOWN"
}

// ProcessInfo is one supervised actor as supervisorctl sees it.
type ProcessInfo struct {
	Name        string
	Group       string // each actor is its own group, as a supervisord [program:x]
	State       State
	Description string    // live human line, e.g. "advertising as Claude_Pi · 1 central"
	Start       time.Time // last start; zero if never started
	Stop        time.Time // last stop; zero if never stopped
	SpawnErr    string    // last error that made it restart or give up
	ExitStatus  int
	PID         int // actors share the appliance's PID
	// DownSince is when the service last left RUNNING, or first failed
	// to reach it, through BACKOFF and FATAL until it runs again; zero
	// while RUNNING and before its first start. The screen and doctor
	// say "approvals down since 20:31" from it.
	DownSince time.Time
}

// Errors a Backend returns; the control socket maps them onto supervisord's
// XML-RPC fault codes so that supervisorctl prints its usual messages.
var (
	ErrBadName        = errors.New("no such process")
	ErrAlreadyStarted = errors.New("already started")
	ErrNotRunning     = errors.New("not running")
	ErrSpawn          = errors.New("spawn error")
	ErrBadSignal      = errors.New("bad signal")
	ErrBadArguments   = errors.New("bad arguments")
)
