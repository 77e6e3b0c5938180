package ctlsock

import (
	"math"
	"sort"
	"strings"
	"time"

	"github.com/claude-pi/claude-pi/supervisor"
)

func init() {
	constant := func(v string) func(*rpc, params) (any, *Fault) {
		return func(*rpc, params) (any, *Fault) { return v, nil }
	}
	register("supervisor.getVersion", method{fn: constant(APIVersion), signature: []string{"string"},
		help: "Return the version of the RPC API (deprecated alias of getAPIVersion)."})
	register("supervisor.getAPIVersion", method{fn: constant(APIVersion), signature: []string{"string"},
		help: "Return the version of the RPC API used by the control socket."})
	register("supervisor.getSupervisorVersion", method{fn: constant(SupervisorVersion), signature: []string{"string"},
		help: "Return the supervisord version whose interface this socket speaks."})
	register("supervisor.getIdentification", method{
		fn:        func(r *rpc, _ params) (any, *Fault) { return r.b.Identification(), nil },
		signature: []string{"string"},
		help:      "Return the identifying string of this supervisor."})
	register("supervisor.getState", method{
		// The tree is RUNNING whenever it can answer; supervisord's other
		// moods (RESTARTING, SHUTDOWN) have no counterpart here.
		fn: func(*rpc, params) (any, *Fault) {
			return map[string]any{"statecode": 1, "statename": "RUNNING"}, nil
		},
		signature: []string{"struct"},
		help:      "Return the supervisor's state as {statecode, statename}."})
	register("supervisor.getPID", method{
		fn:        func(r *rpc, _ params) (any, *Fault) { return r.b.PID(), nil },
		signature: []string{"int"},
		help:      "Return the PID of the appliance."})
	register("supervisor.getProcessInfo", method{fn: (*rpc).getProcessInfo, min: 1, max: 1,
		signature: []string{"struct", "string"},
		help:      "Return info about one process (name or group:name)."})
	register("supervisor.getAllProcessInfo", method{fn: (*rpc).getAllProcessInfo,
		signature: []string{"array"},
		help:      "Return info about every process, sorted by group and name."})
	register("supervisor.getAllConfigInfo", method{fn: (*rpc).getAllConfigInfo,
		signature: []string{"array"},
		help:      "Return the configuration of every process."})
}

// processes returns the Backend's list with Group filled in: an actor
// without one is its own group, as a supervisord [program:x] is.
func (r *rpc) processes() []supervisor.ProcessInfo {
	ps := r.b.Processes()
	for i := range ps {
		if ps[i].Group == "" {
			ps[i].Group = ps[i].Name
		}
	}
	return ps
}

// splitNamespec parses "name", "group:name", "group:*" or "group:" the way
// supervisord does; process is "" when the whole group is meant.
func splitNamespec(spec string) (group, process string) {
	g, p, ok := strings.Cut(spec, ":")
	if !ok {
		return spec, spec
	}
	if p == "*" {
		p = ""
	}
	return g, p
}

func namespec(p supervisor.ProcessInfo) string {
	if p.Group == p.Name {
		return p.Name
	}
	return p.Group + ":" + p.Name
}

