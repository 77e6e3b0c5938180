package ctlsock

import "github.com/claude-pi/claude-pi/supervisor"

// Backend is what the control socket needs from the supervision tree.
// supervisor.Tree implements it; tests use a fake.
//
// Errors are the sentinels of package supervisor (possibly wrapped), which
// the socket maps onto supervisord's XML-RPC faults.
type Backend interface {
	// Processes lists every supervised actor in start order.
	Processes() []supervisor.ProcessInfo
	// Process returns one actor, or supervisor.ErrBadName.
	Process(name string) (supervisor.ProcessInfo, error)
	// StartProcess starts a stopped or fatal actor. With wait it returns
	// once the actor is RUNNING (or failed to get there).
	StartProcess(name string, wait bool) error
	// StopProcess stops a running actor. With wait it returns once STOPPED.
	StopProcess(name string, wait bool) error
	// SignalProcess delivers a named signal ("HUP", "TERM", ...) to an actor.
	SignalProcess(name, signal string) error
	// Log returns the retained tail of an actor's log and the total number
	// of bytes ever written to it (supervisord's offsets count from the
	// start of the log). name "" is the main (supervisor's own) log.
	Log(name string) (retained []byte, total int64, err error)
	// FollowLog streams new log bytes until stop is called (tail -f).
	FollowLog(name string) (ch <-chan []byte, stop func(), err error)
	// ClearLog empties an actor's log ("" for the main log).
	ClearLog(name string) error
	// Identification is supervisord's identifier, e.g. "claude-pi".
	Identification() string
	// PID is the appliance's process id.
	PID() int
}
