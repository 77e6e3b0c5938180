package appliance

import (
	"errors"
	"fmt"
	"time"

	"github.com/claude-pi/claude-pi/actors/lan"
	"github.com/claude-pi/claude-pi/supervisor"
	"github.com/claude-pi/claude-pi/supervisor/ctlsock"
)

// RevokeMethod is the control socket's method for `pair --local
// --revoke`: it sends lan.Revoke to the running lan service.
const RevokeMethod = "claudepi.revokeClient"

// RevokeWait bounds the lan's answer: it answers from its mailbox.
const RevokeWait = 5 * time.Second

// ControlMethods are the appliance's own control-socket methods.
func ControlMethods(tree *supervisor.Tree) map[string]ctlsock.Method {
	return map[string]ctlsock.Method{RevokeMethod: revokeThrough(tree)}
}

// revokeThrough is RevokeMethod served by the appliance running tree.
func revokeThrough(tree *supervisor.Tree) ctlsock.Method {
	return func(args []string) (string, error) {
		if len(args) != 1 || args[0] == "" {
			return "", errors.New("want the name of one paired computer")
		}
		sys := tree.System()
		res, err := sys.Root.RequestFuture(supervisor.ServicePID(sys, lan.ServiceName), lan.Revoke{Name: args[0]}, RevokeWait).Result()
		if err != nil {
			return "", fmt.Errorf("the lan service did not answer (%v): see supervisorctl status lan", err)
		}
		r, _ := res.(lan.RevokeResult)
		if !r.OK {
			return "", errors.New(r.Err)
		}
		return "revoked", nil
	}
}
