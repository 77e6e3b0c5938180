package ctlsock

import (
	"errors"
	"slices"

	"github.com/claude-pi/claude-pi/supervisor"
)

func init() {
	register("supervisor.startProcess", method{fn: (*rpc).startProcess, min: 1, max: 2,
		signature: []string{"boolean", "string", "boolean"},
		help:      "Start a process (name, group:name or group:*); wait for RUNNING unless wait is false."})
	register("supervisor.stopProcess", method{fn: (*rpc).stopProcess, min: 1, max: 2,
		signature: []string{"boolean", "string", "boolean"},
		help:      "Stop a process (name, group:name or group:*); wait for STOPPED unless wait is false."})
	register("supervisor.startProcessGroup", method{fn: (*rpc).startProcessGroup, min: 1, max: 2,
		signature: []string{"array", "string", "boolean"},
		help:      "Start every process of a group; return one result struct each."})
	register("supervisor.stopProcessGroup", method{fn: (*rpc).stopProcessGroup, min: 1, max: 2,
		signature: []string{"array", "string", "boolean"},
		help:      "Stop every process of a group; return one result struct each."})
	register("supervisor.startAllProcesses", method{fn: (*rpc).startAllProcesses, max: 1,
		signature: []string{"array", "boolean"},
		help:      "Start every process that is not running, in start order."})
	register("supervisor.stopAllProcesses", method{fn: (*rpc).stopAllProcesses, max: 1,
		signature: []string{"array", "boolean"},
		help:      "Stop every running process, in reverse start order."})
	register("supervisor.signalProcess", method{fn: (*rpc).signalProcess, min: 2, max: 2,
		signature: []string{"boolean", "string", "string"},
		help:      "Send a signal, by name (HUP) or number (1), to a process."})
	register("supervisor.signalProcessGroup", method{fn: (*rpc).signalProcessGroup, min: 2, max: 2,
		signature: []string{"array", "string", "string"},
		help:      "Send a signal to every process of a group."})
	register("supervisor.signalAllProcesses", method{fn: (*rpc).signalAllProcesses, min: 1, max: 1,
		signature: []string{"array", "string"},
		help:      "Send a signal to every signallable process."})
}

// supervisord's state classes (supervisor/states.py).
func isRunning(s supervisor.State) bool {
	return s == supervisor.Running || s == supervisor.Backoff || s == supervisor.Starting
}

func isSignallable(s supervisor.State) bool {
	return s == supervisor.Running || s == supervisor.Starting || s == supervisor.Stopping
}

func (r *rpc) startProcess(p params) (any, *Fault) {
	wait, f := p.wait(1)
	if f != nil {
		return nil, f
	}
	return r.onSpec(p, func(s supervisor.State) bool { return !isRunning(s) },
		func(spec string, p supervisor.ProcessInfo) *Fault { return r.start(spec, p, wait) })
}

// onSpec runs act on the process named by the first parameter, or, for
// "group:*", on each of the group's processes that pred selects; like
// supervisord, one process answers true or a fault, a group a list of
// per-process results.
func (r *rpc) onSpec(p params, pred func(supervisor.State) bool,
	act func(spec string, p supervisor.ProcessInfo) *Fault) (any, *Fault) {
	spec, ps, group, f := r.named(p)
	if f != nil {
		return nil, f
	}
	if group {
		return r.forEach(ps, pred, func(p supervisor.ProcessInfo) *Fault { return act(namespec(p), p) }), nil
	}
	if f := act(spec, ps[0]); f != nil {
		return nil, f
	}
	return true, nil
}

func (r *rpc) start(spec string, p supervisor.ProcessInfo, wait bool) *Fault {
	switch {
	case isRunning(p.State):
		return newFault(AlreadyStarted, spec)
	case p.State == supervisor.Unknown:
		return newFault(Failed, spec+" is in an unknown process state")
	}
	if err := r.b.StartProcess(p.Name, wait); err != nil {
		// supervisorctl only knows the start codes; anything else that
		// kept the actor from RUNNING is an abnormal termination.
		return faultFor(err, spec, AbnormalTermination)
	}
	return nil
}

func (r *rpc) stopProcess(p params) (any, *Fault) {
	wait, f := p.wait(1)
	if f != nil {
		return nil, f
	}
	return r.onSpec(p, isRunning,
		func(spec string, p supervisor.ProcessInfo) *Fault { return r.stop(spec, p, wait) })
}

func (r *rpc) stop(spec string, p supervisor.ProcessInfo, wait bool) *Fault {
	if !isRunning(p.State) {
		return newFault(NotRunning, spec)
	}
	if err := r.b.StopProcess(p.Name, wait); err != nil {
		return faultFor(err, spec, Failed)
	}
	return nil
}

