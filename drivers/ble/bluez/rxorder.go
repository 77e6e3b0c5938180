package bluez

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/godbus/dbus/v5"
)

// godbus runs every incoming method call on a goroutine of its own, so two
// WriteValue calls that bluetoothd sent back to back can reach our handler
// in either order. BlueZ 5.82 answers a Write Request before its WriteValue
// call returns, so a central has many RX writes in flight at once and a
// turn line arrives with its slices swapped (the slices of one line and the
// next one mixed). The only place that still sees the calls in bluetoothd's
// order is the connection's incoming interceptor, which godbus calls
// synchronously from its read loop: it queues each RX write there, one
// goroutine delivers the queue in order, and the handler only waits for its
// own write to be delivered, which keeps the flow control an older BlueZ
// gets from a slow reply.

// rxWrite is one queued WriteValue call.
type rxWrite struct {
	value     []byte
	options   map[string]dbus.Variant
	delivered chan struct{}
}

// rxKey names a method call: serials are unique per sender.
type rxKey struct {
	sender string
	serial uint32
}

// rxQueue holds RX writes in the order the connection read them.
type rxQueue struct {
	mu      sync.Mutex
	pending []*rxWrite
	byCall  map[rxKey]*rxWrite
	wake    chan struct{}
}

func newRXQueue() *rxQueue {
	return &rxQueue{byCall: map[rxKey]*rxWrite{}, wake: make(chan struct{}, 1)}
}

// Dial connects with dial (dbus.ConnectSystemBus, or dbus.Connect on an
// address) and returns a Peripheral on that connection which hands RX
// writes to the owner in the order bluetoothd sent them. Close the
// connection after Run returns.
func Dial(dial func(...dbus.ConnOption) (*dbus.Conn, error), opts *Options) (*Peripheral, *dbus.Conn, error) {
	q := newRXQueue()
	// The read loop starts before New returns (NameAcquired arrives
	// first), so the interceptor finds the Peripheral atomically.
	var owner atomic.Pointer[Peripheral]
	conn, err := dial(dbus.WithIncomingInterceptor(func(msg *dbus.Message) {
		if p := owner.Load(); p != nil {
			p.intercept(msg)
		}
	}))
	if err != nil {
		return nil, nil, err
	}
	p, err := New(conn, opts)
	if err != nil {
		conn.Close()
		return nil, nil, err
	}
	p.rxq = q
	owner.Store(p)
	return p, conn, nil
}

// intercept queues an RX WriteValue call. It runs on godbus's read loop,
// so it must not block.
func (p *Peripheral) intercept(msg *dbus.Message) {
	if msg.Type != dbus.TypeMethodCall || p.rxq == nil {
		return
	}
	p.mu.Lock()
	running := p.ctx != nil
	p.mu.Unlock()
	if !running {
		return // nothing is exported yet: godbus refuses the call
	}
	path, _ := msg.Headers[dbus.FieldPath].Value().(dbus.ObjectPath)
	iface, _ := msg.Headers[dbus.FieldInterface].Value().(string)
	member, _ := msg.Headers[dbus.FieldMember].Value().(string)
	sender, _ := msg.Headers[dbus.FieldSender].Value().(string)
	if path != p.paths.rx || iface != ifaceGattChar || member != "WriteValue" || len(msg.Body) != 2 {
		return
	}
	value, ok1 := msg.Body[0].([]byte)
	options, ok2 := msg.Body[1].(map[string]dbus.Variant)
	if !ok1 || !ok2 {
		return // godbus answers the bad signature itself
	}
	w := &rxWrite{value: value, options: options, delivered: make(chan struct{})}
	q := p.rxq
	q.mu.Lock()
	q.pending = append(q.pending, w)
	q.byCall[rxKey{sender, msg.Serial()}] = w
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// pumpRX delivers queued RX writes in order until ctx ends.
func (p *Peripheral) pumpRX(ctx context.Context) {
	q := p.rxq
	for {
		q.mu.Lock()
		var w *rxWrite
		if len(q.pending) > 0 {
			w = q.pending[0]
			q.pending[0] = nil
			q.pending = q.pending[1:]
		}
		q.mu.Unlock()
		if w == nil {
			select {
			case <-q.wake:
				continue
			case <-ctx.Done():
				return
			}
		}
		p.received(w.value, w.options)
		close(w.delivered)
	}
}

// awaitRX is the WriteValue handler's half: it reports whether the call
// was queued by intercept and, if so, waits until it has been delivered.
func (p *Peripheral) awaitRX(msg dbus.Message) bool {
	q := p.rxq
	if q == nil {
		return false
	}
	sender, _ := msg.Headers[dbus.FieldSender].Value().(string)
	key := rxKey{sender, msg.Serial()}
	q.mu.Lock()
	w := q.byCall[key]
	delete(q.byCall, key)
	q.mu.Unlock()
	if w == nil {
		return false
	}
	p.mu.Lock()
	ctx := p.ctx
	p.mu.Unlock()
	select {
	case <-w.delivered:
	case <-ctx.Done():
	}
	return true
}
