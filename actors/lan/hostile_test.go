package lan

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"

	"github.com/claude-pi/claude-pi/drivers/lanpair"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
	"github.com/claude-pi/claude-pi/supervisor"
)

// stranger is a computer nobody paired: its own certificate, any server
// certificate accepted (as `claude-pi pair` does before the codes match).
func stranger(t *testing.T, name string) *http.Client {
	t.Helper()
	id, err := lanpair.LoadOrCreate(filepath.Join(t.TempDir(), "identity.pem"), name)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: lanpair.ClientConfig(id, ""), DisableKeepAlives: true}}
}

// TestPairingRequestsOneAtATimeAndRateLimited: one stranger's request is
// on the screen; the next ones are refused while it is fresh (at most one
// shown at a time), and past the burst the address is rate limited.
func TestPairingRequestsOneAtATimeAndRateLimited(t *testing.T) {
	r := newRig(t)
	addr := r.state(t).Addr
	mallory := newPeer(t, addr, "mallory", "")
	ctx, cancel := context.WithCancel(context.Background())
	nc := fresh()
	np, _, _ := mallory.commit(t, "mallory", hookbridge.Commitment(mallory.cert(), mallory.piCert, nc))
	first := mallory.revealAsync(ctx, nc)
	code := hookbridge.Code(mallory.cert(), mallory.piCert, nc, np)
	waitFor(t, "the first pairing request on the screen", func() bool { p := r.state(t).Pairing; return p != nil && p.Code == code })
	var statuses []int
	for i := 0; i < pairBurst; i++ {
		_, st, _ := newPeer(t, addr, "eve", "").commit(t, "eve", fresh())
		statuses = append(statuses, st)
	}
	// The first request took one token of the burst.
	want := []int{http.StatusConflict, http.StatusConflict, http.StatusTooManyRequests}
	for i := range want {
		if statuses[i] != want[i] {
			t.Fatalf("pairing requests 2..%d answered %v, want %v", pairBurst+1, statuses, want)
		}
	}
	if p := r.state(t).Pairing; p == nil || p.Name != "mallory" {
		t.Fatalf("pairing on the screen %+v, want the first request's", p)
	}
	cancel()
	<-first
	waitFor(t, "the abandoned pairing off the screen", func() bool { return r.state(t).Pairing == nil })
	if n := len(r.state(t).Clients); n != 2 {
		t.Fatalf("%d clients, want the 2 paired before", n)
	}
}

// closedWithin reads from c until the server closes it; it fails the
// test if c is still open after d (a generous bound: the timeouts under
// test are a fraction of it).
func closedWithin(t *testing.T, c net.Conn, br *bufio.Reader, d time.Duration) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, br)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Errorf("connection %s still open %v later", c.LocalAddr(), d)
	}
}

// strangerConn is a raw keep-alive TLS connection from an unpaired
// computer; hello sends one request on it and reads the answer.
func strangerConn(t *testing.T, addr string) (*tls.Conn, *bufio.Reader) {
	t.Helper()
	id, err := lanpair.LoadOrCreate(filepath.Join(t.TempDir(), "identity.pem"), "idler")
	if err != nil {
		t.Fatal(err)
	}
	c, err := tls.Dial("tcp", addr, lanpair.ClientConfig(id, ""))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, bufio.NewReader(c)
}

func hello(t *testing.T, c net.Conn, br *bufio.Reader) int {
	t.Helper()
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: pi\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}", hookbridge.PathEvent)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.Close {
		t.Fatalf("the server closed after %s; the test needs a keep-alive connection", resp.Status)
	}
	return resp.StatusCode
}

// TestIdleConnectionsAreClosed is issue 19's second defect: 40 idle
// keep-alive connections from an unpaired client stayed open for good.
// Now each is closed once idle for IdleTimeout, and the count of open
// connections comes back to zero.
func TestIdleConnectionsAreClosed(t *testing.T) {
	const idlers = 40
	r := newRigWith(t, func(o *Options) { o.IdleTimeout = 100 * time.Millisecond; o.MaxConnsPerAddr = 2 * idlers })
	addr := r.state(t).Addr
	var wg sync.WaitGroup
	for i := 0; i < idlers; i++ {
		c, br := strangerConn(t, addr)
		if st := hello(t, c, br); st != http.StatusForbidden && st != http.StatusTooManyRequests {
			t.Fatalf("a stranger's event answered %d, want 403 (or 429)", st)
		}
		wg.Add(1)
		go func() { defer wg.Done(); closedWithin(t, c, br, 10*time.Second) }()
	}
	wg.Wait()
	waitFor(t, "no open connections", func() bool { return r.state(t).Conns == 0 })
}

