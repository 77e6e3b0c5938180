package supervisor

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Reload is delivered to an actor on "supervisorctl signal HUP name": the
// conventional "re-read your configuration". Actors that have nothing to
// reload may ignore it.
type Reload struct{}

// Signal is delivered to an actor for any other known signal except KILL,
// e.g. Signal{Name: "USR1"}. Name has no "SIG" prefix.
type Signal struct {
	Name string
}

// signals are the Linux signals supervisord's signal_number accepts,
// indexed by number: this tree and its control socket take exactly these,
// by name ("HUP", "SIGHUP") or number ("signal 9 ble").
var signals = [...]string{
	1: "HUP", 2: "INT", 3: "QUIT", 4: "ILL", 5: "TRAP", 6: "ABRT", 7: "BUS", 8: "FPE",
	9: "KILL", 10: "USR1", 11: "SEGV", 12: "USR2", 13: "PIPE", 14: "ALRM", 15: "TERM",
	16: "STKFLT", 17: "CHLD", 18: "CONT", 19: "STOP", 20: "TSTP", 21: "TTIN", 22: "TTOU",
	23: "URG", 24: "XCPU", 25: "XFSZ", 26: "VTALRM", 27: "PROF", 28: "WINCH", 29: "IO",
	30: "PWR", 31: "SYS",
}

// signalAliases are the other names Python's signal module (and so
// supervisord) knows for three of them.
var signalAliases = map[string]string{"IOT": "ABRT", "POLL": "IO", "CLD": "CHLD"}

// SignalName normalises "sighup", "HUP", "1" or an alias ("IOT") to the
// name an actor is signalled with ("HUP", "ABRT"); anything else is
// ErrBadSignal. The control socket maps supervisorctl's argument with it.
func SignalName(s string) (string, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.Atoi(s); err == nil {
		if n > 0 && n < len(signals) {
			return signals[n], nil
		}
		return "", fmt.Errorf("%w: %q", ErrBadSignal, s)
	}
	name := strings.TrimPrefix(strings.ToUpper(s), "SIG")
	if a, ok := signalAliases[name]; ok {
		return a, nil
	}
	if name != "" && slices.Contains(signals[:], name) {
		return name, nil
	}
	return "", fmt.Errorf("%w: %q", ErrBadSignal, s)
}

// killed is the failure a KILL signal injects; it is a value rather than a
// sentinel error so that the description reads like supervisord's.
type killed struct{}

func (killed) Error() string { return "killed by SIGKILL" }
