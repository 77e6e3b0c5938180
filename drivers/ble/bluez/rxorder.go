package bluez

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/godbus/dbus/v5"
)

// godbus runs every incoming method call on a goroutine of its own, so two
// WriteValue calls that bluetoothd sent back to back can reach our handler
// in either order. bluetoothd answers an RX write at the ATT level before
// our handler runs (see below), so a central has many RX writes in flight
// at once and a turn line arrives with its slices swapped (the slices of
// one line and the next one mixed). The only place that still sees the
// calls in bluetoothd's order is the connection's incoming interceptor,
// which godbus calls synchronously from its read loop: it queues each RX
// write there, one goroutine delivers the queue in order, and a handler
// whose caller waits for a reply waits for its own write to be delivered.
//
// The queue is bounded, because nothing else bounds it. NUS RX has the
// write-without-response flag, and for such a characteristic bluetoothd
// sends every WriteValue, Write Requests included, with NO_REPLY_EXPECTED,
// and acknowledges the ATT write as it sends the call (src/gatt-database.c:
// chrc_write_cb passes no reply queue, write_setup_cb sends the write
// result; the same in 5.66 and 5.82, and seen in the VM test: the desk's
// Write Requests reach us with reply_expected=false, which the "first RX
// write" debug line logs). So dbus-daemon's cap on calls awaiting a reply
// (max_replies_per_connection, 128) never applies, our answer never
// reaches the central, and godbus reads the bus as fast as it can. Measured on the old, unbounded queue (BenchmarkRXFlood's flood of
// 180-byte writes): 100,000 writes that nobody read left 99,937 queued,
// each with a goroutine waiting, and 1.1 GB retained; a Pi Zero 2 W has
// 512 MB.
//
// Past the cap a write is refused at once, and the queue takes writes again
// only once it has drained to half, so a flood leaves long runs intact
// rather than every other write. Why refuse, rather than stop reading the
// bus until there is room:
//   - The central cannot be held back from here. Its write was acknowledged
//     before we saw it, and the desktop only writes without response
//     (buddy spec §1). No ATT error can be sent for a write command, and
//     BlueZ gives a GATT application no other way to push back.
//   - A stopped read loop stalls everything else on the connection: the
//     agent's passkey call, Disconnected, the replies to our own calls. And
//     the pile-up would only move into dbus-daemon, which holds up to 127 MiB
//     for a connection that does not read (max_outgoing_bytes) before it
//     drops messages, silently for calls that expect no reply.
//
// So nothing is lost silently: a caller that waits for a reply gets
// org.bluez.Error.Failed naming the cause, the log says which central
// floods (once a minute at most), and the stream gets a "\n" where the gap
// is, before the first write taken after it. The line the gap tore ends
// there and fails to parse on its own (a strict prefix of a JSON object
// never parses), instead of being joined to the tail of a later line into
// one that might: the two halves of two push chunks can make one valid
// chunk with the wrong bytes. The tail after the gap becomes a line of its
// own, which the line assembler skips unless it starts with '{'.

// RX queue bounds. maxRXQueued of weight is 600 of the desktop's 180-byte
// slices, about 0.6 s of the fastest BLE link (2M PHY), and far above what
// a desktop sends unanswered: a heartbeat or a turn line now and then, and
// in a push one 370-byte chunk line at a time. The queue fills only while
// the link actor reads nothing from us, and that actor has a window of its
// own (actors/ble/rxwindow.go).
const (
	maxRXQueued = 256 << 10
	// rxWriteOverhead is added to a write's length for its weight, so a
	// flood of 1-byte writes is capped too. It is a little above what a
	// queued write holds beyond its value: 220 to 250 bytes measured
	// (BenchmarkRXFlood, queue-B/write-beyond-value, less the 64 events
	// the owner's channel held).
	rxWriteOverhead = 256
	// rxFullLogEvery spaces the warnings of a central that keeps flooding.
	rxFullLogEvery = time.Minute
)

// rxWrite is one queued WriteValue call: the value and the two options
// delivery needs (the whole options map would be kept for nothing).
type rxWrite struct {
	value   []byte
	meta    rxMeta
	refused bool
	// gapBefore: writes were refused right before this one.
	gapBefore bool
	// wantsReply: the caller did not set NO_REPLY_EXPECTED.
	wantsReply bool
	// delivered is closed once the owner has the value; nil unless the
	// caller waits for a reply.
	delivered chan struct{}
}

func (w *rxWrite) weight() int { return len(w.value) + rxWriteOverhead }

// rxMeta is what a write's options say about the link.
type rxMeta struct {
	device dbus.ObjectPath
	mtu    uint16 // 0 if not given
}

func rxMetaOf(options map[string]dbus.Variant) rxMeta {
	dev, _ := options["device"].Value().(dbus.ObjectPath)
	mtu, _ := options["mtu"].Value().(uint16)
	return rxMeta{device: dev, mtu: mtu}
}

// rxKey names a method call: serials are unique per sender.
type rxKey struct {
	sender string
	serial uint32
}

