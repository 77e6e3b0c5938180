package lan

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/drivers/lanpair"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
	"github.com/claude-pi/claude-pi/supervisor"
)

// peer is a computer speaking pairing v2 by hand, step by step, from a
// loopback address of its own (127.0.0.0/8 is all loopback on Linux), so
// that a test can break the protocol where a client would not.
type peer struct {
	id     tls.Certificate
	hc     *http.Client
	addr   string
	piCert []byte // the Pi's certificate as this peer's sessions see it
}

func newPeer(t *testing.T, addr, name, from string) *peer {
	t.Helper()
	id, err := lanpair.LoadOrCreate(filepath.Join(t.TempDir(), "identity.pem"), name)
	if err != nil {
		t.Fatal(err)
	}
	return peerWith(t, addr, id, from)
}

func peerWith(t *testing.T, addr string, id tls.Certificate, from string) *peer {
	t.Helper()
	p := &peer{id: id, addr: addr}
	cfg := lanpair.ClientConfig(id, "")
	inner := cfg.VerifyConnection
	cfg.VerifyConnection = func(cs tls.ConnectionState) error {
		p.piCert = cs.PeerCertificates[0].Raw
		return inner(cs)
	}
	var local net.Addr
	if from != "" {
		local = &net.TCPAddr{IP: net.ParseIP(from)}
	}
	d := &tls.Dialer{NetDialer: &net.Dialer{LocalAddr: local, Timeout: 5 * time.Second}, Config: cfg}
	p.hc = &http.Client{Transport: &http.Transport{DialTLSContext: d.DialContext, DisableKeepAlives: true}}
	// One handshake first, to learn the Pi's certificate as the real
	// client does.
	c, err := d.DialContext(context.Background(), "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	return p
}

func (p *peer) cert() []byte { return p.id.Certificate[0] }

// post sends body to path and returns the status and the body.
func (p *peer) post(ctx context.Context, path string, body any) (int, []byte, error) {
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://"+p.addr+path, bytes.NewReader(b))
	if err != nil {
		return 0, nil, err
	}
	resp, err := p.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out, nil
}

// commit is step 1 with commitment c; it returns the Pi's nonce, or nil
// and the status when refused.
func (p *peer) commit(t *testing.T, name string, c []byte) ([]byte, int, string) {
	t.Helper()
	st, b, err := p.post(context.Background(), hookbridge.PathPair, hookbridge.PairCommit{Name: name, Commitment: hex.EncodeToString(c)})
	if err != nil {
		t.Fatal(err)
	}
	if st != http.StatusOK {
		return nil, st, string(b)
	}
	np, _, err := hookbridge.DecodePairNonce(b)
	if err != nil {
		t.Fatalf("the Pi's nonce %s: %v", b, err)
	}
	return np, st, ""
}

// revealAsync is step 3; its answer waits for the button.
func (p *peer) revealAsync(ctx context.Context, nc []byte) chan result {
	ch := make(chan result, 1)
	go func() {
		st, b, err := p.post(ctx, hookbridge.PathPairReveal, hookbridge.PairReveal{Nonce: hex.EncodeToString(nc)})
		ch <- result{st, string(b), err}
	}()
	return ch
}

type result struct {
	status int
	body   string
	err    error
}

func recv(t *testing.T, ch chan result) result {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("no answer in 10 s")
	}
	return result{}
}

func fresh() []byte {
	b := make([]byte, hookbridge.NonceSize)
	rand.Read(b)
	return b
}

// show runs steps 1 to 3 honestly and waits for the code on the Pi's
// screen; it returns the code and the reveal's pending answer.
func (p *peer) show(t *testing.T, r *rig, name string) (string, chan result) {
	t.Helper()
	nc := fresh()
	np, st, body := p.commit(t, name, hookbridge.Commitment(p.cert(), p.piCert, nc))
	if np == nil {
		t.Fatalf("commit: %d %s", st, body)
	}
	ans := p.revealAsync(context.Background(), nc)
	code := hookbridge.Code(p.cert(), p.piCert, nc, np)
	waitFor(t, "the code "+code+" on the Pi", func() bool {
		pr := r.state(t).Pairing
		return pr != nil && pr.Code == code
	})
	return code, ans
}

func (r *rig) send(m any) { r.system.Root.Send(supervisor.ServicePID(r.system, "lan"), m) }

