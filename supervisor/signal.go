package supervisor

import (
	"fmt"
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

// signals maps the names supervisorctl accepts onto Linux numbers, which it
// also accepts ("signal 9 ble").
var signals = map[string]int{
	"HUP": 1, "INT": 2, "QUIT": 3, "ILL": 4, "TRAP": 5, "ABRT": 6, "BUS": 7,
	"FPE": 8, "KILL": 9, "USR1": 10, "SEGV": 11, "USR2": 12, "PIPE": 13,
	"ALRM": 14, "TERM": 15, "CHLD": 17, "CONT": 18, "STOP": 19, "TSTP": 20,
	"TTIN": 21, "TTOU": 22, "URG": 23, "XCPU": 24, "XFSZ": 25, "VTALRM": 26,
	"PROF": 27, "WINCH": 28, "IO": 29, "PWR": 30, "SYS": 31,
}

// signalName normalises "sighup", "HUP" or "1" to "HUP".
func signalName(s string) (string, error) {
	u := strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(s)), "SIG")
	if _, ok := signals[u]; ok {
		return u, nil
	}
	if n, err := strconv.Atoi(u); err == nil {
		for name, num := range signals {
			if num == n {
				return name, nil
			}
		}
	}
	return "", fmt.Errorf("%w: %q", ErrBadSignal, s)
}

// killed is the failure a KILL signal injects; it is a value rather than a
// sentinel error so that the description reads like supervisord's.
type killed struct{}

func (killed) Error() string { return "killed by SIGKILL" }
