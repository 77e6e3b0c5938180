package ctlsock

import (
	"strings"
	"sync/atomic"

	"github.com/claude-pi/claude-pi/supervisor"
)

// lifecycle is what supervisorctl shutdown and reload ask of the whole
// appliance, and the configuration verbs it cannot honour one group at a
// time. Faults are supervisord's, so supervisorctl prints its own messages.
type lifecycle struct {
	shutdown, restart func()
	stopping          atomic.Bool // a shutdown or restart is under way
}

func init() {
	register("supervisor.shutdown", method{fn: (*rpc).shutdown, signature: []string{"boolean"},
		help: "Stop every service and then the appliance, as supervisord's shutdown does."})
	register("supervisor.restart", method{fn: (*rpc).restart, signature: []string{"boolean"},
		help: "Stop every service, re-read the configuration file and start them all again (supervisorctl reload)."})
	register("supervisor.reloadConfig", method{fn: (*rpc).reloadConfig, signature: []string{"array"},
		help: "Always CANT_REREAD: the services are built in, so there is no group to add, change or remove; supervisorctl reload applies an edited configuration."})
	register("supervisor.addProcessGroup", method{fn: (*rpc).addProcessGroup, min: 1, max: 1,
		signature: []string{"boolean", "string"},
		help:      "ALREADY_ADDED for every built-in service (each is its own group and always active), BAD_NAME for any other name."})
	register("supervisor.removeProcessGroup", method{fn: (*rpc).removeProcessGroup, min: 1, max: 1,
		signature: []string{"boolean", "string"},
		help:      "STILL_RUNNING while the group runs; a stopped built-in service cannot be removed either (FAILED names supervisorctl stop)."})
	register("supervisor.sendProcessStdin", method{fn: (*rpc).sendProcessStdin, min: 2, max: 2,
		signature: []string{"boolean", "string", "string"},
		help:      "Always NO_FILE after the name is checked: actors read no input (supervisorctl fg only follows the log)."})
}

// shutdown answers true and then has the appliance stop, like supervisord:
// supervisorctl prints "Shut down". A second request while stopping is
// SHUTDOWN_STATE ("already shutting down").
func (r *rpc) shutdown(params) (any, *Fault) {
	return r.begin(r.life.shutdown, "shutdown")
}

// restart is supervisorctl reload: the appliance stops its services,
// re-reads its configuration and starts them again, in the same process,
// as supervisord does. supervisorctl prints "Restarted supervisord".
func (r *rpc) restart(params) (any, *Fault) {
	return r.begin(r.life.restart, "restart")
}

func (r *rpc) begin(hook func(), what string) (any, *Fault) {
	if hook == nil {
		return nil, newFault(Failed, what+" is not wired up in this program")
	}
	if !r.life.stopping.CompareAndSwap(false, true) {
		return nil, newFault(ShutdownState, "")
	}
	// The hook only starts the stop; the server finishes the calls in
	// progress (this one) before it closes the socket.
	hook()
	return true, nil
}

// reloadConfig is what supervisorctl update and reread call. supervisord
// diffs its [program:x] sections; here the services are fixed in code, so
// the honest answer names the command that does apply a changed file.
func (r *rpc) reloadConfig(params) (any, *Fault) {
	if r.life.stopping.Load() {
		return nil, newFault(ShutdownState, "")
	}
	return nil, newFault(CantReread, "claude-pi's services are built in, so there is no group to add or remove; "+
		"to apply an edited configuration file run: supervisorctl reload")
}

// configGroup looks up a group name as addProcessGroup and removeProcessGroup
// take it: a bare name, never "group:process".
func (r *rpc) configGroup(p params) (name string, ps []supervisor.ProcessInfo, f *Fault) {
	name, f = p.string(0)
	if f != nil {
		return "", nil, f
	}
	if r.life.stopping.Load() {
		return "", nil, newFault(ShutdownState, "")
	}
	if name == "" || strings.Contains(name, ":") {
		return "", nil, newFault(BadName, name)
	}
	ps, _, f = r.lookup(name)
	return name, ps, f
}

// addProcessGroup is supervisorctl add. supervisord activates a group that
// its configuration file gained; every service here is built in and always
// active, so a known name gets ALREADY_ADDED ("ERROR: process group already
// active") and any other BAD_NAME, as supervisord answers for a name its
// file lacks. Neither is a surprise fault that supervisorctl would print as
// a traceback.
func (r *rpc) addProcessGroup(p params) (any, *Fault) {
	_, _, f := r.configGroup(p)
	if f != nil {
		return nil, f
	}
	return nil, newFault(AlreadyAdded, "")
}

// removeProcessGroup is supervisorctl remove. supervisord refuses a group
// with a process not yet stopped (STILL_RUNNING), and so does this. A
// stopped service is still built in: removing it would only hide it from
// status, so the answer says how to keep it stopped instead.
func (r *rpc) removeProcessGroup(p params) (any, *Fault) {
	name, ps, f := r.configGroup(p)
	if f != nil {
		return nil, f
	}
	for _, pi := range ps {
		switch pi.State {
		case supervisor.Stopped, supervisor.Exited, supervisor.Fatal, supervisor.Unknown:
		default:
			return nil, newFault(StillRunning, name)
		}
	}
	return nil, newFault(Failed, name+" is built into claude-pi and cannot be removed; "+
		"it stays stopped until supervisorctl start "+name+" or the next start of the appliance")
}

// sendProcessStdin is what supervisorctl fg sends a typed line with.
func (r *rpc) sendProcessStdin(p params) (any, *Fault) {
	spec, f := p.string(0)
	if f != nil {
		return nil, f
	}
	if _, f := p.string(1); f != nil {
		return nil, f
	}
	ps, group, f := r.lookup(spec)
	if f != nil {
		return nil, f
	}
	if group && len(ps) != 1 {
		return nil, newFault(BadName, spec)
	}
	return nil, newFault(NoFile, ps[0].Name+" reads no input: fg only follows its log (Ctrl-C to leave)")
}
