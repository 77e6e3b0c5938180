package hci

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	gble "github.com/go-ble/ble"

	drv "github.com/claude-pi/claude-pi/drivers/ble"
)

// NUS UUIDs (buddy spec §1), as in the bluez backend.
var (
	uuidNUS = gble.MustParse("6e400001-b5a3-f393-e0a9-e50e24dcca9e")
	uuidRX  = gble.MustParse("6e400002-b5a3-f393-e0a9-e50e24dcca9e")
	uuidTX  = gble.MustParse("6e400003-b5a3-f393-e0a9-e50e24dcca9e")
)

// maxQueued bounds the RX bytes waiting for the owner. go-ble calls our
// handlers from its ATT and HCI goroutines, and the HCI goroutine also
// processes the flow-control events a Notify waits for: blocking it on a
// slow owner could deadlock the link. So handlers only queue, and writes
// beyond this backlog are refused rather than buffered without limit.
const maxQueued = 1 << 20

// link is the ATT-level half of the backend: the NUS service handlers,
// connection tracking, MTU and the event queue. It needs no radio, so the
// tests drive it with a fake gble.Conn.
type link struct {
	log *slog.Logger

	mu       sync.Mutex
	wake     chan struct{} // one pending signal: the queue grew
	done     chan struct{} // closed by stop: releases notify handlers
	stopped  bool
	queue    []drv.Event
	queued   int // RX bytes in queue
	conn     gble.Conn
	token    *int // marks conn's context; see sameConn
	central  string
	notifier gble.Notifier
	mtu      int

	sendMu sync.Mutex // one notification on the air at a time
}

func newLink(log *slog.Logger) *link {
	return &link{log: log, wake: make(chan struct{}, 1), done: make(chan struct{}), mtu: drv.DefaultMTU}
}

// push queues events; l.mu must be held.
func (l *link) push(evs ...drv.Event) {
	if l.stopped {
		return
	}
	l.queue = append(l.queue, evs...)
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// take empties the queue for Run to deliver.
func (l *link) take() []drv.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	q := l.queue
	l.queue, l.queued = nil, 0
	return q
}

// stop ends the link for good: the state is dropped, nothing is queued any
// more, and notify handlers return.
func (l *link) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.stopped {
		l.stopped = true
		close(l.done)
	}
	l.conn, l.token, l.central, l.notifier, l.mtu = nil, nil, "", nil, drv.DefaultMTU
	l.queue, l.queued = nil, 0
}

// service builds NUS: RX takes Write and Write Without Response (go-ble
// sets both properties for a write handler), TX notifies.
func (l *link) service() *gble.Service {
	s := gble.NewService(uuidNUS)
	s.NewCharacteristic(uuidRX).HandleWrite(gble.WriteHandlerFunc(l.serveWrite))
	s.NewCharacteristic(uuidTX).HandleNotify(gble.NotifyHandlerFunc(l.serveNotify))
	return s
}

// connMTU is the ATT MTU of c: go-ble stores the central's Exchange MTU
// value as TxMTU and our own limit as RxMTU; the link uses the smaller.
func connMTU(c gble.Conn) int {
	m := min(c.TxMTU(), c.RxMTU())
	return max(m, drv.DefaultMTU)
}

// centralName is the peer address as bluez spells it, AA:BB:CC:DD:EE:FF.
func centralName(c gble.Conn) string {
	if a := c.RemoteAddr(); a != nil {
		return strings.ToUpper(a.String())
	}
	return "unknown"
}

// connected tracks a new ATT bearer. The controller stops advertising while
// a central is connected, so a second one is unexpected; it is logged and
// ignored rather than allowed to take the link over.
func (l *link) connected(c gble.Conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn != nil {
		l.log.Warn("hci: ignoring a second central", "central", centralName(c), "serving", l.central)
		return
	}
	l.token = new(int)
	c.SetContext(context.WithValue(c.Context(), connKey{}, l.token))
	l.conn, l.central, l.notifier, l.mtu = c, centralName(c), nil, drv.DefaultMTU
	l.push(drv.Connected{Central: l.central})
	l.refreshMTU()
}

