package supervisor

import "sync"

// MinLogRingBytes is the smallest per-actor log ring New accepts: enough
// for a few hundred slog lines, which is what "supervisorctl tail" shows.
const MinLogRingBytes = 64 << 10

// followBuffer is how many writes a follower may fall behind before it
// starts losing them.
const followBuffer = 256

// Ring keeps the most recent bytes written to a log and counts every byte
// ever written, so that supervisord's log offsets (which count from the
// start of the log) can be answered from a bounded buffer. It is safe for
// concurrent use.
type Ring struct {
	mu    sync.Mutex
	buf   []byte // fixed capacity; the oldest byte sits at next once full
	next  int    // where the next byte goes
	full  bool
	total int64 // bytes written since creation, never reset
	held  int   // bytes retained since the last Clear, at most len(buf)
	subs  map[*follower]struct{}
}

type follower struct {
	ch   chan []byte
	lost int64
}

// NewRing returns a ring that retains the last size bytes.
func NewRing(size int) *Ring {
	if size < 1 {
		size = 1
	}
	return &Ring{buf: make([]byte, size), subs: make(map[*follower]struct{})}
}

// Write stores p, evicting the oldest bytes when full, and hands a copy to
// every follower. It never blocks on a follower: one whose buffer is full
// misses this write, because a stalled "tail -f" must not stall the actor
// that is logging.
func (r *Ring) Write(p []byte) (int, error) {
	n := len(p)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total += int64(n)
	if len(r.subs) > 0 && n > 0 {
		c := append([]byte(nil), p...) // shared by all followers; read-only
		for f := range r.subs {
			select {
			case f.ch <- c:
			default:
				f.lost += int64(n)
			}
		}
	}
	size := len(r.buf)
	if n >= size {
		copy(r.buf, p[n-size:])
		r.next, r.full, r.held = 0, true, size
		return n, nil
	}
	k := copy(r.buf[r.next:], p)
	if k < n {
		copy(r.buf, p[k:])
	}
	if r.next+n >= size {
		r.full = true
	}
	r.next = (r.next + n) % size
	r.held = min(r.held+n, size)
	return n, nil
}

// Bytes returns a copy of the retained tail and the total number of bytes
// ever written. total-len(retained) is the offset of the first retained
// byte; it only grows, even across Clear.
func (r *Ring) Bytes() (retained []byte, total int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]byte, 0, r.held)
	start := r.next - r.held
	if start < 0 {
		out = append(out, r.buf[len(r.buf)+start:]...)
		start = 0
	}
	out = append(out, r.buf[start:r.next]...)
	return out, r.total
}

// Clear forgets the retained bytes. The total keeps counting so that a
// follower's offsets never go backwards.
func (r *Ring) Clear() {
	r.mu.Lock()
	r.held = 0
	r.mu.Unlock()
}

// Follow streams every later write until stop is called; stop closes the
// channel and may be called more than once. A reader that falls more than
// a few hundred writes behind loses data rather than slowing the writer.
// Each received slice is shared with other followers: read it, don't
// modify it.
func (r *Ring) Follow() (ch <-chan []byte, stop func()) {
	f := &follower{ch: make(chan []byte, followBuffer)}
	r.mu.Lock()
	r.subs[f] = struct{}{}
	r.mu.Unlock()
	var once sync.Once
	return f.ch, func() {
		once.Do(func() {
			r.mu.Lock()
			delete(r.subs, f)
			close(f.ch) // under the lock, so Write never sends on it closed
			r.mu.Unlock()
		})
	}
}

// lost reports how many bytes the current followers have missed.
func (r *Ring) lost() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var n int64
	for f := range r.subs {
		n += f.lost
	}
	return n
}
