package serial

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	bugst "go.bug.st/serial"
)

// ErrClosed is returned by Read and Write after Close or after the context
// given to Open/OpenPath ended.
var ErrClosed = errors.New("serial: port closed")

// ErrDisconnected is returned (wrapped, with the path) once the device went
// away: unplugged, reset or its pty master closed. The Port is dead; Close it
// and wait for the Watcher to report the next Plugged.
var ErrDisconnected = errors.New("serial: device disconnected")

// Opts configures discovery and opening. The zero value works.
type Opts struct {
	// Serial pins discovery to one USB serial number (config dock.serial).
	// Empty accepts any CoreS3; with several plugged in the lowest path wins.
	Serial string
	// DTR and RTS, when non-nil, are set together (one TIOCMSET) right
	// after opening and never touched again: toggling them can reset the
	// ESP32-S3 (spec §1). nil stands for raised, as the kernel raises both
	// when it opens the port. The two mixed combinations are refused (see
	// WantLines): the only settings are both raised or both low.
	DTR, RTS *bool
	// Settle is the pause after opening before the caller may start the
	// HELLO handshake (spec §1: at least 0.5 s). Zero means 500 ms; tests set
	// a tiny positive value.
	Settle time.Duration
	// ReadTimeout bounds each underlying read so a Read re-checks for Close
	// and context cancellation. Zero means 200 ms. It never surfaces to
	// callers: Read keeps waiting until there is data.
	ReadTimeout time.Duration
	// Enumerate lists ports for Open; nil means SysfsEnumerator.
	Enumerate Enumerator
	// Logger receives debug lines about opening; nil means slog.Default().
	Logger *slog.Logger

	// openTTY opens the device; nil means go.bug.st/serial's Open. Tests
	// put a fake here that records the line states.
	openTTY func(path string, mode *bugst.Mode) (bugst.Port, error)
}

// DefaultOpts documents the defaults the zero Opts stands for.
var DefaultOpts = Opts{Settle: 500 * time.Millisecond, ReadTimeout: 200 * time.Millisecond}

// Baud is the line coding the upstream hosts set. The transfer is native
// USB, so it only matters to the tty layer.
const Baud = 115200

// fastZeroLimit is how many (0, nil) reads in a row that returned well
// before the read timeout Read tolerates before it calls the port dead: a
// guard against a driver that reports "readable, nothing there" forever,
// which would otherwise be a busy loop.
const fastZeroLimit = 64

// Port is an opened CoreS3 port. Read and Write may run concurrently with
// each other and with Close; one reader and one writer at a time.
type Port struct {
	sp      bugst.Port
	path    string
	timeout time.Duration
	log     *slog.Logger
	stop    func() bool // detaches the context's AfterFunc

	wmu       sync.Mutex
	closed    atomic.Bool
	dead      atomic.Bool
	closeOnce sync.Once
	closeErr  error
	reads     atomic.Int64 // underlying Read calls, observed by tests
}

// Open finds the CoreS3 (see Find) and opens it with OpenPath.
func Open(ctx context.Context, opts *Opts) (*Port, error) {
	d, err := Find(opts)
	if err != nil {
		return nil, err
	}
	return OpenPath(ctx, d.Name, opts)
}

// OpenPath opens path as the dock port without discovery (--dock-port),
// applies DTR/RTS from opts and waits opts.Settle. When ctx ends, the Port
// closes itself. opts may be nil.
func OpenPath(ctx context.Context, path string, opts *Opts) (*Port, error) {
	var o Opts
	if opts != nil {
		o = *opts
	}
	if o.Settle <= 0 {
		o.Settle = DefaultOpts.Settle
	}
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = DefaultOpts.ReadTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.openTTY == nil {
		o.openTTY = bugst.Open
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	want, err := WantLines(o.DTR, o.RTS)
	if err != nil {
		return nil, fmt.Errorf("serial: %s: %w", path, err)
	}
	sp, err := openWithLines(o.openTTY, path, want, o.DTR != nil || o.RTS != nil, o.Logger)
	if err != nil {
		return nil, openError(path, err)
	}
	if err := sp.SetReadTimeout(o.ReadTimeout); err != nil {
		sp.Close()
		return nil, fmt.Errorf("serial: %s: setting read timeout: %w", path, err)
	}
	p := &Port{sp: sp, path: path, timeout: o.ReadTimeout, log: o.Logger}
	p.stop = context.AfterFunc(ctx, func() { p.shutdown() })
	t := time.NewTimer(o.Settle)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		p.Close()
		return nil, ctx.Err()
	}
	o.Logger.Debug("dock port open", "path", path, "settle", o.Settle)
	return p, nil
}