// disconnected forgets c if it is the tracked central.
func (l *link) disconnected(c gble.Conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c == nil || !l.sameConn(c) {
		return
	}
	central := l.central
	l.conn, l.token, l.central, l.notifier, l.mtu = nil, nil, "", nil, drv.DefaultMTU
	l.push(drv.Disconnected{Central: central})
}

// connKey tags the tracked connection's context.
type connKey struct{}

// sameConn reports whether c is the tracked central. go-ble hands handlers
// its own wrapper around the accepted conn, so identity is checked through
// the context both share rather than with ==. l.mu must be held.
func (l *link) sameConn(c gble.Conn) bool {
	return l.token != nil && c.Context().Value(connKey{}) == l.token
}

// refreshMTU reports MTUChanged when the connection's MTU moved. go-ble
// answers Exchange MTU itself and tells nobody, so the change is noticed
// at the next request, Notify or MTU call. l.mu must be held.
func (l *link) refreshMTU() {
	if l.conn == nil {
		return
	}
	if m := connMTU(l.conn); m != l.mtu {
		l.mtu = m
		l.push(drv.MTUChanged{MTU: m})
	}
}

// serveWrite handles one RX write. go-ble reuses the request buffer, so the
// bytes are copied before they are queued.
func (l *link) serveWrite(req gble.Request, rsp gble.ResponseWriter) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.sameConn(req.Conn()) {
		rsp.SetStatus(gble.ErrUnlikely)
		return
	}
	l.refreshMTU()
	data := req.Data()
	if l.queued+len(data) > maxQueued {
		// Only a wedged owner gets here; the line is lost either way.
		l.log.Warn("hci: owner not reading events; dropping an RX write", "bytes", len(data), "backlog", l.queued)
		rsp.SetStatus(gble.ErrInsuffResources)
		return
	}
	l.queued += len(data)
	l.push(drv.Received{Data: append([]byte(nil), data...)})
}

// serveNotify runs in its own goroutine (go-ble starts one per CCCD enable)
// and lasts as long as the subscription: until the central disables
// notifications or disconnects, or the backend stops.
func (l *link) serveNotify(req gble.Request, n gble.Notifier) {
	l.mu.Lock()
	if !l.sameConn(req.Conn()) || l.stopped {
		l.mu.Unlock()
		return
	}
	l.notifier = n
	l.refreshMTU()
	l.push(drv.Subscribed{On: true})
	l.mu.Unlock()

	select {
	case <-n.Context().Done():
	case <-l.done:
	}

	l.mu.Lock()
	defer l.mu.Unlock()
	// After a disconnect the notifier is already forgotten, and a newer
	// subscription may have replaced it: report only our own end.
	if l.notifier == n {
		l.notifier = nil
		l.push(drv.Subscribed{On: false})
	}
}

// notify sends one notification, refusing anything go-ble would cut:
// its notify buffer holds MTU-3 bytes and it truncates silently.
func (l *link) notify(b []byte) error {
	l.mu.Lock()
	n := l.notifier
	if n == nil {
		l.mu.Unlock()
		return drv.ErrNotSubscribed
	}
	l.refreshMTU()
	mtu := l.mtu
	l.mu.Unlock()
	if len(b) > mtu-3 {
		return fmt.Errorf("hci: notification of %d bytes exceeds MTU %d - 3: chunk it with protocols/nus", len(b), mtu)
	}
	l.sendMu.Lock()
	defer l.sendMu.Unlock()
	if _, err := n.Write(b); err != nil {
		return fmt.Errorf("hci: sending a notification: %w", err)
	}
	return nil
}

// currentMTU is the MTU of the connected central, ble.DefaultMTU if none.
func (l *link) currentMTU() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refreshMTU()
	return l.mtu
}