// group returns the processes of a group named exactly (no namespec).
func (r *rpc) group(p params) ([]supervisor.ProcessInfo, *Fault) {
	name, f := p.string(0)
	if f != nil {
		return nil, f
	}
	var ps []supervisor.ProcessInfo
	for _, q := range r.processes() {
		if q.Group == name {
			ps = append(ps, q)
		}
	}
	if len(ps) == 0 {
		return nil, newFault(BadName, name)
	}
	return ps, nil
}

// groupAnd is the opening of the *ProcessGroup methods: the group named
// by the first parameter and the second parameter, read by second.
func groupAnd[T any](r *rpc, p params, second func(params) (T, *Fault)) ([]supervisor.ProcessInfo, T, *Fault) {
	var zero T
	ps, f := r.group(p)
	if f != nil {
		return nil, zero, f
	}
	v, f := second(p)
	if f != nil {
		return nil, zero, f
	}
	return ps, v, nil
}

func waitAt(i int) func(params) (bool, *Fault) {
	return func(p params) (bool, *Fault) { return p.wait(i) }
}
func stringAt(i int) func(params) (string, *Fault) {
	return func(p params) (string, *Fault) { return p.string(i) }
}

// startEach starts each process of ps that is not running, in order.
func (r *rpc) startEach(ps []supervisor.ProcessInfo, wait bool) []map[string]any {
	return r.forEach(ps, func(s supervisor.State) bool { return !isRunning(s) },
		func(p supervisor.ProcessInfo) *Fault { return r.start(namespec(p), p, wait) })
}

// stopEach stops each running process of ps in reverse order, unlike
// supervisord (which uses priority order both ways): actors started later
// depend on earlier ones, so they go first.
func (r *rpc) stopEach(ps []supervisor.ProcessInfo, wait bool) []map[string]any {
	slices.Reverse(ps)
	return r.forEach(ps, isRunning,
		func(p supervisor.ProcessInfo) *Fault { return r.stop(namespec(p), p, wait) })
}

// signalEach signals each signallable process of ps.
func (r *rpc) signalEach(ps []supervisor.ProcessInfo, sig string) []map[string]any {
	return r.forEach(ps, isSignallable,
		func(p supervisor.ProcessInfo) *Fault { return r.signal(namespec(p), p, sig) })
}

func (r *rpc) startProcessGroup(p params) (any, *Fault) {
	ps, wait, f := groupAnd(r, p, waitAt(1))
	if f != nil {
		return nil, f
	}
	return r.startEach(ps, wait), nil
}

func (r *rpc) stopProcessGroup(p params) (any, *Fault) {
	ps, wait, f := groupAnd(r, p, waitAt(1))
	if f != nil {
		return nil, f
	}
	return r.stopEach(ps, wait), nil
}

func (r *rpc) signalProcessGroup(p params) (any, *Fault) {
	ps, sig, f := groupAnd(r, p, stringAt(1))
	if f != nil {
		return nil, f
	}
	return r.signalEach(ps, sig), nil
}

func (r *rpc) startAllProcesses(p params) (any, *Fault) {
	wait, f := p.wait(0)
	if f != nil {
		return nil, f
	}
	return r.startEach(r.processes(), wait), nil
}

func (r *rpc) stopAllProcesses(p params) (any, *Fault) {
	wait, f := p.wait(0)
	if f != nil {
		return nil, f
	}
	return r.stopEach(r.processes(), wait), nil
}

func (r *rpc) signalAllProcesses(p params) (any, *Fault) {
	sig, f := p.string(0)
	if f != nil {
		return nil, f
	}
	return r.signalEach(r.processes(), sig), nil
}

func (r *rpc) signalProcess(p params) (any, *Fault) {
	sig, f := p.string(1)
	if f != nil {
		return nil, f
	}
	return r.onSpec(p, isSignallable,
		func(spec string, p supervisor.ProcessInfo) *Fault { return r.signal(spec, p, sig) })
}

func (r *rpc) signal(spec string, p supervisor.ProcessInfo, sig string) *Fault {
	name, err := supervisor.SignalName(sig)
	if err != nil {
		return newFault(BadSignal, sig)
	}
	if !isSignallable(p.State) {
		return newFault(NotRunning, spec)
	}
	if err := r.b.SignalProcess(p.Name, name); err != nil {
		if errors.Is(err, supervisor.ErrBadSignal) {
			return newFault(BadSignal, sig)
		}
		return faultFor(err, spec, Failed)
	}
	return nil
}

// forEach is supervisord's make_allfunc: act on each process the
// predicate selects and report {name, group, status, description} for it,
// status SUCCESS/"OK" or the fault. Processes it skips are not reported.
func (r *rpc) forEach(ps []supervisor.ProcessInfo, pred func(supervisor.State) bool,
	act func(supervisor.ProcessInfo) *Fault) []map[string]any {
	out := []map[string]any{}
	for _, p := range ps {
		if !pred(p.State) {
			continue
		}
		res := map[string]any{"name": p.Name, "group": p.Group, "status": Success, "description": "OK"}
		if f := act(p); f != nil {
			res["status"], res["description"] = f.Code, f.String
		}
		out = append(out, res)
	}
	return out
}
