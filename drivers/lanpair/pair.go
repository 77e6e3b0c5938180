package lanpair

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

// MaxPairWait bounds how long Pair waits for the button on the Pi. It
// also bounds the tries a relay gets at a matching code per run (the Pi
// rations its nonces, actors/lan/pairing.go), so it is not an option.
const MaxPairWait = 3 * time.Minute

// PairOptions is one run of `claude-pi pair`.
type PairOptions struct {
	Identity tls.Certificate
	// Addr is the Pi's HOST:PORT.
	Addr string
	// Name is this computer's name on the Pi.
	Name string
	// Code is called with the code once both nonces are known, before the
	// wait for the button.
	Code func(code string)
	// Confirm is asked once the Pi accepted; false cancels on the Pi.
	Confirm func(device, code string) bool
	// DialTimeout bounds reaching the Pi; 5 s when zero.
	DialTimeout time.Duration
}

// Paired is the outcome of a pairing: the Pi's name and the pin of the
// certificate it showed in the session the code was computed for.
type Paired struct {
	Device string
	Pin    string
}

var (
	// ErrNotConfirmed: the user answered no; the Pi was told to forget the
	// request.
	ErrNotConfirmed = errors.New("not confirmed; nothing saved (the Pi forgot the request too)")
	// ErrOldPi: the Pi's claude-pi predates pairing v2.
	ErrOldPi = errors.New("the Pi's claude-pi predates pairing v2 (a commitment before the code): update claude-pi on the Pi (sudo apt upgrade claude-pi), then pair again")
)

// DialError wraps a failure to reach the Pi, for the caller's hints.
type DialError struct{ Err error }

func (e *DialError) Error() string { return e.Err.Error() }
func (e *DialError) Unwrap() error { return e.Err }

// Pair runs the client's side of pairing v2 (protocols/hookbridge
// pairing.go): commit to a fresh nonce, take the Pi's, reveal ours, show
// the code, wait for the button, and confirm (or cancel) as the user
// says. Every request after the first connection is pinned to the
// certificate that connection showed, which is the one the commitment
// and the code bind, and the one Paired.Pin names.
func Pair(ctx context.Context, o PairOptions) (Paired, error) {
	if o.DialTimeout == 0 {
		o.DialTimeout = 5 * time.Second
	}
	d := &tls.Dialer{NetDialer: &net.Dialer{Timeout: o.DialTimeout}, Config: ClientConfig(o.Identity, "")}
	first, err := d.DialContext(ctx, "tcp", o.Addr)
	if err != nil {
		return Paired{}, &DialError{err}
	}
	piCert := first.(*tls.Conn).ConnectionState().PeerCertificates[0].Raw
	pin := hookbridge.Fingerprint(piCert)
	c := newPairClient(o, first, pin)
	defer c.hc.CloseIdleConnections()

	nc := make([]byte, hookbridge.NonceSize)
	rand.Read(nc)
	client := o.Identity.Certificate[0]
	commit := hookbridge.PairCommit{Name: o.Name, Commitment: hex.EncodeToString(hookbridge.Commitment(client, piCert, nc))}
	b, err := c.post(ctx, hookbridge.PathPair, commit, 15*time.Second)
	if err != nil {
		return Paired{}, err
	}
	np, device, err := hookbridge.DecodePairNonce(b)
	if err != nil {
		return Paired{}, fmt.Errorf("the Pi's nonce: %v", err)
	}
	code := hookbridge.Code(client, piCert, nc, np)
	if o.Code != nil {
		o.Code(code)
	}
	b, err = c.post(ctx, hookbridge.PathPairReveal, hookbridge.PairReveal{Nonce: hex.EncodeToString(nc)}, MaxPairWait)
	if err != nil {
		return Paired{}, err
	}
	resp, err := hookbridge.DecodePairResponse(b)
	if err != nil {
		return Paired{}, err
	}
	if resp.Status != hookbridge.PairAccepted {
		return Paired{}, fmt.Errorf("%s: %s", resp.Status, resp.Reason)
	}
	if resp.Device != "" {
		device = resp.Device
	}
	if o.Confirm != nil && !o.Confirm(device, code) {
		// Tell the Pi, so that its screen does not wait for a confirmation
		// that never comes; an error here changes nothing (it expires).
		c.post(context.WithoutCancel(ctx), hookbridge.PathPairCancel, struct{}{}, 5*time.Second)
		return Paired{}, ErrNotConfirmed
	}
	if b, err = c.post(ctx, hookbridge.PathPairConfirm, struct{}{}, 15*time.Second); err != nil {
		return Paired{}, fmt.Errorf("confirming: %v", err)
	}
	if resp, err = hookbridge.DecodePairResponse(b); err != nil || resp.Status != hookbridge.PairPaired {
		return Paired{}, fmt.Errorf("confirming: %q %v", resp.Status, err)
	}
	if resp.Device != "" {
		device = resp.Device
	}
	return Paired{Device: device, Pin: pin}, nil
}

type pairClient struct {
	hc   *http.Client
	addr string
}

// newPairClient is an HTTP client whose first connection is first, and
// whose later ones (if that one drops) are pinned to pin.
func newPairClient(o PairOptions, first net.Conn, pin string) *pairClient {
	pinned := &tls.Dialer{NetDialer: &net.Dialer{Timeout: o.DialTimeout}, Config: ClientConfig(o.Identity, pin)}
	var once sync.Once
	return &pairClient{addr: o.Addr, hc: &http.Client{Transport: &http.Transport{
		DialTLSContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			var c net.Conn
			once.Do(func() { c = first })
			if c != nil {
				return c, nil
			}
			return pinned.DialContext(ctx, network, addr)
		},
		MaxConnsPerHost: 1,
	}}}
}

// post sends in as JSON to path and returns the body of a 200 (or 204).
func (c *pairClient) post(ctx context.Context, path string, in any, d time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	body, _ := json.Marshal(in)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://"+c.addr+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, hookbridge.MaxRequest))
	switch {
	case resp.StatusCode == http.StatusNotFound && path == hookbridge.PathPair:
		return nil, ErrOldPi
	case resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNoContent:
		return nil, fmt.Errorf("%s: %s", resp.Status, hookbridge.Printable(strings.TrimSpace(string(b)), hookbridge.MaxReason))
	}
	return b, nil
}
