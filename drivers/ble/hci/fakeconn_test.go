package hci

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"

	gble "github.com/go-ble/ble"
)

// fakeConn is a gble.Conn with no radio behind it: the test feeds ATT PDUs
// from the central with in, and every PDU the server sends arrives on out.
type fakeConn struct {
	in     chan []byte
	out    chan []byte
	addr   net.HardwareAddr
	closed chan struct{}
	once   sync.Once

	mu    sync.Mutex
	ctx   context.Context
	rxMTU int
	txMTU int
}

func newFakeConn(addr string) *fakeConn {
	a, err := net.ParseMAC(addr)
	if err != nil {
		panic("BUG: bad test address " + addr)
	}
	return &fakeConn{
		in: make(chan []byte), out: make(chan []byte, 1024), addr: a,
		closed: make(chan struct{}), ctx: context.Background(),
		rxMTU: gble.DefaultMTU, txMTU: gble.DefaultMTU,
	}
}

func (c *fakeConn) Read(b []byte) (int, error) {
	select {
	case p := <-c.in:
		if len(p) > len(b) {
			return 0, io.ErrShortBuffer
		}
		return copy(b, p), nil
	case <-c.closed:
		return 0, io.EOF
	}
}

func (c *fakeConn) Write(b []byte) (int, error) {
	select {
	case <-c.closed:
		return 0, io.ErrClosedPipe
	default:
	}
	if len(b) > c.TxMTU() {
		return 0, errors.New("fakeConn: PDU exceeds the central's MTU")
	}
	c.out <- append([]byte(nil), b...)
	return len(b), nil
}

func (c *fakeConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *fakeConn) Context() context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ctx
}

func (c *fakeConn) SetContext(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ctx = ctx
}

func (c *fakeConn) LocalAddr() gble.Addr  { return gble.NewAddr("00:11:22:33:44:55") }
func (c *fakeConn) RemoteAddr() gble.Addr { return c.addr }

func (c *fakeConn) RxMTU() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rxMTU
}

func (c *fakeConn) SetRxMTU(mtu int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rxMTU = mtu
}

func (c *fakeConn) TxMTU() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.txMTU
}

func (c *fakeConn) SetTxMTU(mtu int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.txMTU = mtu
}

func (c *fakeConn) ReadRSSI() int                 { return -40 }
func (c *fakeConn) Disconnected() <-chan struct{} { return c.closed }

var _ gble.Conn = (*fakeConn)(nil)
