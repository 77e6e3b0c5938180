// Package client is everything a computer does with a paired Pi: its
// state (pis.json, the Pis it trusts, and identity.pem, its own
// certificate), the HTTPS client pinned to one Pi, and pairing. The hooks,
// `claude-pi pair` and `claude-pi mcp` use it; none of them opens
// pis.json or dials a Pi itself.
//
// It lives under internal/ because its one importer outside the module's
// commands is the computer-side main (cmd/claude-pi), in the same module.
// It must never reach the appliance: the layout test forbids actors/,
// boards/ and internal/appliance here, and the client binary's dependency
// list (cmd/claude-pi/deps.txt) shows what it links.
package client

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/claude-pi/claude-pi/drivers/lanpair"
	"github.com/claude-pi/claude-pi/drivers/storage/statefile"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

// DefaultHost is the Pi's mDNS name; the image publishes _claude-pi._tcp
// under it with Avahi.
const DefaultHost = "claude-pi.local"

// ConnectTimeout bounds reaching the Pi, TCP connect and TLS handshake
// together: past it a hook lets the terminal's dialog carry on without us.
const ConnectTimeout = 2 * time.Second

// Pi is one Pi this computer trusts: one row of pis.json.
type Pi struct {
	Name   string    `json:"name"`
	Addr   string    `json:"addr"` // HOST:PORT
	Pin    string    `json:"pin"`  // hookbridge.Fingerprint of its certificate
	Paired time.Time `json:"paired"`
}

// State is the computer's side of pairing, in one directory.
type State struct {
	Dir string `json:"-"`
	Pis []Pi   `json:"pis"`
	// SetAside is where a damaged pis.json was moved when it was loaded
	// ("" when it was fine): the Pis it named must be paired again.
	SetAside string `json:"-"`
}

// DefaultDir is the user config dir's claude-pi, where the state lives
// unless --config or CLAUDE_PI_CONFIG says otherwise.
func DefaultDir() (string, error) {
	base, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("finding the config dir (set CLAUDE_PI_CONFIG to a directory): %v", err)
	}
	return filepath.Join(base, "claude-pi"), nil
}

