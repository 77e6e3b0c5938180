package sdnotify

import "sync"

// Recorder is the fake Notifier: it keeps every state sent, and sends a
// copy of each on C if C is not nil.
type Recorder struct {
	C chan string

	mu   sync.Mutex
	sent []string
}

// Notify records state.
func (r *Recorder) Notify(state string) error {
	r.mu.Lock()
	r.sent = append(r.sent, state)
	r.mu.Unlock()
	if r.C != nil {
		r.C <- state
	}
	return nil
}

// Sent is every state sent so far, in order.
func (r *Recorder) Sent() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.sent...)
}