// TestPairV2 is a whole pairing with lanpair.Pair, the client that
// `claude-pi pair` runs: both ends show the same code, approve and y pair
// the computer, and the pin is the Pi's own certificate. Then N on the
// computer (issue 23 item 4) takes the next request off the Pi's screen.
func TestPairV2(t *testing.T) {
	r := newRig(t)
	addr := r.state(t).Addr
	id, err := lanpair.LoadOrCreate(filepath.Join(t.TempDir(), "identity.pem"), "ada")
	if err != nil {
		t.Fatal(err)
	}
	pair := func(confirm bool) (lanpair.Paired, string, error) {
		codes := make(chan string, 1)
		done := make(chan error, 1)
		var p lanpair.Paired
		go func() {
			var err error
			p, err = lanpair.Pair(context.Background(), lanpair.PairOptions{Identity: id, Addr: addr, Name: "ada-laptop",
				Code:    func(c string) { codes <- c },
				Confirm: func(_, _ string) bool { return confirm }})
			done <- err
		}()
		code := <-codes
		waitFor(t, "the code on the Pi", func() bool { pr := r.state(t).Pairing; return pr != nil && pr.Code == code })
		r.send(AcceptPairing{Code: code})
		err := <-done
		return p, code, err
	}
	p, _, err := pair(true)
	if err != nil {
		t.Fatal(err)
	}
	piID, _ := lanpair.LoadOrCreate(filepath.Join(r.data, "lan", "identity.pem"), "unused")
	if p.Pin != hookbridge.Fingerprint(piID.Certificate[0]) || p.Device == "" {
		t.Fatalf("paired %+v, want the Pi's own certificate pinned", p)
	}
	st := r.state(t)
	if len(st.Clients) != 3 || st.Clients[2].Name != "ada-laptop" || st.Pairing != nil {
		t.Fatalf("after pairing: %+v", st)
	}
	// Pairing again (a lost pis.json) runs the whole protocol, code and
	// all; the computer keeps its one entry.
	if _, _, err := pair(true); err != nil {
		t.Fatal(err)
	}
	if n := len(r.state(t).Clients); n != 3 {
		t.Fatalf("%d clients after pairing the same computer again, want 3", n)
	}
	if _, _, err := pair(false); !errors.Is(err, lanpair.ErrNotConfirmed) {
		t.Fatalf("N on the computer: %v", err)
	}
	waitFor(t, "N on the computer takes the pairing off the Pi", func() bool { return r.state(t).Pairing == nil })
}

// TestAcceptedPairingExpires: approve held, then nobody answers on the
// computer: the pairing leaves the Pi's screen after AcceptTimeout, and a
// late y is refused.
func TestAcceptedPairingExpires(t *testing.T) {
	r := newRigWith(t, func(o *Options) { o.AcceptTimeout = 300 * time.Millisecond })
	p := newPeer(t, r.state(t).Addr, "ada", "")
	code, ans := p.show(t, r, "ada")
	r.send(AcceptPairing{Code: code})
	if a := recv(t, ans); a.status != http.StatusOK || !strings.Contains(a.body, `"accepted"`) {
		t.Fatalf("reveal after approve: %+v", a)
	}
	waitFor(t, "the accepted pairing expired", func() bool { return r.state(t).Pairing == nil })
	if st, b, _ := p.post(context.Background(), hookbridge.PathPairConfirm, struct{}{}); st != http.StatusForbidden {
		t.Fatalf("a late confirmation: %d %s", st, b)
	}
	if len(r.state(t).Clients) != 2 {
		t.Fatal("an expired pairing was paired")
	}
}

// TestBRefusesAtEveryStage: B on the code refuses the waiting reveal; B
// after approve (waiting for the computer) ends it too, and the
// computer's y then pairs nothing.
func TestBRefusesAtEveryStage(t *testing.T) {
	r := newRig(t)
	p := newPeer(t, r.state(t).Addr, "ada", "")
	_, ans := p.show(t, r, "ada")
	r.send(RefusePairing{})
	if a := recv(t, ans); a.status != http.StatusOK || !strings.Contains(a.body, `"refused"`) {
		t.Fatalf("reveal after B: %+v", a)
	}
	waitFor(t, "the refused pairing off the screen", func() bool { return r.state(t).Pairing == nil })

	code, ans := p.show(t, r, "ada")
	r.send(AcceptPairing{Code: code})
	recv(t, ans)
	r.send(RefusePairing{})
	waitFor(t, "B after approve ends the pairing", func() bool { return r.state(t).Pairing == nil })
	if st, _, _ := p.post(context.Background(), hookbridge.PathPairConfirm, struct{}{}); st != http.StatusForbidden || len(r.state(t).Clients) != 2 {
		t.Fatalf("y after B: %d, %d clients", st, len(r.state(t).Clients))
	}
}

