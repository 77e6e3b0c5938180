// Package fakedesktop is a stand-in for the Claude desktop app's Hardware Buddy
// bridge: a client of the sim board's NUS endpoint (--nus-listen) that
// behaves on the wire as the real desktop does (buddy spec §2.3, §3.2, §5,
// §6, §8.1), so a developer without a radio can watch the appliance work
// and the end-to-end tests can drive it.
//
// What it copies from the desktop: owner then time on connect (owner waits
// up to 3 s for its ack, a failure is ignored); every line plus "\n" cut
// into slices of at most 180 bytes, written through one serialized queue;
// heartbeats debounced 100 ms after a change, pushed at once after a
// permission decision, and repeated at least every 10 s; a status poll every
// 2 s whose ack is validated as strictly as the desktop does; a prompt that
// stays in every heartbeat until the device answers it; the folder push
// with its per-step timeouts and the 8 tries of char_begin; heartbeats and
// turn events suppressed during a push.
package fakedesktop

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	blesim "github.com/claude-pi/claude-pi/drivers/ble/sim"
	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
	"github.com/claude-pi/claude-pi/protocols/nus"
)

// SliceSize is the largest RX write the desktop makes (spec §3.2).
const SliceSize = 180

// Options configures a Desktop. The zero value behaves like the real
// desktop with its Hardware Buddy window open (status polled).
type Options struct {
	// Owner is sent with {"cmd":"owner"} on connect; "" sends none, as the
	// desktop does when the account has no name.
	Owner string
	// Debounce delays a heartbeat after a change so a burst of changes is
	// one heartbeat; 100 ms if zero.
	Debounce time.Duration
	// Keepalive repeats the heartbeat when this long has passed without
	// one; 10 s if zero.
	Keepalive time.Duration
	// StatusEvery is the status poll period; 2 s if zero, negative turns
	// polling off (the desktop polls only while its window is visible).
	StatusEvery time.Duration
	// Progress, if set, is called after every acked push chunk with the
	// bytes sent so far, as the desktop's "uploading <file> — <pct>%".
	Progress func(file string, sent, total int64)
	// Logger gets what the desktop does at debug level; nil discards.
	Logger *slog.Logger
	// Resume makes this connection a reconnect of a bridge that was
	// already running (from Desktop.Resume of the connection that
	// dropped): its sessions and pending prompt carry over and, as the
	// desktop does (spec §2.3), no heartbeat is sent on connect. The
	// first one comes when the keepalive falls due, counted from the
	// last heartbeat before the drop (the desktop's measured 7.9-8.7 s
	// after the reconnect), or after the next change.
	Resume *Resume
}

// Resume is what a reconnect carries over from the connection that dropped.
type Resume struct {
	Session  Session
	Prompt   *pbuddy.Prompt // nil: none pending
	LastBeat time.Time      // the last heartbeat sent; zero counts from the reconnect
}

