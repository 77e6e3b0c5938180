package lan

import (
	"net"
	"sync"
	"sync/atomic"
)

// capListener bounds the LAN API's open connections, per remote address
// and in total, before TLS or HTTP spend anything on them: each one is a
// file descriptor and a goroutine on a Pi with 512 MB and 1024 fds. A
// connection over a cap is closed as soon as it is accepted.
type capListener struct {
	net.Listener
	perAddr, total int

	mu      sync.Mutex
	open    map[string]int
	n       int
	refused atomic.Int64
}

func newCapListener(ln net.Listener, perAddr, total int) *capListener {
	return &capListener{Listener: ln, perAddr: perAddr, total: total, open: make(map[string]int)}
}

// Accept returns the next connection within the caps; the ones over a cap
// are closed here and counted in refused.
func (l *capListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		host := remoteHost(c)
		l.mu.Lock()
		if l.n >= l.total || l.open[host] >= l.perAddr {
			l.mu.Unlock()
			l.refused.Add(1)
			c.Close()
			continue
		}
		l.n++
		l.open[host]++
		l.mu.Unlock()
		return &capConn{Conn: c, release: sync.OnceFunc(func() { l.release(host) })}, nil
	}
}

func (l *capListener) release(host string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n--
	if l.open[host]--; l.open[host] <= 0 {
		delete(l.open, host)
	}
}

// count is the number of open connections.
func (l *capListener) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

func remoteHost(c net.Conn) string {
	a := c.RemoteAddr()
	if a == nil {
		return ""
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
}

// capConn gives its slot back once, on the first Close.
type capConn struct {
	net.Conn
	release func()
}

func (c *capConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}
