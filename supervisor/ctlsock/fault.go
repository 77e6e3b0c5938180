package ctlsock

import (
	"errors"
	"fmt"

	"github.com/claude-pi/claude-pi/supervisor"
)

// Fault codes, exactly supervisord's (supervisor/xmlrpc.py Faults):
// supervisorctl switches on them to choose what it prints.
const (
	UnknownMethod        = 1
	IncorrectParameters  = 2
	BadArguments         = 3
	SignatureUnsupported = 4
	ShutdownState        = 6
	BadName              = 10
	BadSignal            = 11
	NoFile               = 20
	NotExecutable        = 21
	Failed               = 30
	AbnormalTermination  = 40
	SpawnError           = 50
	AlreadyStarted       = 60
	NotRunning           = 70
	Success              = 80
	AlreadyAdded         = 90
	StillRunning         = 91
	CantReread           = 92
)

var faultNames = map[int]string{
	UnknownMethod:        "UNKNOWN_METHOD",
	IncorrectParameters:  "INCORRECT_PARAMETERS",
	BadArguments:         "BAD_ARGUMENTS",
	SignatureUnsupported: "SIGNATURE_UNSUPPORTED",
	ShutdownState:        "SHUTDOWN_STATE",
	BadName:              "BAD_NAME",
	BadSignal:            "BAD_SIGNAL",
	NoFile:               "NO_FILE",
	NotExecutable:        "NOT_EXECUTABLE",
	Failed:               "FAILED",
	AbnormalTermination:  "ABNORMAL_TERMINATION",
	SpawnError:           "SPAWN_ERROR",
	AlreadyStarted:       "ALREADY_STARTED",
	NotRunning:           "NOT_RUNNING",
	Success:              "SUCCESS",
	AlreadyAdded:         "ALREADY_ADDED",
	StillRunning:         "STILL_RUNNING",
	CantReread:           "CANT_REREAD",
}

// Fault is an XML-RPC fault. It is also the error Client.Call returns when
// the server answers with one.
type Fault struct {
	Code   int
	String string
}

// newFault builds a fault the way supervisord does: the code's name,
// then ": extra" when there is something to add ("BAD_NAME: foo").
func newFault(code int, extra string) *Fault {
	name, ok := faultNames[code]
	if !ok {
		name = "UNKNOWN"
	}
	if extra != "" {
		name += ": " + extra
	}
	return &Fault{Code: code, String: name}
}

// Error reports the code and supervisord's fault string.
func (f *Fault) Error() string {
	return fmt.Sprintf("xmlrpc fault %d: %s", f.Code, f.String)
}

func (f *Fault) toStruct() map[string]any {
	return map[string]any{"faultCode": f.Code, "faultString": f.String}
}

// faultFor maps a Backend error onto supervisord's fault for it. name is
// what the caller asked for, which supervisord echoes in the fault string.
// fallback is used for errors that are none of the sentinels: start
// failures must stay within the codes supervisorctl's _startresult knows.
func faultFor(err error, name string, fallback int) *Fault {
	var f *Fault
	switch {
	case errors.As(err, &f):
		return f
	case errors.Is(err, supervisor.ErrBadName):
		return newFault(BadName, name)
	case errors.Is(err, supervisor.ErrAlreadyStarted):
		return newFault(AlreadyStarted, name)
	case errors.Is(err, supervisor.ErrNotRunning):
		return newFault(NotRunning, name)
	case errors.Is(err, supervisor.ErrSpawn):
		return newFault(SpawnError, name)
	case errors.Is(err, supervisor.ErrBadSignal):
		return newFault(BadSignal, name)
	case errors.Is(err, supervisor.ErrBadArguments):
		return newFault(BadArguments, err.Error())
	}
	return newFault(fallback, fmt.Sprintf("%s: %v", name, err))
}
