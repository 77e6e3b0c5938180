package lan

import (
	"container/list"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
)

// capListener bounds the LAN API's open connections before TLS or HTTP
// spend much on them: each one is a file descriptor and a goroutine on a
// Pi with 512 MB and 1024 fds. A connection is first "unknown" (in its
// TLS handshake), then, once its client certificate is seen (classify),
// "paired" or a "stranger".
//
//   - Unknown and stranger connections count per address (a /64 for
//     IPv6, addrKey) against perAddr.
//   - Strangers count against strangers in all, which is total less the
//     slots reserved for paired computers: however many addresses a
//     stranger has, it cannot fill the total and lock the paired hooks
//     out (issue 23 item 4). A stranger over it fails its handshake.
//   - A paired computer's connections count per certificate against its
//     share, long polls included (issue 33 item 3): one paired computer
//     holding every slot it can open, say a GET every 3 s on each, still
//     leaves the others room for their prompts. One over it fails its
//     handshake. The share is fair, shareOf: the reserved slots divided
//     by the number of paired computers, at most perClient. A fixed
//     perClient alone kept room for reserved/perClient computers only
//     (four by default): a fifth was locked out by four at their cap.
//   - At total, a new connection closes the oldest one still in its
//     handshake (a paired hook finishes its handshake in milliseconds; a
//     stalled one waits for HeaderTimeout) or, with none, is closed.
//
// A connection over a cap is closed as soon as it is accepted (or
// classified) and counted in refused.
type capListener struct {
	net.Listener
	perAddr, perClient, total, reserved, strangers int

	mu       sync.Mutex
	open     map[string]int // unknown and stranger connections per addrKey
	clients  map[string]int // paired connections per certificate fingerprint
	n        int
	nStrange int
	unknown  list.List // of *capConn, oldest first
	refused  atomic.Int64
}

func newCapListener(ln net.Listener, perAddr, perClient, total, reserved int) *capListener {
	return &capListener{Listener: ln, perAddr: perAddr, perClient: perClient, total: total, reserved: reserved, strangers: max(total-reserved, 1),
		open: make(map[string]int), clients: make(map[string]int)}
}

type connKind int

const (
	connUnknown connKind = iota
	connStranger
	connPaired
)

// Accept returns the next connection within the caps; the ones over a cap
// are closed here and counted in refused.
func (l *capListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		key := addrKey(remoteHost(c))
		l.mu.Lock()
		var evict *capConn
		if l.n >= l.total && l.open[key] < l.perAddr {
			if e := l.unknown.Front(); e != nil {
				evict = e.Value.(*capConn)
				l.dropLocked(evict)
			}
		}
		if l.n >= l.total || l.open[key] >= l.perAddr {
			l.mu.Unlock()
			l.refused.Add(1)
			c.Close()
			continue
		}
		cc := &capConn{Conn: c, l: l, key: key}
		l.n++
		l.open[key]++
		cc.elem = l.unknown.PushBack(cc)
		l.mu.Unlock()
		if evict != nil {
			l.refused.Add(1)
			evict.Conn.Close()
		}
		return cc, nil
	}
}

var errStrangers = errors.New("lan: too many connections from unpaired computers")

// minShare is the fewest connections a paired computer may always open:
// a permission long poll and one more request (an event, a tool-catalog
// poll) beside it.
const minShare = 2

// shareOf is one paired computer's cap when nPaired computers are paired.
// Each held to reserved/nPaired, all of them at their cap together fit in
// the reserved slots, which strangers cannot take (and at Accept, an
// unknown handshake is evicted before a paired connection is refused): so
// every paired computer has room for its share whatever the others and
// the strangers do. Computed at each classify from the paired set, so
// pairing a computer lowers the others' share for their next
// connections; the ones they already hold are not cut (that could drop a
// pending prompt), they end with their requests or IdleTimeout.
//
// Past reserved/minShare paired computers (32 by default) the floor wins
// and the promise weakens to "room unless the reserve is full".
func shareOf(perClient, reserved, nPaired int) int {
	return min(perClient, max(reserved/max(nPaired, 1), minShare))
}

// classify records what the handshake showed: a paired client's
// connection (fp is its certificate's fingerprint, nPaired the number of
// paired computers) leaves the per-address and stranger counts and
// counts against its computer's share (shareOf); a stranger's over the
// stranger cap, or a paired one over its computer's share, is refused
// (the handshake fails with the error).
func (l *capListener) classify(c *capConn, fp string, paired bool, nPaired int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.gone || c.kind != connUnknown {
		return nil
	}
	l.unknown.Remove(c.elem)
	if paired {
		if share := shareOf(l.perClient, l.reserved, nPaired); l.clients[fp] >= share {
			l.refused.Add(1)
			l.dropLocked(c)
			return fmt.Errorf("lan: computer %.16s… already has %d connections open, its share of the slots kept for %d paired computers (MaxConnsPerClient, ReservedConns): let its hooks finish", fp, share, nPaired)
		}
		c.kind, c.fp = connPaired, fp
		l.clients[fp]++
		l.unopen(c.key)
		return nil
	}
	if l.nStrange >= l.strangers {
		l.refused.Add(1)
		l.dropLocked(c)
		return errStrangers
	}
	c.kind = connStranger
	l.nStrange++
	return nil
}

// dropLocked gives c's slot back, once.
func (l *capListener) dropLocked(c *capConn) {
	if c.gone {
		return
	}
	c.gone = true
	l.n--
	switch c.kind {
	case connUnknown:
		l.unknown.Remove(c.elem)
		l.unopen(c.key)
	case connStranger:
		l.nStrange--
		l.unopen(c.key)
	case connPaired:
		if l.clients[c.fp]--; l.clients[c.fp] <= 0 {
			delete(l.clients, c.fp)
		}
	}
}

func (l *capListener) unopen(key string) {
	if l.open[key]--; l.open[key] <= 0 {
		delete(l.open, key)
	}
}

// count is the number of open connections.
func (l *capListener) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

// tlsConfig is base with the handshake classifying each connection by
// paired, which gives a client certificate's fingerprint, whether it is
// paired and how many computers are paired.
func (l *capListener) tlsConfig(base *tls.Config, paired func(der []byte) (fp string, ok bool, nPaired int)) *tls.Config {
	cfg := base.Clone()
	cfg.GetConfigForClient = func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
		cc, ok := hello.Conn.(*capConn)
		if !ok {
			return nil, nil
		}
		c := base.Clone()
		c.VerifyConnection = func(cs tls.ConnectionState) error {
			if base.VerifyConnection != nil {
				if err := base.VerifyConnection(cs); err != nil {
					return err
				}
			}
			fp, ok, n := paired(cs.PeerCertificates[0].Raw)
			return l.classify(cc, fp, ok, n)
		}
		return c, nil
	}
	return cfg
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
	l    *capListener
	key  string
	fp   string // a paired connection's certificate fingerprint
	kind connKind
	elem *list.Element
	gone bool // slot given back (guarded by l.mu)
}

func (c *capConn) Close() error {
	err := c.Conn.Close()
	c.l.mu.Lock()
	c.l.dropLocked(c)
	c.l.mu.Unlock()
	return err
}