// Load reads the state in dir ("" is DefaultDir). A missing pis.json is
// no Pi paired yet.
func Load(dir string) (*State, error) {
	if dir == "" {
		d, err := DefaultDir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	// statefile, as for the appliance's own files: a damaged pis.json (a
	// disk that lied, a hand edit) is set aside under a name that never
	// replaces another, not fatal: pairing again writes a good one, and
	// the bytes stay for whoever wants them.
	f, _, dmg := statefile.LoadJSON(statefile.Dir{Path: dir}, "pis.json", maxStateFile, stateFile{})
	s := &State{Dir: dir, Pis: f.Pis}
	if dmg != nil {
		if dmg.Copy == "" {
			return nil, fmt.Errorf("%s: %v", filepath.Join(dir, "pis.json"), dmg)
		}
		s.SetAside = dmg.Copy
	}
	return s, nil
}

// stateFile is pis.json as written.
type stateFile struct {
	Pis []Pi `json:"pis"`
}

// maxStateFile bounds what is read: far more Pis than anyone pairs.
const maxStateFile = 1 << 20

// Save writes pis.json atomically (lanpair.WriteJSON).
func (s *State) Save() error { return lanpair.WriteJSON(filepath.Join(s.Dir, "pis.json"), s) }

// Identity is this computer's certificate, created on first use.
func (s *State) Identity() (tls.Certificate, error) {
	host, _ := os.Hostname()
	return lanpair.LoadOrCreate(filepath.Join(s.Dir, "identity.pem"), "claude-pi-cli "+host)
}

// ErrNoPi: nothing paired yet.
var ErrNoPi = errors.New("no paired Pi (run claude-pi pair)")

// Pick returns the Pi called name, or the last paired one for "".
func (s *State) Pick(name string) (Pi, error) {
	if len(s.Pis) == 0 && s.SetAside != "" {
		return Pi{}, fmt.Errorf("%w: pis.json was damaged and is set aside as %s", ErrNoPi, s.SetAside)
	}
	if len(s.Pis) == 0 {
		return Pi{}, ErrNoPi
	}
	if name == "" {
		return s.Pis[len(s.Pis)-1], nil
	}
	for _, p := range s.Pis {
		if p.Name == name {
			return p, nil
		}
	}
	return Pi{}, fmt.Errorf("no paired Pi called %q (see claude-pi pair --list)", name)
}

// Remember adds p as the last paired Pi, replacing one of the same name
// or pin, and saves.
func (s *State) Remember(p Pi) error {
	s.Pis = slices.DeleteFunc(s.Pis, func(q Pi) bool { return q.Name == p.Name || q.Pin == p.Pin })
	s.Pis = append(s.Pis, p)
	return s.Save()
}

// Forget removes the Pi called name and saves.
func (s *State) Forget(name string) error {
	i := slices.IndexFunc(s.Pis, func(p Pi) bool { return p.Name == name })
	if i < 0 {
		return fmt.Errorf("no paired Pi called %q (see claude-pi pair --list)", name)
	}
	s.Pis = slices.Delete(s.Pis, i, i+1)
	return s.Save()
}

// Conn is the way to one paired Pi: HTTPS over mutual TLS, the Pi's
// certificate pinned.
type Conn struct {
	Pi Pi
	hc *http.Client
}

// Open loads the state in dir and returns the connection to the Pi
// called name ("" the last paired). connect bounds each connection's TCP
// connect and TLS handshake together (ConnectTimeout when zero).
func Open(dir, name string, connect time.Duration) (*Conn, error) {
	s, err := Load(dir)
	if err != nil {
		return nil, err
	}
	pi, err := s.Pick(name)
	if err != nil {
		return nil, err
	}
	id, err := s.Identity()
	if err != nil {
		return nil, err
	}
	return Dial(pi, id, connect, false), nil
}

// Dial returns the connection to pi with this computer's identity id.
// One deadline covers connect and handshake, so a host that accepts and
// then says nothing cannot stretch it to twice as long. keepAlive keeps
// connections for reuse (the MCP server's many calls); a hook makes one
// request and closes it.
func Dial(pi Pi, id tls.Certificate, connect time.Duration, keepAlive bool) *Conn {
	if connect <= 0 {
		connect = ConnectTimeout
	}
	d := &tls.Dialer{NetDialer: &net.Dialer{}, Config: lanpair.ClientConfig(id, pi.Pin)}
	return &Conn{Pi: pi, hc: &http.Client{Transport: &http.Transport{
		DialTLSContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			ctx, cancel := context.WithTimeout(ctx, connect)
			defer cancel()
			return d.DialContext(ctx, network, addr)
		},
		DisableKeepAlives:   !keepAlive,
		MaxIdleConnsPerHost: 2,
	}}}
}

// Open sends one request and returns the 2xx response for the caller to
// read and close. body nil is a request without one; header is extra
// headers (may be nil). Any other status is an error that quotes the
// Pi's reason.
func (c *Conn) Open(ctx context.Context, method, path string, body []byte, header http.Header) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, "https://"+c.Pi.Addr+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("reaching %s at %s: %v", c.Pi.Name, c.Pi.Addr, err)
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		return nil, &RefusedError{Pi: c.Pi.Name, Code: resp.StatusCode, Status: resp.Status,
			Reason: hookbridge.Printable(strings.TrimSpace(string(b)), 200)}
	}
	return resp, nil
}

// RefusedError is a Pi's answer other than 2xx, so that a caller can tell
// one refusal from another (a hook that retries what an older Pi refuses).
type RefusedError struct {
	Pi     string // the Pi's name
	Code   int    // the HTTP status code
	Status string // the HTTP status line, "400 Bad Request"
	Reason string // the Pi's answer, printable, at most 200 characters
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("%s refused: %s: %s", e.Pi, e.Status, e.Reason)
}

// Do is Open that reads the whole answer, at most limit bytes (more is
// an error, not a truncated answer).
func (c *Conn) Do(ctx context.Context, method, path string, body []byte, header http.Header, limit int64) ([]byte, error) {
	resp, err := c.Open(ctx, method, path, body, header)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s's answer: %v", c.Pi.Name, err)
	}
	if int64(len(out)) > limit {
		return nil, fmt.Errorf("%s's answer is over %d bytes", c.Pi.Name, limit)
	}
	return out, nil
}

// Post is Do with v sent as JSON.
func (c *Conn) Post(ctx context.Context, path string, v any, header http.Header, limit int64) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding the request to %s: %v", c.Pi.Name, err)
	}
	return c.Do(ctx, http.MethodPost, path, body, header, limit)
}

// CloseIdle closes kept connections.
func (c *Conn) CloseIdle() { c.hc.CloseIdleConnections() }