func (o *Options) fill() {
	if o.Debounce <= 0 {
		o.Debounce = 100 * time.Millisecond
	}
	if o.Keepalive <= 0 {
		o.Keepalive = 10 * time.Second
	}
	if o.StatusEvery == 0 {
		o.StatusEvery = 2 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// Permission is one {"cmd":"permission"} line received from the device.
type Permission struct {
	ID       string          // the id as decoded: compare with the prompt's
	Decision pbuddy.Decision // Once or Deny
	Line     []byte          // the line exactly as received, without "\n"
	At       time.Time       // when its last byte arrived
}

// StatusResult is one status poll: the ack's data if it passed the strict
// validation, else Err says why the desktop would show "No response".
type StatusResult struct {
	Status pbuddy.StatusAck
	Err    error
	Line   []byte // the ack line, nil on timeout
}

// Counters are running totals, for tests and the demo's summary.
type Counters struct {
	LinesSent, BytesSent, Slices int
	Heartbeats                   int
	StatusOK, StatusFailed       int
	Permissions                  int
	BadLines                     int // received lines that did not decode
}

// Desktop is one connection to the device. Its methods are safe for
// concurrent use.
type Desktop struct {
	conn net.Conn
	opts Options
	log  *slog.Logger

	writeMu sync.Mutex // the single ordered writer: slices never interleave

	mu       sync.Mutex
	waiters  map[string]chan reply // one per ack name, as in the desktop
	sess     Session
	prompt   *pbuddy.Prompt
	pushing  bool
	lastBeat time.Time
	sentAt   map[string]time.Time // prompt id -> last byte of its first heartbeat
	counts   Counters

	kick      chan struct{} // a change: heartbeat after the debounce
	now       chan struct{} // heartbeat at once (after a decision)
	decisions chan Permission
	statuses  chan StatusResult

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	done   chan struct{} // closed when the connection is gone
	err    error         // why, set before done closes
	busy   bool          // the appliance refused us: another desktop has the link
}

// ErrBusy is why a connection the appliance refused ended: the sim link,
// like the radio, serves one desktop at a time.
var ErrBusy = errors.New("another desktop is already connected to the appliance (the link serves one at a time): end the other claude-pi demo first")

// Dial connects to a --nus-listen address ("host:port" or "unix:/path")
// with the zero Options plus Owner "Felix", and runs the connect sequence.
func Dial(ctx context.Context, addr string) (*Desktop, error) {
	return DialOptions(ctx, addr, &Options{Owner: "Felix"})
}

// DialOptions is Dial with options; nil means the zero Options.
func DialOptions(ctx context.Context, addr string, opts *Options) (*Desktop, error) {
	network, address := "tcp", addr
	if p, ok := strings.CutPrefix(addr, "unix:"); ok {
		network, address = "unix", p
	}
	var nd net.Dialer
	c, err := nd.DialContext(ctx, network, address)
	if err != nil {
		return nil, fmt.Errorf("desktop: connecting to %s: %w (is claude-pi running with --nus-listen %s?)", addr, err, addr)
	}
	// A BLE central has a few packets in flight, not the megabytes a
	// socket autotunes to: bound the send buffer, so that when a write
	// returns its bytes are about to reach the device, as over the radio.
	if wb, ok := c.(interface{ SetWriteBuffer(int) error }); ok {
		_ = wb.SetWriteBuffer(WriteBuffer)
	}
	return Start(ctx, c, opts)
}

// WriteBuffer is the kernel send buffer of the desktop's socket.
const WriteBuffer = 16 << 10

// Start runs the desktop on an established connection: it sends owner
// (waiting up to 3 s for its ack), then time, then the first heartbeat
// (none on a reconnect: Options.Resume),
// and starts polling status. ctx bounds only the connect sequence.
func Start(ctx context.Context, c net.Conn, opts *Options) (*Desktop, error) {
	o := Options{}
	if opts != nil {
		o = *opts
	}
	o.fill()
	d := &Desktop{
		conn: c, opts: o, log: o.Logger,
		waiters:   map[string]chan reply{},
		sentAt:    map[string]time.Time{},
		kick:      make(chan struct{}, 1),
		now:       make(chan struct{}, 1),
		decisions: make(chan Permission, 64),
		statuses:  make(chan StatusResult, 16),
		done:      make(chan struct{}),
	}
	d.sess = Session{Msg: "ready"}
	if r := o.Resume; r != nil {
		d.sess, d.lastBeat = r.Session, r.LastBeat
		d.sess.Entries = append([]string(nil), r.Session.Entries...)
		if r.Prompt != nil {
			p := *r.Prompt
			d.prompt = &p
		}
		if d.lastBeat.IsZero() {
			d.lastBeat = time.Now()
		}
	}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	d.wg.Add(1)
	go d.readLoop()

	if o.Owner != "" {
		cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		_, err := d.Command(cctx, pbuddy.Owner{Name: o.Owner})
		cancel()
		if errors.Is(err, ErrBusy) {
			d.Close()
			return nil, err
		}
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			d.Close()
			return nil, fmt.Errorf("desktop: owner: %w", err)
		}
	}
	now := time.Now()
	_, off := now.Zone()
	if err := d.Send(pbuddy.TimeSync{Epoch: now.Unix(), Offset: int32(off)}); err != nil {
		d.Close()
		return nil, err
	}
	d.wg.Add(1)
	go d.beatLoop()
	if o.StatusEvery > 0 {
		d.wg.Add(1)
		go d.statusLoop()
	}
	return d, nil
}

// Resume is what a reconnect after this connection carries over: pass it
// as Options.Resume to the next DialOptions.
func (d *Desktop) Resume() *Resume {
	d.mu.Lock()
	defer d.mu.Unlock()
	r := &Resume{Session: d.sess, LastBeat: d.lastBeat}
	r.Session.Entries = append([]string(nil), d.sess.Entries...)
	if d.prompt != nil {
		p := *d.prompt
		r.Prompt = &p
	}
	return r
}

// Close disconnects and waits for the desktop's goroutines. Safe to call
// more than once.
func (d *Desktop) Close() error {
	d.cancel()
	err := d.conn.Close()
	d.wg.Wait()
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

// Done is closed when the connection is gone; Err then says why.
func (d *Desktop) Done() <-chan struct{} { return d.done }

// Err is why the connection ended (nil while it is up or after Close).
func (d *Desktop) Err() error {
	select {
	case <-d.done:
		return d.err
	default:
		return nil
	}
}

// Decisions delivers every permission line the device sends, in order.
// Nobody has to read it: when its buffer is full, older decisions are
// still counted but not delivered.
func (d *Desktop) Decisions() <-chan Permission { return d.decisions }

// StatusAcks delivers the result of every status poll (buffered; a full
// buffer drops results, the counters keep counting).
func (d *Desktop) StatusAcks() <-chan StatusResult { return d.statuses }

// Counters returns the running totals.
func (d *Desktop) Counters() Counters {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.counts
}

// Send writes one message as a line.
func (d *Desktop) Send(m pbuddy.Message) error {
	return d.SendRaw(pbuddy.Encode(m))
}

// SendRaw writes b as it is (add the "\n" yourself), cut into slices of at
// most SliceSize bytes, with no other line's slices in between. Tests use
// it for over-long and malformed lines.
func (d *Desktop) SendRaw(b []byte) error {
	_, err := d.write(b)
	return err
}

// write is SendRaw returning the time the last byte left.
func (d *Desktop) write(b []byte) (time.Time, error) {
	d.writeMu.Lock()
	defer d.writeMu.Unlock()
	n := 0
	for off := 0; off < len(b); off += SliceSize {
		end := min(off+SliceSize, len(b))
		if _, err := d.conn.Write(b[off:end]); err != nil {
			return time.Time{}, fmt.Errorf("desktop: writing: %w", err)
		}
		n++
	}
	at := time.Now()
	d.mu.Lock()
	d.counts.LinesSent++
	d.counts.BytesSent += len(b)
	d.counts.Slices += n
	d.mu.Unlock()
	return at, nil
}

// Command sends cmd and waits for the ack of the same name, until ctx ends.
// As in the desktop, a newer request of the same name supersedes a waiting
// one, which then fails.
func (d *Desktop) Command(ctx context.Context, cmd pbuddy.Command) (pbuddy.Ack, error) {
	r, err := d.command(ctx, cmd)
	return r.ack, err
}

// reply is an ack and the line it came in.
type reply struct {
	ack  pbuddy.Ack
	line []byte
}

func (d *Desktop) command(ctx context.Context, cmd pbuddy.Command) (reply, error) {
	ch := make(chan reply, 1)
	name := cmd.CmdName()
	d.mu.Lock()
	if old, ok := d.waiters[name]; ok {
		close(old) // superseded
	}
	d.waiters[name] = ch
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		if d.waiters[name] == ch {
			delete(d.waiters, name)
		}
		d.mu.Unlock()
	}()
	if err := d.Send(cmd); err != nil {
		return reply{}, err
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return reply{}, fmt.Errorf("desktop: %s: superseded", name)
		}
		return r, nil
	case <-d.done:
		if err := d.Err(); errors.Is(err, ErrBusy) {
			return reply{}, err
		}
		return reply{}, fmt.Errorf("desktop: %s: device: not connected", name)
	case <-ctx.Done():
		return reply{}, ctx.Err()
	}
}