// TestStalePairingIsReplaced is issue 23 item 4: a stranger's request on
// the screen keeps the owner's out only until it is stale (staleAfter
// unanswered); then the owner's request takes the screen, and the
// stranger's long-poll is told it was replaced.
func TestStalePairingIsReplaced(t *testing.T) {
	clock := &fakeClock{t: time.Unix(5000, 0)}
	r := newRigWith(t, func(o *Options) { o.Now = clock.now })
	addr := r.state(t).Addr
	mallory := newPeer(t, addr, "mallory", "127.0.0.2")
	_, held := mallory.show(t, r, "mallory")

	ada := newPeer(t, addr, "ada", "127.0.0.3")
	nc := fresh()
	if np, st, body := ada.commit(t, "ada", hookbridge.Commitment(ada.cert(), ada.piCert, nc)); np != nil || st != http.StatusConflict || !strings.Contains(body, "press B") {
		t.Fatalf("a second request while the first is fresh: %d %s", st, body)
	}
	clock.add(staleAfter)
	code, _ := ada.show(t, r, "ada")
	if a := recv(t, held); !strings.Contains(a.body, "replaced") {
		t.Fatalf("the stale request's long-poll: %+v", a)
	}
	if pr := r.state(t).Pairing; pr == nil || pr.Name != "ada" || pr.Code != code {
		t.Fatalf("on the screen: %+v", pr)
	}
}

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestOldPairingClientIsToldToUpdate: `claude-pi pair` from before v2
// posts to /v1/pair; it gets 410 and a message that names the fix.
func TestOldPairingClientIsToldToUpdate(t *testing.T) {
	r := newRig(t)
	p := newPeer(t, r.state(t).Addr, "old", "")
	for _, path := range []string{hookbridge.PathPairV1, hookbridge.PathPairConfirmV1} {
		st, b, err := p.post(context.Background(), path, map[string]string{"name": "old"})
		if err != nil || st != http.StatusGone || !strings.Contains(string(b), "update claude-pi on this computer") {
			t.Fatalf("%s: %d %s %v", path, st, b, err)
		}
	}
}

// TestClientCertificateMustBeSelfSigned: RequireAnyClientCert checks only
// that the client holds the key; a certificate whose signature is
// garbage (what a relay grinding free bytes would send) fails the
// handshake.
func TestClientCertificateMustBeSelfSigned(t *testing.T) {
	r := newRig(t)
	id, err := lanpair.LoadOrCreate(filepath.Join(t.TempDir(), "identity.pem"), "forger")
	if err != nil {
		t.Fatal(err)
	}
	c, _ := x509.ParseCertificate(id.Certificate[0])
	der := bytes.Clone(id.Certificate[0])
	sig := bytes.LastIndex(der, c.Signature)
	der[sig+len(c.Signature)-1] ^= 0xff
	forged := tls.Certificate{Certificate: [][]byte{der}, PrivateKey: id.PrivateKey}
	// TLS 1.3 finishes the client's handshake before the server has
	// checked the client's certificate, so ask something: an accepted
	// stranger gets 403, a refused one no answer at all.
	ask := func(id tls.Certificate) error {
		hc := &http.Client{Transport: &http.Transport{TLSClientConfig: lanpair.ClientConfig(id, ""), DisableKeepAlives: true}}
		resp, err := hc.Post("https://"+r.state(t).Addr+hookbridge.PathEvent, "application/json", strings.NewReader("{}"))
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	if err := ask(forged); err == nil || !strings.Contains(err.Error(), "bad certificate") {
		t.Fatalf("a certificate with a broken signature: %v, want the handshake refused", err)
	}
	if err := ask(id); err != nil {
		t.Fatalf("the same certificate, signed: %v", err)
	}
}

// TestPiNoncesAreRationed: whatever the number of addresses, the Pi
// hands out nonceBurst nonces and then refuses, because each nonce is a
// relay's try at a matching code (the bound of TestRelayCannotMatchCodes).
func TestPiNoncesAreRationed(t *testing.T) {
	r := newRig(t)
	addr := r.state(t).Addr
	got := 0
	for i := range nonceBurst + 3 {
		p := newPeer(t, addr, "mallory", "127.0.0."+strconv.Itoa(10+i)) // a fresh address each time
		np, st, body := p.commit(t, "mallory", fresh())
		if np == nil {
			if st != http.StatusTooManyRequests || !strings.Contains(body, "too many pairing attempts") {
				t.Fatalf("commit %d: %d %s", i, st, body)
			}
			continue
		}
		got++
		p.post(context.Background(), hookbridge.PathPairCancel, struct{}{})
	}
	if got != nonceBurst {
		t.Fatalf("%d nonces from %d addresses, want the ration of %d", got, nonceBurst+3, nonceBurst)
	}
}

func TestAddrKey(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"192.168.1.20", "192.168.1.20"},
		{"::ffff:192.168.1.20", "192.168.1.20"},
		{"2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"},
		{"2001:db8:1:2::1", "2001:db8:1:2::/64"}, // the same /64: one bucket
		{"fe80::1%eth0", "fe80::/64"},
		{"not an address", "not an address"},
	} {
		if got := addrKey(tt.in); got != tt.want {
			t.Errorf("addrKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// Rotating addresses inside one /64 does not get past the pairing
	// limit.
	l := newLimiter(1/pairEvery.Seconds(), pairBurst)
	now := time.Now()
	n := 0
	for i := range 20 {
		if l.allow(addrKey("2001:db8:1:2::"+strconv.Itoa(i)), now) {
			n++
		}
	}
	if n != pairBurst {
		t.Fatalf("%d of 20 requests from one /64 allowed, want %d", n, pairBurst)
	}
}