// TestSlowClientsAreClosed: a connection that never finishes its TLS
// handshake, or sends headers and then no body, is closed after the
// header or read timeout.
func TestSlowClientsAreClosed(t *testing.T) {
	r := newRigWith(t, func(o *Options) { o.HeaderTimeout = 100 * time.Millisecond; o.ReadTimeout = 200 * time.Millisecond })
	addr := r.state(t).Addr
	silent, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	c, br := strangerConn(t, addr)
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: pi\r\nContent-Length: 1000\r\n\r\n{", hookbridge.PathPair)
	closedWithin(t, silent, bufio.NewReader(silent), 10*time.Second)
	closedWithin(t, c, br, 10*time.Second)
	waitFor(t, "no open connections", func() bool { return r.state(t).Conns == 0 })
}

// TestConnectionCaps: past MaxConnsPerAddr, a new connection from the
// same address is closed at once; a slot freed is usable again.
func TestConnectionCaps(t *testing.T) {
	const perAddr = 4
	r := newRigWith(t, func(o *Options) { o.MaxConnsPerAddr = perAddr })
	addr := r.state(t).Addr
	var open []net.Conn
	for i := 0; i < perAddr; i++ {
		c, br := strangerConn(t, addr)
		hello(t, c, br)
		open = append(open, c)
	}
	over, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer over.Close()
	closedWithin(t, over, bufio.NewReader(over), 10*time.Second)
	if st := r.state(t); st.Conns != perAddr || st.ConnsRefused < 1 {
		t.Fatalf("%d open, %d refused; want %d open and the one over the cap refused", st.Conns, st.ConnsRefused, perAddr)
	}
	open[0].Close()
	waitFor(t, "the slot freed", func() bool { return r.state(t).Conns == perAddr-1 })
	c, br := strangerConn(t, addr)
	hello(t, c, br)
}

// TestPendingLongPollOutlivesTheTimeouts: a paired hook's permission
// long-poll stays open past the read timeout while its prompt is
// pending, gets its decision, and is then closed once idle.
func TestPendingLongPollOutlivesTheTimeouts(t *testing.T) {
	r := newRigWith(t, func(o *Options) {
		o.ReadTimeout, o.IdleTimeout = 200*time.Millisecond, 100*time.Millisecond
	})
	addr := r.state(t).Addr
	hc := r.httpClient(t)
	hc.Transport.(*http.Transport).DisableKeepAlives = false
	resp, err := r.ask(t, hc, addr, "r1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	waitFor(t, "the prompt in approvals", func() bool { return r.pending(t) == 1 })
	// Five read timeouts later the prompt is still there: its
	// connection was not cut.
	time.Sleep(time.Second)
	if n := r.pending(t); n != 1 {
		t.Fatalf("%d prompts pending after the read timeout, want the long-poll's", n)
	}
	res, err := r.system.Root.RequestFuture(supervisor.ServicePID(r.system, "approvals"),
		approvals.Decide{Source: SourcePrefix + "s-r1", ID: "r1", Decision: approvals.AllowOnce, By: "test"}, 2*time.Second).Result()
	if err != nil || !res.(approvals.DecideResult).OK {
		t.Fatalf("decide: %v %+v", err, res)
	}
	var d hookbridge.Decision
	if err := json.NewDecoder(resp.Body).Decode(&d); err != nil || d.Behavior != hookbridge.BehaviorAllow {
		t.Fatalf("long-poll answered %+v (%v), want allow", d, err)
	}
	waitFor(t, "the hook's connection closed once idle", func() bool { return r.state(t).Conns == 0 })
}

// TestPairedClientOutrunsTheStrangersRateLimit: a paired computer has its
// own bucket. The real CLI fires a hook per tool call and event, several
// within milliseconds, and a 429 there loses the prompt (the CLI denies
// the call), so 60 back-to-back events all get through, while a stranger
// from the same address is still cut off after the strangers' burst.
func TestPairedClientOutrunsTheStrangersRateLimit(t *testing.T) {
	r := newRig(t)
	addr := r.state(t).Addr
	hc := r.httpClient(t)
	for i := range 60 {
		if st := postEvent(t, hc, addr, "s-busy"); st == http.StatusTooManyRequests {
			t.Fatalf("event %d of a paired client was rate limited", i)
		}
	}
	sc := stranger(t, "mallory")
	limited := false
	for range 60 {
		resp, err := sc.Post("https://"+addr+hookbridge.PathEvent, "application/json", bytes.NewReader([]byte("{}")))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests {
			limited = true
			break
		}
	}
	if !limited {
		t.Fatal("60 back-to-back requests of a stranger were never rate limited")
	}
}

// TestConnectionSlotsReservedForPaired is issue 23 item 4: strangers from
// several addresses hold every connection they are allowed, and as many
// stalled handshakes as fit on top, and a paired hook still gets through:
// strangers never hold more than MaxConns-ReservedConns, and a new
// connection at the total closes the oldest stalled handshake.
func TestConnectionSlotsReservedForPaired(t *testing.T) {
	const total, reserved, perAddr = 16, 8, 4
	r := newRigWith(t, func(o *Options) {
		o.MaxConns, o.ReservedConns, o.MaxConnsPerAddr = total, reserved, perAddr
		o.IdleTimeout = time.Minute // the strangers' keep-alives stay open for the test
	})
	addr := r.state(t).Addr
	id, err := lanpair.LoadOrCreate(filepath.Join(t.TempDir(), "identity.pem"), "stranger")
	if err != nil {
		t.Fatal(err)
	}
	held := 0
	for a := range 4 { // 4 addresses × perAddr: twice what strangers may hold
		for range perAddr {
			d := &tls.Dialer{NetDialer: &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(60+a))}}, Config: lanpair.ClientConfig(id, "")}
			c, err := d.DialContext(context.Background(), "tcp", addr)
			if err != nil {
				continue
			}
			t.Cleanup(func() { c.Close() })
			fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: pi\r\nContent-Length: 2\r\n\r\n{}", hookbridge.PathEvent)
			if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
				resp.Body.Close()
				held++
			}
		}
	}
	if held != total-reserved {
		t.Fatalf("strangers hold %d connections, want %d (MaxConns-ReservedConns)", held, total-reserved)
	}
	// Stalled handshakes fill the rest.
	for a := range 4 {
		for range perAddr {
			c, err := (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(80+a))}}).Dial("tcp", addr)
			if err == nil {
				t.Cleanup(func() { c.Close() })
			}
		}
	}
	waitFor(t, "the connections at the total", func() bool { return r.state(t).Conns == total })
	hc := r.httpClient(t)
	for i := range 3 {
		if st := postEvent(t, hc, addr, "s-paired"); st != http.StatusNoContent {
			t.Fatalf("paired event %d with strangers holding every slot: %d", i, st)
		}
	}
	if st := r.state(t); st.Conns > total {
		t.Fatalf("%d connections open, over the total of %d", st.Conns, total)
	}
}