// readLoop assembles notifications into lines, exactly as the desktop
// does: byte-level, '\r' stripped, non-objects and bad JSON ignored.
func (d *Desktop) readLoop() {
	defer d.wg.Done()
	asm := nus.NewAssembler(64 << 10)
	buf := make([]byte, 4096)
	for first := true; ; first = false {
		n, err := d.conn.Read(buf)
		at := time.Now()
		// A refused client reads the sim's one refusal line (no JSON, so
		// the assembler would skip it) and then EOF.
		if first && n > len("claude-pi sim: ") && strings.HasPrefix(blesim.Refusal, string(buf[:n])) {
			d.busy = true
		}
		asm.Feed(buf[:n], func(line []byte, lerr error) {
			if lerr == nil {
				d.handleLine(line, at)
			}
		})
		if err != nil {
			switch {
			case d.busy:
				d.err = ErrBusy
			case d.ctx.Err() == nil:
				d.err = fmt.Errorf("desktop: connection lost: %w", err)
			}
			close(d.done)
			d.cancel()
			return
		}
	}
}

func (d *Desktop) handleLine(line []byte, at time.Time) {
	m, err := pbuddy.Decode(line)
	if err != nil {
		d.mu.Lock()
		d.counts.BadLines++
		d.mu.Unlock()
		d.log.Debug("desktop: ignoring line", "err", err)
		return
	}
	switch m := m.(type) {
	case pbuddy.Ack:
		d.mu.Lock()
		ch, ok := d.waiters[m.Cmd]
		delete(d.waiters, m.Cmd)
		d.mu.Unlock()
		if !ok {
			d.log.Debug("desktop: ack nobody waits for", "ack", m.Cmd)
			return
		}
		ch <- reply{ack: m, line: append([]byte(nil), line...)}
	case pbuddy.Permission:
		d.permission(Permission{ID: m.ID, Decision: m.Decision, Line: append([]byte(nil), line...), At: at})
	}
}

// permission is what the desktop does with a decision: hand it to the
// session that owns the id (here: drop the prompt if it is the current
// one) and push a fresh heartbeat at once.
func (d *Desktop) permission(p Permission) {
	d.mu.Lock()
	d.counts.Permissions++
	if d.prompt != nil && d.prompt.ID == p.ID {
		d.prompt = nil
		if d.sess.Waiting > 0 {
			d.sess.Waiting--
		}
	}
	d.mu.Unlock()
	d.log.Debug("desktop: permission", "id", p.ID, "decision", p.Decision.String())
	select {
	case d.decisions <- p:
	default:
	}
	select {
	case d.now <- struct{}{}:
	default:
	}
}
