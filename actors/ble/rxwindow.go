package ble

import (
	"context"
	"sync"

	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
)

// The RX path is driver -> forwarder goroutine -> this actor (line
// assembly) -> the Lines service (buddy), and mailboxes are unbounded:
// a central that writes faster than buddy decodes used to pile every
// line up in buddy's mailbox, so after a 20,000-heartbeat flood a press
// waited for 20,000 stale snapshots to be decoded first, and memory grew
// with the flood. The rxWindow fixes both where the lines queue:
//
//   - Coalescing. A Line message holds a slot that stays open until buddy
//     takes it. While the newest Line sent is an untaken heartbeat and the
//     next line is a heartbeat that supersedes it (pbuddy.Supersedes: it
//     carries every field the older one set), the newer one replaces the
//     older in that slot instead of queueing behind it. Anything else sent
//     to buddy (a command, a turn event, a keepalive, a LineError, a
//     LinkState) closes the slot, so a heartbeat is never moved past
//     another line and the order of everything buddy sees is kept: the
//     only lines that vanish are heartbeats a newer heartbeat replaced
//     before any other line came between them.
//   - Backpressure. The weight of lines sent and not yet taken is capped,
//     and so is the number of driver events forwarded and not yet
//     handled. Past either cap the forwarder stops taking events from the
//     driver, which stops reading: the sim socket's TCP window closes, and
//     the BLE backends hold the central's writes. No line is dropped to
//     stay under the cap.
//
// A buddy that restarts loses its mailbox with the slots in it; its new
// incarnation subscribes again, and that Subscribe resets the window.
type rxWindow struct {
	mu       sync.Mutex
	held     int   // weight of the Lines sent and not yet taken
	inflight int   // driver events forwarded and not yet handled
	last     *slot // the newest Line sent, if an untaken heartbeat
	gen      int   // bumped by reset: older slots no longer count
	room     chan struct{}
}

// Window limits. maxHeld is far above what a healthy buddy lets queue
// (it takes a line in microseconds) and above one line of nus's
// DefaultMaxLine, so one line always fits.
const (
	maxHeld     = 256 << 10
	maxInflight = 16
	// slotOverhead is added to a line's length for its weight, so a
	// flood of tiny lines is capped too.
	slotOverhead = 64
)

// slot is one Line's content until buddy takes it.
type slot struct {
	w     *rxWindow
	gen   int
	data  []byte
	class pbuddy.LineClass
	taken bool
}

func newRXWindow() *rxWindow { return &rxWindow{room: make(chan struct{}, 1)} }

// offer puts a copy of line on its way to buddy. It returns the slot to
// send in a Line, or nil when the line went into the slot already sent.
func (w *rxWindow) offer(line []byte) *slot {
	class := pbuddy.Classify(line)
	w.mu.Lock()
	defer w.mu.Unlock()
	if s := w.last; s != nil && !s.taken && class.Supersedes(s.class) {
		w.held += len(line) - len(s.data)
		s.data, s.class = append(s.data[:0], line...), class
		return nil
	}
	s := &slot{w: w, gen: w.gen, data: append([]byte(nil), line...), class: class}
	w.held += len(line) + slotOverhead
	w.last = nil
	if class.Heartbeat {
		w.last = s
	}
	return s
}

// barrier closes the open slot: something other than a line is about to
// reach buddy, and no later heartbeat may jump over it.
func (w *rxWindow) barrier() {
	w.mu.Lock()
	w.last = nil
	w.mu.Unlock()
}

// take is buddy's half: the slot's content, which no longer changes once
// taken. Only the first take frees its room.
func (s *slot) take() []byte {
	w := s.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if s.taken {
		return s.data
	}
	s.taken = true
	if w.last == s {
		w.last = nil
	}
	if s.gen == w.gen {
		w.held -= len(s.data) + slotOverhead
		w.signal()
	}
	return s.data
}

// admit is the forwarder's half: it waits until another driver event may
// go to the actor, and reports false if ctx ended first.
func (w *rxWindow) admit(ctx context.Context) bool {
	for {
		w.mu.Lock()
		ok := w.held < maxHeld && w.inflight < maxInflight
		if ok {
			w.inflight++
		}
		w.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-w.room:
		case <-ctx.Done():
			return false
		}
	}
}

// handled is called once the actor has handled a forwarded event.
func (w *rxWindow) handled() {
	w.mu.Lock()
	w.inflight--
	w.signal()
	w.mu.Unlock()
}

// reset forgets the Lines not yet taken: their consumer is gone.
func (w *rxWindow) reset() {
	w.mu.Lock()
	w.gen++
	w.held, w.last = 0, nil
	w.signal()
	w.mu.Unlock()
}

// signal wakes the forwarder if it waits; w.mu is held.
func (w *rxWindow) signal() {
	select {
	case w.room <- struct{}{}:
	default:
	}
}