// rxQueue holds RX writes in the order the connection read them.
type rxQueue struct {
	mu        sync.Mutex
	pending   []*rxWrite
	byCall    map[rxKey]*rxWrite // calls that want a reply, until their handler runs
	wake      chan struct{}
	limit     int  // maxRXQueued; tests lower it
	held      int  // weight of the writes taken and not yet delivered
	highWater int  // the most held ever was
	refusing  bool // over the cap, and not yet drained to half
	gap       bool // writes refused since the last one taken
	refused   int  // writes refused since the last warning
	lastWarn  time.Time
	seenFirst bool // the first write's reply mode has been logged
}

func newRXQueue() *rxQueue {
	return &rxQueue{byCall: map[rxKey]*rxWrite{}, wake: make(chan struct{}, 1), limit: maxRXQueued}
}

// admit takes w or refuses it; q.mu is held.
func (q *rxQueue) admit(w *rxWrite) bool {
	if q.refusing && q.held > q.limit/2 || q.held+w.weight() > q.limit {
		q.refusing, q.gap = true, true
		q.refused++
		return false
	}
	q.refusing = false
	w.gapBefore, q.gap = q.gap, false
	q.held += w.weight()
	q.highWater = max(q.highWater, q.held)
	q.pending = append(q.pending, w)
	return true
}

// warnNow reports whether a refusal should be logged now, and how many
// writes were refused since the last warning; q.mu is held.
func (q *rxQueue) warnNow(now time.Time) (bool, int) {
	if !q.lastWarn.IsZero() && now.Sub(q.lastWarn) < rxFullLogEvery {
		return false, 0
	}
	n := q.refused
	q.lastWarn, q.refused = now, 0
	return true, n
}

// Dial connects with dial (dbus.ConnectSystemBus, or dbus.Connect on an
// address) and returns a Peripheral on that connection which hands RX
// writes to the owner in the order bluetoothd sent them, holding at most
// maxRXQueued of them. Close the connection after Run returns.
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

// intercept queues an RX WriteValue call, or refuses it when the queue is
// full. It runs on godbus's read loop, so it must not block.
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
	w := &rxWrite{value: value, meta: rxMetaOf(options), wantsReply: msg.Flags&dbus.FlagNoReplyExpected == 0}
	if w.wantsReply {
		w.delivered = make(chan struct{})
	}
	q := p.rxq
	q.mu.Lock()
	taken := q.admit(w)
	w.refused = !taken
	if w.wantsReply {
		// Only these handlers look their write up. A map never shrinks,
		// and one entry for each of a flood's calls whose goroutine has
		// not run yet would grow it with the flood.
		q.byCall[rxKey{sender, msg.Serial()}] = w
	}
	var warn bool
	var refused, held, limit int
	if !taken {
		warn, refused = q.warnNow(time.Now())
		held, limit = q.held, q.limit
	}
	first := !q.seenFirst
	q.seenFirst = true
	q.mu.Unlock()
	if first {
		// Says which of the cases above this bluetoothd is in.
		p.log.Debug("first RX write", "central", centralName(w.meta.device), "reply_expected", w.wantsReply)
	}
	if warn {
		p.log.Warn("refusing RX writes: the central writes faster than the appliance takes its lines, so lines are lost",
			"central", centralName(w.meta.device), "queued_bytes", held, "cap_bytes", limit,
			"refused_since_last_warning", refused,
			"fix", "if this central is not your desktop, forget it on the Pi's \"Forget Bluetooth pairing?\" screen; if it is, restart the Claude app. Writes are taken again once the queue has drained to half")
	}
	if taken {
		select {
		case q.wake <- struct{}{}:
		default:
		}
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
		if w.gapBefore {
			p.received([]byte{'\n'}, w.meta)
		}
		p.received(w.value, w.meta)
		// Its weight counts until the owner has it: a write the pump holds
		// while the owner does not read is queued memory too.
		q.mu.Lock()
		q.held -= w.weight()
		q.mu.Unlock()
		if w.delivered != nil {
			close(w.delivered)
		}
	}
}

// errRXFull is the answer to a refused write whose caller waits for one.
var errRXFull = dbus.NewError("org.bluez.Error.Failed", []any{
	"NUS RX queue full: the central writes faster than the appliance takes its lines; this write was dropped",
})

// awaitRX is the WriteValue handler's half: it reports whether the call
// was seen by intercept and, if so, the reply: nil once the write has been
// delivered, errRXFull if it was refused, and nil at once, without
// waiting, to a caller that expects no reply (bluetoothd, for NUS RX).
func (p *Peripheral) awaitRX(msg dbus.Message) (bool, *dbus.Error) {
	q := p.rxq
	if q == nil {
		return false, nil
	}
	if msg.Flags&dbus.FlagNoReplyExpected != 0 {
		// intercept saw it: our objects are exported only while Run
		// runs, and intercept acts on every call from Run's start.
		// godbus would send an error anyway, and dbus-daemon refuses
		// (and logs) a reply nobody asked for.
		return true, nil
	}
	sender, _ := msg.Headers[dbus.FieldSender].Value().(string)
	key := rxKey{sender, msg.Serial()}
	q.mu.Lock()
	w := q.byCall[key]
	delete(q.byCall, key)
	q.mu.Unlock()
	switch {
	case w == nil:
		return false, nil
	case w.refused:
		return true, errRXFull
	}
	p.mu.Lock()
	ctx := p.ctx
	p.mu.Unlock()
	select {
	case <-w.delivered:
	case <-ctx.Done():
	}
	return true, nil
}