// postEvent posts a PreToolUse of session with hc and returns the status.
func postEvent(t *testing.T, hc *http.Client, addr, session string) int {
	t.Helper()
	body, _ := json.Marshal(hookbridge.Event{Session: session, Event: "PreToolUse", Project: "engine"})
	resp, err := hc.Post("https://"+addr+hookbridge.PathEvent, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("event of %s: %v", session, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestOnePairedComputerCannotCrowdOutAnother is issue 33 item 3: paired
// computer A opened every connection it could, one permission long poll
// and the rest kept alive with a request each, and computer B's
// permission hook got EOF. Now each paired computer holds at most its
// share (shareOf), its long poll included, and B's prompt reaches the
// Pi. With five computers, four at a fixed cap of ReservedConns/4 filled
// the reserve and locked the fifth out; their fair share leaves it room.
func TestOnePairedComputerCannotCrowdOutAnother(t *testing.T) {
	cases := []struct {
		name                 string
		crowders             int // paired computers holding all they can
		total, perClient     int // MaxConns = ReservedConns, MaxConnsPerClient
		wantHeld, wantShared int // what each crowder holds; the slots all of them hold
	}{
		{name: "two computers", crowders: 1, total: 8, perClient: 3, wantHeld: 3, wantShared: 3},
		// 12 reserved, 5 paired: a share of 2 each, not the fixed 3 that
		// let four crowders fill all 12.
		{name: "five computers", crowders: 4, total: 12, perClient: 3, wantHeld: 2, wantShared: 8},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRigWith(t, func(o *Options) {
				o.MaxConns, o.ReservedConns, o.MaxConnsPerClient = tc.total, tc.total, tc.perClient
				o.IdleTimeout = time.Minute // the crowders' keep-alives stay open for the test
			})
			ids := []tls.Certificate{r.client}
			clients := []Client{r.me}
			for i := range tc.crowders {
				name := fmt.Sprintf("desktop%d", i)
				id, err := lanpair.LoadOrCreate(filepath.Join(t.TempDir(), "identity.pem"), name)
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, id)
				clients = append(clients, Client{Name: name, Fingerprint: hookbridge.Fingerprint(id.Certificate[0]), Paired: time.Unix(2000, 0).UTC()})
			}
			// ids[0] (the rig's laptop) is the last to ask; the others crowd.
			if err := lanpair.WriteJSON(ClientsPath(r.data), clients); err != nil {
				t.Fatal(err)
			}
			if err := r.tree.SignalProcess("lan", "HUP"); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "every computer paired", func() bool { return len(r.state(t).Clients) == tc.crowders+1 })
			addr := r.state(t).Addr
			piCfg := r.httpClient(t).Transport.(*http.Transport).TLSClientConfig
			as := func(id tls.Certificate) *tls.Config {
				cfg := piCfg.Clone()
				cfg.Certificates = []tls.Certificate{id}
				return cfg
			}

			for i, id := range ids[1:] {
				hc := &http.Client{Transport: &http.Transport{TLSClientConfig: as(id), DisableKeepAlives: true}}
				poll, err := r.ask(t, hc, addr, fmt.Sprintf("c%d", i))
				if err != nil {
					t.Fatal(err)
				}
				defer poll.Body.Close()
				waitFor(t, "the crowder's prompt in approvals", func() bool { return r.pending(t) == i+1 })
				held := 1 // the long poll
				for range tc.total {
					c, err := tls.Dial("tcp", addr, as(id))
					if err != nil {
						continue
					}
					t.Cleanup(func() { c.Close() })
					fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: pi\r\n\r\n", hookbridge.PathTools)
					resp, err := http.ReadResponse(bufio.NewReader(c), nil)
					if err != nil {
						continue // over its share: the handshake failed
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					held++
				}
				if held != tc.wantHeld {
					t.Fatalf("crowder %d holds %d connections, want %d", i, held, tc.wantHeld)
				}
			}
			if st := r.state(t); st.Conns != tc.wantShared {
				t.Fatalf("%d connections open, want the crowders' %d", st.Conns, tc.wantShared)
			}

			hcB := &http.Client{Transport: &http.Transport{TLSClientConfig: as(ids[0]), DisableKeepAlives: true}}
			resp, err := r.ask(t, hcB, addr, "b1")
			if err != nil {
				t.Fatalf("the last computer's permission hook with the others at their share: %v", err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("the last computer's permission hook answered %s", resp.Status)
			}
			waitFor(t, "its prompt in approvals beside the crowders'", func() bool { return r.pending(t) == tc.crowders+1 })
		})
	}
}

// TestShareKeepsRoomForEveryPairedComputer: however many computers are
// paired (up to reserved/minShare), all of them at their share fit in the
// reserve, and none is held under minShare or over perClient.
func TestShareKeepsRoomForEveryPairedComputer(t *testing.T) {
	const perClient, reserved = 16, 64
	for n := 1; n <= reserved/minShare; n++ {
		share := shareOf(perClient, reserved, n)
		if share*n > reserved || share < minShare || share > perClient {
			t.Fatalf("%d paired: a share of %d (%d in all, %d reserved)", n, share, share*n, reserved)
		}
	}
	for _, c := range []struct{ n, want int }{{0, 16}, {1, 16}, {4, 16}, {5, 12}, {32, 2}, {100, 2}} {
		if got := shareOf(perClient, reserved, c.n); got != c.want {
			t.Errorf("shareOf(%d, %d, %d) = %d, want %d", perClient, reserved, c.n, got, c.want)
		}
	}
}