// lookup resolves a namespec into the processes it names: one process,
// or a whole group when process is "". Unknown names are BAD_NAME.
func (r *rpc) lookup(spec string) (ps []supervisor.ProcessInfo, wholeGroup bool, f *Fault) {
	group, process := splitNamespec(spec)
	for _, p := range r.processes() {
		if p.Group == group && (process == "" || p.Name == process) {
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 {
		return nil, false, newFault(BadName, spec)
	}
	return ps, process == "", nil
}

// named is the opening of every method whose first parameter is a
// namespec: the spec as sent and the processes it names (lookup).
func (r *rpc) named(p params) (spec string, ps []supervisor.ProcessInfo, wholeGroup bool, f *Fault) {
	spec, f = p.string(0)
	if f != nil {
		return "", nil, false, f
	}
	ps, wholeGroup, f = r.lookup(spec)
	return spec, ps, wholeGroup, f
}

// one resolves a namespec for a method that acts on a single process:
// "group:*" is BAD_NAME there, as in supervisord.
func (r *rpc) one(spec string) (supervisor.ProcessInfo, *Fault) {
	ps, wholeGroup, f := r.lookup(spec)
	if f != nil {
		return supervisor.ProcessInfo{}, f
	}
	if wholeGroup {
		return supervisor.ProcessInfo{}, newFault(BadName, spec)
	}
	return ps[0], nil
}

// oneNamed is the opening of a method that acts on the single process
// its first parameter names.
func (r *rpc) oneNamed(p params) (spec string, proc supervisor.ProcessInfo, f *Fault) {
	spec, f = p.string(0)
	if f != nil {
		return "", supervisor.ProcessInfo{}, f
	}
	proc, f = r.one(spec)
	return spec, proc, f
}

func (r *rpc) getProcessInfo(p params) (any, *Fault) {
	_, proc, f := r.oneNamed(p)
	if f != nil {
		return nil, f
	}
	return r.info(proc), nil
}

func (r *rpc) getAllProcessInfo(params) (any, *Fault) {
	ps := r.processes()
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].Group != ps[j].Group {
			return ps[i].Group < ps[j].Group
		}
		return ps[i].Name < ps[j].Name
	})
	out := make([]any, len(ps))
	for i, p := range ps {
		out[i] = r.info(p)
	}
	return out, nil
}

// Where an actor's log lives, as reported in the info structs. Actors log
// to an in-memory ring, one stream: stderr is folded into stdout, as with
// supervisord's redirect_stderr=true, so stderr has no log of its own.
const stdoutLogfile = "(memory)"

// info renders one process as supervisord's struct, field for field.
// supervisorctl prints description verbatim, so the actor's own live
// description wins; supervisord's computed one is the fallback.
func (r *rpc) info(p supervisor.ProcessInfo) map[string]any {
	now := r.now()
	desc := p.Description
	if desc == "" {
		desc = supervisor.Describe(p, now)
	}
	return map[string]any{
		"name":           p.Name,
		"group":          p.Group,
		"description":    desc,
		"start":          unixCapped(p.Start),
		"stop":           unixCapped(p.Stop),
		"now":            unixCapped(now),
		"state":          int(p.State),
		"statename":      p.State.String(),
		"spawnerr":       p.SpawnErr,
		"exitstatus":     p.ExitStatus,
		"logfile":        stdoutLogfile,
		"stdout_logfile": stdoutLogfile,
		"stderr_logfile": "",
		"pid":            p.PID,
	}
}

// unixCapped is supervisord's capped_int on a timestamp: XML-RPC ints are
// 32-bit, and a never-set time is 0.
func unixCapped(t time.Time) int {
	if t.IsZero() {
		return 0
	}
	return int(max(math.MinInt32, min(math.MaxInt32, t.Unix())))
}

// getAllConfigInfo reports each actor as an always-in-use, autostarted
// program; priority is its place in start order so that `avail` lists it
// in a meaningful way.
func (r *rpc) getAllConfigInfo(params) (any, *Fault) {
	ps := r.processes()
	out := make([]map[string]any, len(ps))
	for i, p := range ps {
		out[i] = map[string]any{
			"name":            p.Name,
			"group":           p.Group,
			"inuse":           true,
			"autostart":       true,
			"group_prio":      i + 1,
			"process_prio":    i + 1,
			"command":         "actor " + p.Name,
			"directory":       "none",
			"uid":             "none",
			"exitcodes":       []any{0},
			"killasgroup":     false,
			"redirect_stderr": true,
			"startretries":    3,
			"startsecs":       1,
			"stopsignal":      15,
			"stopwaitsecs":    10,
			"stdout_logfile":  stdoutLogfile,
			"stderr_logfile":  "none",
			"serverurl":       "AUTO",
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i]["name"].(string) < out[j]["name"].(string) })
	return out, nil
}
