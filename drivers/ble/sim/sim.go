// Package sim is the BLE backend for machines without a radio: the NUS byte
// stream over a TCP or unix socket (--nus-listen). A connected socket client
// plays the central: the bytes it sends are exactly what RX writes would
// carry, and the bytes it reads are the TX notifications.
//
// One client at a time, like the desktop: a second client that arrives
// while one is connected is refused. It reads one line explaining why and
// is closed (holding it would leave a tool hanging with no hint).
//
// A connection is served only once its first byte other than white space
// is '{' (sniff.go): what a web page can make a browser send to a local
// port (HTTP, TLS, STUN) is closed before a byte reaches the appliance.
//
// The link is never encrypted: CanPair is false and Secured{true} is never
// reported, so the status ack says sec:false, as with the hci backend.
package sim

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	drv "github.com/claude-pi/claude-pi/drivers/ble"
)

// DefaultMTU is the MTU the simulated central negotiates; macOS usually
// settles on 185 (buddy spec §1).
const DefaultMTU = 185

// MaxRead caps one Received: a socket read larger than this is split, so
// the owner sees write-sized pieces like real ATT writes (at most 512).
const MaxRead = 512

// ReadBuffer is the kernel receive buffer of a client's socket. A radio
// link holds a few packets in flight; a socket left to autotune holds
// megabytes, and a flood parked there reaches the appliance long after
// the client stopped writing. Bounding it keeps the sim link's
// backpressure (rxwindow in actors/ble) close to the writer, as on BLE.
const ReadBuffer = 32 << 10

// Refusal is the line a second client reads before it is closed, so a
// client can tell "busy" from a link that broke.
const Refusal = "claude-pi sim: another central is already connected; the NUS link serves one at a time\n"

// Options configures the backend. The zero value works.
type Options struct {
	// MTU is the ATT MTU reported for every client, 23..517; DefaultMTU if
	// zero. Lower it to exercise chunking at small MTUs.
	MTU int
	// WriteTimeout bounds one Notify; a client that stops reading is
	// dropped instead of wedging the writer. 5 s if zero.
	WriteTimeout time.Duration
	// Logger receives connects and refusals; slog.Default() if nil.
	Logger *slog.Logger
}

// Peripheral serves the NUS stream on a listener. It implements
// ble.Peripheral.
type Peripheral struct {
	ln   net.Listener
	opts Options
	log  *slog.Logger

	runMu sync.Mutex // held for the whole of Run: one Run at a time

	mu      sync.Mutex
	client  net.Conn // nil while no central is connected
	writeMu sync.Mutex
}

var _ drv.Peripheral = (*Peripheral)(nil)

