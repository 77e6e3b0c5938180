package ctlsock

import (
	"github.com/claude-pi/claude-pi/supervisor"
)

func init() {
	readSig := []string{"string", "string", "int", "int"}
	tailSig := []string{"array", "string", "int", "int"}
	for _, alias := range []string{"supervisor.readProcessStdoutLog", "supervisor.readProcessLog"} {
		register(alias, method{fn: (*rpc).readStdout, min: 3, max: 3, signature: readSig,
			help: "Read length bytes of a process's log from offset (negative offset: from the end, length 0)."})
	}
	register("supervisor.readProcessStderrLog", method{fn: (*rpc).readStderr, min: 3, max: 3, signature: readSig,
		help: "Actors have no separate stderr log; always NO_FILE after the name is checked."})
	for _, alias := range []string{"supervisor.tailProcessStdoutLog", "supervisor.tailProcessLog"} {
		register(alias, method{fn: (*rpc).tailStdout, min: 3, max: 3, signature: tailSig,
			help: "Return [bytes, next offset, overflow] for up to length bytes of a process's log from offset."})
	}
	register("supervisor.tailProcessStderrLog", method{fn: (*rpc).tailStderr, min: 3, max: 3, signature: tailSig,
		help: "Actors have no separate stderr log; always ['', 0, false]."})
	for _, alias := range []string{"supervisor.readLog", "supervisor.readMainLog"} {
		register(alias, method{fn: (*rpc).readMainLog, min: 2, max: 2, signature: []string{"string", "int", "int"},
			help: "Read length bytes of the supervisor's own log from offset."})
	}
	register("supervisor.clearLog", method{fn: (*rpc).clearMainLog, signature: []string{"boolean"},
		help: "Clear the supervisor's own log."})
	for _, alias := range []string{"supervisor.clearProcessLogs", "supervisor.clearProcessLog"} {
		register(alias, method{fn: (*rpc).clearProcessLogs, min: 1, max: 1, signature: []string{"boolean", "string"},
			help: "Clear a process's log."})
	}
	register("supervisor.clearAllProcessLogs", method{fn: (*rpc).clearAllProcessLogs, signature: []string{"array"},
		help: "Clear every process's log; return one result struct each."})
}

// logWindow is a log as supervisord's file-reading helpers see it: a file
// of size total, of which only the last len(kept) bytes still exist.
type logWindow struct {
	kept  []byte
	total int64
}

// slice returns the retained bytes of [lo, hi); bytes that fell out of
// the ring are silently missing, as if the file had been rotated.
func (w logWindow) slice(lo, hi int64) []byte {
	base := w.total - int64(len(w.kept))
	lo = max(lo, base)
	hi = min(hi, w.total)
	if lo >= hi {
		return nil
	}
	return w.kept[lo-base : hi-base]
}

// read is supervisord's readFile: a negative offset reads that many bytes
// from the end (and then length must be 0); length 0 reads to the end.
func (w logWindow) read(offset, length int64) ([]byte, *Fault) {
	if offset < 0 {
		if length != 0 {
			return nil, newFault(BadArguments, "")
		}
		pos := max(0, w.total+offset)
		return w.slice(pos, pos-offset), nil
	}
	switch {
	case length < 0:
		return nil, newFault(BadArguments, "")
	case length == 0:
		return w.slice(offset, w.total), nil
	}
	return w.slice(offset, offset+length), nil
}

// tail is supervisord's tailFile, step for step, including its overflow
// rule: when the log has grown past offset+length, skip to the newest
// length bytes and say so.
func (w logWindow) tail(offset, length int64) []any {
	sz := w.total
	overflow := false
	if sz > offset+length {
		overflow = true
		offset = sz - 1
	}
	if offset+length > sz {
		if offset > sz-1 {
			length = 0
		}
		offset = sz - length
	}
	offset = max(offset, 0)
	length = max(length, 0)
	var data []byte
	if length > 0 {
		data = w.slice(offset, offset+length)
	}
	return []any{string(data), int(sz), overflow}
}

// processLog resolves one process (a group is BAD_NAME, as in
// supervisord) and fetches its log window.
func (r *rpc) processLog(spec string) (logWindow, *Fault) {
	proc, f := r.one(spec)
	if f != nil {
		return logWindow{}, f
	}
	kept, total, err := r.b.Log(proc.Name)
	if err != nil {
		return logWindow{}, faultFor(err, spec, Failed)
	}
	return logWindow{kept, total}, nil
}

// logRequest is the opening of the four process log methods: it reads
// (name, offset, length) and fetches the named process's log window.
func (r *rpc) logRequest(p params) (w logWindow, off, n int64, f *Fault) {
	spec, f := p.string(0)
	if f != nil {
		return logWindow{}, 0, 0, f
	}
	o, f := p.int(1)
	if f != nil {
		return logWindow{}, 0, 0, f
	}
	l, f := p.int(2)
	if f != nil {
		return logWindow{}, 0, 0, f
	}
	w, f = r.processLog(spec)
	return w, int64(o), int64(l), f
}

func (r *rpc) readStdout(p params) (any, *Fault) {
	w, off, n, f := r.logRequest(p)
	if f != nil {
		return nil, f
	}
	b, f := w.read(off, n)
	if f != nil {
		return nil, f
	}
	return string(b), nil
}

func (r *rpc) tailStdout(p params) (any, *Fault) {
	w, off, n, f := r.logRequest(p)
	if f != nil {
		return nil, f
	}
	return w.tail(off, n), nil
}

// stderr is merged into stdout: the stderr methods check their request as
// the stdout ones do, then answer with no file or an empty tail.

func (r *rpc) readStderr(p params) (any, *Fault) {
	if _, _, _, f := r.logRequest(p); f != nil {
		return nil, f
	}
	return nil, newFault(NoFile, "stderr is merged into stdout")
}

func (r *rpc) tailStderr(p params) (any, *Fault) {
	if _, _, _, f := r.logRequest(p); f != nil {
		return nil, f
	}
	return []any{"", 0, false}, nil
}

func (r *rpc) readMainLog(p params) (any, *Fault) {
	off, f := p.int(0)
	if f != nil {
		return nil, f
	}
	n, f := p.int(1)
	if f != nil {
		return nil, f
	}
	kept, total, err := r.b.Log("")
	if err != nil {
		return nil, faultFor(err, "main log", NoFile)
	}
	b, f := logWindow{kept, total}.read(int64(off), int64(n))
	if f != nil {
		return nil, f
	}
	return string(b), nil
}

func (r *rpc) clearMainLog(params) (any, *Fault) {
	if err := r.b.ClearLog(""); err != nil {
		return nil, faultFor(err, "main log", Failed)
	}
	return true, nil
}

func (r *rpc) clearProcessLogs(p params) (any, *Fault) {
	spec, proc, f := r.oneNamed(p)
	if f != nil {
		return nil, f
	}
	if f := r.clear(spec, proc); f != nil {
		return nil, f
	}
	return true, nil
}

func (r *rpc) clear(spec string, p supervisor.ProcessInfo) *Fault {
	if err := r.b.ClearLog(p.Name); err != nil {
		return faultFor(err, spec, Failed)
	}
	return nil
}

func (r *rpc) clearAllProcessLogs(params) (any, *Fault) {
	return r.forEach(r.processes(), func(supervisor.State) bool { return true },
		func(p supervisor.ProcessInfo) *Fault { return r.clear(namespec(p), p) }), nil
}
