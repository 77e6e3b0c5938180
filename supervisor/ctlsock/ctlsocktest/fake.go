// Package ctlsocktest provides a fake ctlsock.Backend: a few processes in
// memory whose states, logs and signals tests can drive and inspect.
package ctlsocktest

import (
	"fmt"
	"sync"
	"time"

	"github.com/claude-pi/claude-pi/supervisor"
)

// Fake is an in-memory Backend. The zero value has no processes; use New.
// It is safe for concurrent use.
type Fake struct {
	// MaxLog is how many bytes of each log are retained; older bytes
	// drop out like a ring's. Zero means 64 KiB.
	MaxLog int
	// StartErr, if set, is returned by StartProcess for that name.
	StartErr map[string]error

	mu      sync.Mutex
	procs   []supervisor.ProcessInfo
	logs    map[string]*fakeLog
	signals []string
	now     func() time.Time
}

type fakeLog struct {
	kept  []byte
	total int64
	subs  map[int]chan []byte
	next  int
}

// New returns a Fake with the named processes, all RUNNING with PID 4242
// and the given descriptions (names[i] describes as desc[i], if present).
func New(names []string, desc ...string) *Fake {
	f := &Fake{logs: map[string]*fakeLog{"": {}}, now: time.Now}
	start := time.Unix(1700000000, 0)
	for i, n := range names {
		p := supervisor.ProcessInfo{Name: n, Group: n, State: supervisor.Running, PID: 4242, Start: start}
		if i < len(desc) {
			p.Description = desc[i]
		}
		f.procs = append(f.procs, p)
		f.logs[n] = &fakeLog{}
	}
	return f
}

// SetState forces a process's state and description.
func (f *Fake) SetState(name string, s supervisor.State, desc string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if p := f.find(name); p != nil {
		p.State, p.Description = s, desc
	}
}

// Signals returns "NAME SIG" for each signal delivered, in order.
func (f *Fake) Signals() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.signals...)
}

// WriteLog appends to a process's log ("" for the main log) and feeds
// followers. Unknown names are ignored.
func (f *Fake) WriteLog(name, text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	l := f.logs[name]
	if l == nil {
		return
	}
	max := f.MaxLog
	if max == 0 {
		max = 64 << 10
	}
	l.kept = append(l.kept, text...)
	if len(l.kept) > max {
		l.kept = append([]byte(nil), l.kept[len(l.kept)-max:]...)
	}
	l.total += int64(len(text))
	for _, ch := range l.subs {
		select {
		case ch <- []byte(text):
		default: // a slow follower loses lines; the writer never blocks
		}
	}
}

func (f *Fake) find(name string) *supervisor.ProcessInfo {
	for i := range f.procs {
		if f.procs[i].Name == name {
			return &f.procs[i]
		}
	}
	return nil
}

// Processes implements ctlsock.Backend.
func (f *Fake) Processes() []supervisor.ProcessInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]supervisor.ProcessInfo(nil), f.procs...)
}

// Process implements ctlsock.Backend.
func (f *Fake) Process(name string) (supervisor.ProcessInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if p := f.find(name); p != nil {
		return *p, nil
	}
	return supervisor.ProcessInfo{}, fmt.Errorf("%q: %w", name, supervisor.ErrBadName)
}

// StartProcess implements ctlsock.Backend.
func (f *Fake) StartProcess(name string, wait bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.find(name)
	switch {
	case p == nil:
		return supervisor.ErrBadName
	case p.State == supervisor.Running:
		return supervisor.ErrAlreadyStarted
	case f.StartErr[name] != nil:
		p.State, p.SpawnErr = supervisor.Fatal, f.StartErr[name].Error()
		return f.StartErr[name]
	}
	p.State, p.Start, p.PID = supervisor.Running, f.now(), 4242
	return nil
}

// StopProcess implements ctlsock.Backend.
func (f *Fake) StopProcess(name string, wait bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.find(name)
	switch {
	case p == nil:
		return supervisor.ErrBadName
	case p.State != supervisor.Running && p.State != supervisor.Starting && p.State != supervisor.Backoff:
		return supervisor.ErrNotRunning
	}
	p.State, p.Stop, p.PID, p.Description = supervisor.Stopped, f.now(), 0, ""
	return nil
}

// SignalProcess implements ctlsock.Backend.
func (f *Fake) SignalProcess(name, signal string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.find(name) == nil {
		return supervisor.ErrBadName
	}
	f.signals = append(f.signals, name+" "+signal)
	return nil
}

// Log implements ctlsock.Backend.
func (f *Fake) Log(name string) ([]byte, int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	l := f.logs[name]
	if l == nil {
		return nil, 0, supervisor.ErrBadName
	}
	return append([]byte(nil), l.kept...), l.total, nil
}

// FollowLog implements ctlsock.Backend.
func (f *Fake) FollowLog(name string) (<-chan []byte, func(), error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	l := f.logs[name]
	if l == nil {
		return nil, nil, supervisor.ErrBadName
	}
	if l.subs == nil {
		l.subs = map[int]chan []byte{}
	}
	id := l.next
	l.next++
	ch := make(chan []byte, 64)
	l.subs[id] = ch
	var once sync.Once
	stop := func() {
		once.Do(func() {
			f.mu.Lock()
			defer f.mu.Unlock()
			delete(l.subs, id)
		})
	}
	return ch, stop, nil
}

// Followers reports how many FollowLog subscriptions are open on name.
func (f *Fake) Followers(name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if l := f.logs[name]; l != nil {
		return len(l.subs)
	}
	return 0
}

// ClearLog implements ctlsock.Backend. Like a cleared file, the log
// restarts at offset 0.
func (f *Fake) ClearLog(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	l := f.logs[name]
	if l == nil {
		return supervisor.ErrBadName
	}
	l.kept, l.total = nil, 0
	return nil
}

// Identification implements ctlsock.Backend.
func (f *Fake) Identification() string { return "claude-pi" }

// PID implements ctlsock.Backend.
func (f *Fake) PID() int { return 4242 }