// New returns a Peripheral serving on ln, normally from Listen. Run owns ln
// and closes it when it returns.
func New(ln net.Listener, opts *Options) (*Peripheral, error) {
	if ln == nil {
		return nil, errors.New("sim: no listener")
	}
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.MTU == 0 {
		o.MTU = DefaultMTU
	}
	if o.MTU < drv.DefaultMTU || o.MTU > 517 {
		return nil, fmt.Errorf("sim: MTU %d out of range %d..517", o.MTU, drv.DefaultMTU)
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 5 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Peripheral{ln: ln, opts: o, log: o.Logger}, nil
}

// String names the backend and its address for logs and status lines.
func (p *Peripheral) String() string { return "sim(" + p.ln.Addr().String() + ")" }

// CanPair is false: a socket link is never encrypted.
func (p *Peripheral) CanPair() bool { return false }

// MTU is the configured MTU, which every simulated central negotiates.
func (p *Peripheral) MTU() int { return p.opts.MTU }

// RemoveBonds returns ble.ErrNoBonds: a socket link never pairs.
func (p *Peripheral) RemoveBonds() (int, error) { return 0, drv.ErrNoBonds }

// Notify writes b to the client as is.
func (p *Peripheral) Notify(b []byte) error {
	p.mu.Lock()
	c := p.client
	p.mu.Unlock()
	if c == nil {
		return drv.ErrNotSubscribed
	}
	if len(b) > p.opts.MTU-3 {
		return fmt.Errorf("sim: notification of %d bytes exceeds MTU %d - 3: chunk it with protocols/nus", len(b), p.opts.MTU)
	}
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	_ = c.SetWriteDeadline(time.Now().Add(p.opts.WriteTimeout))
	if _, err := c.Write(b); err != nil {
		// The reader sees the close and reports Disconnected.
		_ = c.Close()
		return fmt.Errorf("sim: writing to the client: %w", err)
	}
	return nil
}

// Run reports Advertising{On: true}, then serves clients until ctx ends.
// It closes the listener and any client when it returns, and leaves no
// goroutine behind. It returns an error only if accepting fails for a
// reason other than its own shutdown.
func (p *Peripheral) Run(ctx context.Context, events chan<- drv.Event) error {
	if !p.runMu.TryLock() {
		return errors.New("sim: Run called while already running")
	}
	defer p.runMu.Unlock()

	var wg sync.WaitGroup
	stop := make(chan struct{})
	defer func() {
		close(stop)
		_ = p.ln.Close()
		p.dropClient()
		wg.Wait()
	}()

	accepted := make(chan net.Conn)
	acceptErr := make(chan error, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := p.ln.Accept()
			if err != nil {
				acceptErr <- err
				return
			}
			select {
			case accepted <- c:
			case <-stop:
				_ = c.Close()
				return
			}
		}
	}()

	emit := func(evs ...drv.Event) bool {
		for _, ev := range evs {
			select {
			case events <- ev:
			case <-ctx.Done():
				return false
			}
		}
		return true
	}
	if !emit(drv.Advertising{On: true}) {
		return nil
	}
	p.log.Info("sim: serving NUS", "addr", p.ln.Addr().String(), "mtu", p.opts.MTU)

	var reads chan error // nil while no client
	var central string
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-acceptErr:
			if ctx.Err() != nil {
				return nil
			}
			emit(drv.Advertising{On: false, Err: err})
			return fmt.Errorf("sim: accepting on %s: %w", p.ln.Addr(), err)
		case c := <-accepted:
			if reads != nil {
				p.refuse(c)
				continue
			}
			central = clientName(c)
			if rb, ok := c.(interface{ SetReadBuffer(int) error }); ok {
				_ = rb.SetReadBuffer(ReadBuffer) // best effort: only latency depends on it
			}
			p.mu.Lock()
			p.client = c
			p.mu.Unlock()
			reads = make(chan error)
			p.log.Info("sim: central connected", "central", central)
			// A socket client is always "subscribed" and has exchanged
			// the configured MTU, as the desktop does right after connect.
			if !emit(drv.Connected{Central: central}, drv.MTUChanged{MTU: p.opts.MTU}, drv.Subscribed{On: true}) {
				return nil
			}
			// The reader emits what it reads itself (one goroutine
			// handoff less per read), after Connected and before it
			// reports the error that ends it, so Run emits Disconnected
			// after the last Received.
			wg.Add(1)
			go func() {
				defer wg.Done()
				readLoop(ctx, c, events, reads, stop)
			}()
		case err := <-reads:
			p.dropClient()
			reads = nil
			if errors.Is(err, errNotNUS) {
				p.log.Warn("sim: closed a connection that is not a NUS client", "central", central, "why", err)
			} else {
				p.log.Info("sim: central disconnected", "central", central, "why", err)
			}
			if !emit(drv.Disconnected{Central: central}) {
				return nil
			}
		}
	}
}

// readLoop emits each read as a Received and hands Run the error that
// ends it. Nothing is emitted until the first bytes show a NUS client
// (sniff): a connection that starts like anything else ends with
// errNotNUS.
func readLoop(ctx context.Context, c net.Conn, events chan<- drv.Event, ended chan<- error, stop <-chan struct{}) {
	buf := make([]byte, MaxRead)
	var lead []byte // what arrived while sniff was undecided
	emit := func(b []byte) bool {
		select {
		case events <- drv.Received{Data: append([]byte(nil), b...)}:
			return true
		case <-ctx.Done():
		case <-stop:
		}
		return false
	}
	end := func(err error) {
		select {
		case ended <- err:
		case <-stop:
		}
	}
	decided := false
	for {
		n, err := c.Read(buf)
		switch {
		case n > 0 && !decided:
			lead = append(lead, buf[:n]...)
			switch sniff(lead) {
			case notNUS:
				end(fmt.Errorf("%w: it sent %s", errNotNUS, looksLike(lead)))
				return
			case nusClient:
				decided = true
				for len(lead) > 0 { // the first bytes, in write-sized pieces
					k := min(len(lead), MaxRead)
					if !emit(lead[:k]) {
						return
					}
					lead = lead[k:]
				}
			}
		case n > 0:
			if !emit(buf[:n]) {
				return
			}
		}
		if err != nil {
			end(err)
			return
		}
	}
}

// refuse tells a second client why it cannot connect, then closes it.
func (p *Peripheral) refuse(c net.Conn) {
	p.log.Warn("sim: refusing a second central", "central", clientName(c))
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = c.Write([]byte(Refusal))
	_ = c.Close()
}

// dropClient closes the current client, which ends its reader.
func (p *Peripheral) dropClient() {
	p.mu.Lock()
	c := p.client
	p.client = nil
	p.mu.Unlock()
	if c != nil {
		_ = c.Close()
	}
}

// clientName is the remote address, or "sim" for unix clients, whose
// address is usually empty.
func clientName(c net.Conn) string {
	if a := c.RemoteAddr(); a != nil && a.String() != "" && a.String() != "@" {
		return a.String()
	}
	return "sim"
}
