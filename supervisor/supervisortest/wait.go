package supervisortest

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/supervisor"
)

// Within waits up to d for ok. It checks at once, then ever less often (2
// ms growing to 100 ms): a quick condition is seen within milliseconds,
// and a slow one that runs a process or asks over HTTP does not take the
// CPU the code under test needs.
func Within(t testing.TB, d time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for every := 2 * time.Millisecond; !ok(); every = min(every*3/2, 100*time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(every)
	}
}

// WaitState waits for the named service to reach want, and returns its
// row of the process table.
func WaitState(t testing.TB, tree *supervisor.Tree, name string, want supervisor.State) supervisor.ProcessInfo {
	t.Helper()
	var p supervisor.ProcessInfo
	Within(t, Patience, name+" "+want.String(), func() bool { p, _ = tree.Process(name); return p.State == want })
	return p
}

// tryWait bounds TryAsk: a RUNNING service answers from its mailbox at
// once, one in BACKOFF never.
const tryWait = 200 * time.Millisecond

// TryAsk is Ask without failing the test, for a service that may be
// stopped or restarting.
func TryAsk[T any](tree *supervisor.Tree, service string, msg any) (T, error) {
	var zero T
	sys := tree.System()
	r, err := sys.Root.RequestFuture(supervisor.ServicePID(sys, service), msg, tryWait).Result()
	if err != nil {
		return zero, fmt.Errorf("asking %s: %w", service, err)
	}
	v, ok := r.(T)
	if !ok {
		return zero, fmt.Errorf("%s answered %T, want %T", service, r, zero)
	}
	return v, nil
}

// SyncBuffer is a bytes.Buffer a tree's goroutines write (its log, say)
// while the test reads it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
