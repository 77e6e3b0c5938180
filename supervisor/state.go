// Package supervisor runs every service of the appliance as a supervised
// protoactor-go actor, tracks its health in supervisord's terms, and keeps
// each one's recent log lines so that the real supervisorctl can show them.
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