// Path returns the device path the Port was opened on.
func (p *Port) Path() string { return p.path }

// String names the port for logs.
func (p *Port) String() string { return "serial(" + p.path + ")" }

// Read blocks until at least one byte arrives and returns it. It never
// returns (0, nil) for a non-empty p: a quiet line just keeps it waiting.
// It ends with ErrClosed after Close or context end, and with an error
// wrapping ErrDisconnected when the device goes away.
func (p *Port) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	fastZeros := 0
	for {
		if p.closed.Load() {
			return 0, ErrClosed
		}
		if p.dead.Load() {
			return 0, p.disconnected(nil)
		}
		p.reads.Add(1)
		start := time.Now()
		n, err := p.sp.Read(b)
		if n > 0 {
			return n, nil
		}
		if err != nil {
			return 0, p.classify(err)
		}
		if time.Since(start) < p.timeout/2 {
			if fastZeros++; fastZeros >= fastZeroLimit {
				p.dead.Store(true)
				return 0, p.disconnected(errors.New("port keeps reporting readable with no data"))
			}
		} else {
			fastZeros = 0
		}
	}
}

// Write writes all of b or fails. Writes are serialised, so concurrent
// callers never interleave within one frame.
func (p *Port) Write(b []byte) (int, error) {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	done := 0
	for done < len(b) {
		if p.closed.Load() {
			return done, ErrClosed
		}
		if p.dead.Load() {
			return done, p.disconnected(nil)
		}
		n, err := p.sp.Write(b[done:])
		done += n
		if err != nil {
			if errors.Is(err, syscall.EINTR) || errors.Is(err, syscall.EAGAIN) {
				continue
			}
			return done, p.classify(err)
		}
		if n == 0 {
			return done, p.classify(io.ErrShortWrite)
		}
	}
	return done, nil
}

// Close releases the port and makes a pending Read return ErrClosed at once
// (the library wakes its select through a pipe). Safe to call more than once.
func (p *Port) Close() error {
	p.stop() // the context no longer needs to hold the Port
	return p.shutdown()
}

// shutdown is Close without detaching the context, which the context's own
// callback must not touch (p.stop may still be being assigned).
func (p *Port) shutdown() error {
	p.closeOnce.Do(func() {
		p.closed.Store(true)
		p.closeErr = p.sp.Close()
		if p.closeErr != nil && p.dead.Load() {
			// Closing an unplugged device may fail; nothing is left to leak.
			p.closeErr = nil
		}
	})
	return p.closeErr
}

// classify maps a library or syscall error to ErrClosed, ErrDisconnected or
// a path-named error.
func (p *Port) classify(err error) error {
	if p.closed.Load() {
		return ErrClosed
	}
	var pe *bugst.PortError
	switch {
	case errors.As(err, &pe) && pe.Code() == bugst.PortClosed,
		errors.Is(err, io.EOF),
		errors.Is(err, syscall.EIO),
		errors.Is(err, syscall.ENXIO),
		errors.Is(err, syscall.ENODEV),
		errors.Is(err, syscall.EBADF),
		errors.Is(err, syscall.EPIPE):
		// The library reports a hung-up tty (zero-length read) as PortClosed
		// even though nobody called Close; EBADF follows a racing close.
		p.dead.Store(true)
		return p.disconnected(err)
	}
	return fmt.Errorf("serial: %s: %w", p.path, err)
}

func (p *Port) disconnected(cause error) error {
	if cause == nil {
		return fmt.Errorf("%w: %s", ErrDisconnected, p.path)
	}
	return fmt.Errorf("%w: %s: %v", ErrDisconnected, p.path, cause)
}

var _ io.ReadWriteCloser = (*Port)(nil)
