package mcpserver

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
	"strconv"
	"strings"
	"time"

	"github.com/claude-pi/claude-pi/drivers/lanpair"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

// connectTimeout bounds the TCP connect and TLS handshake to the Pi
// together, as for the hooks.
const connectTimeout = 2 * time.Second

// Pi is a paired Pi as `claude-pi pair` stored it in pis.json.
type Pi struct {
	Name string `json:"name"`
	Addr string `json:"addr"`
	Pin  string `json:"pin"`
}

// LoadPi reads the CLI's state in dir (default: the user config dir's
// claude-pi): the paired Pi named name (default: the last paired) and the
// computer's identity. It is the same state the hooks use.
func LoadPi(dir, name string) (Pi, tls.Certificate, error) {
	if dir == "" {
		base, err := os.UserConfigDir()
		if err != nil {
			return Pi{}, tls.Certificate{}, fmt.Errorf("finding the config dir: %v", err)
		}
		dir = filepath.Join(base, "claude-pi")
	}
	var st struct {
		Pis []Pi `json:"pis"`
	}
	if err := lanpair.ReadJSON(filepath.Join(dir, "pis.json"), &st); err != nil {
		return Pi{}, tls.Certificate{}, err
	}
	if len(st.Pis) == 0 {
		return Pi{}, tls.Certificate{}, errors.New("no paired Pi (run claude-pi pair)")
	}
	pi := st.Pis[len(st.Pis)-1]
	if name != "" {
		found := false
		for _, p := range st.Pis {
			if p.Name == name {
				pi, found = p, true
			}
		}
		if !found {
			return Pi{}, tls.Certificate{}, fmt.Errorf("no paired Pi called %q (see claude-pi pair --list)", name)
		}
	}
	host, _ := os.Hostname()
	id, err := lanpair.LoadOrCreate(filepath.Join(dir, "identity.pem"), "claude-pi-cli "+host)
	if err != nil {
		return Pi{}, tls.Certificate{}, err
	}
	return pi, id, nil
}

// HTTPBridge is the Bridge to one paired Pi over pinned mutual TLS.
type HTTPBridge struct {
	pi Pi
	hc *http.Client
}

// NewHTTPBridge returns the bridge to pi with the computer's identity id.
func NewHTTPBridge(pi Pi, id tls.Certificate) *HTTPBridge {
	d := &tls.Dialer{NetDialer: &net.Dialer{}, Config: lanpair.ClientConfig(id, pi.Pin)}
	return &HTTPBridge{pi: pi, hc: &http.Client{Transport: &http.Transport{
		DialTLSContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			ctx, cancel := context.WithTimeout(ctx, connectTimeout)
			defer cancel()
			return d.DialContext(ctx, network, addr)
		},
		MaxIdleConnsPerHost: 2,
	}}}
}

// Catalog implements Bridge.
func (b *HTTPBridge) Catalog(ctx context.Context, after uint64, wait bool) (hookbridge.ToolCatalog, error) {
	path := hookbridge.PathTools
	if wait {
		path += "?after=" + strconv.FormatUint(after, 10)
	}
	body, err := b.do(ctx, http.MethodGet, path, nil)
	if err != nil {
		return hookbridge.ToolCatalog{}, err
	}
	return hookbridge.DecodeToolCatalog(body)
}

// Call implements Bridge.
func (b *HTTPBridge) Call(ctx context.Context, c hookbridge.ToolCall) (hookbridge.ToolCallResult, error) {
	in, _ := json.Marshal(c)
	body, err := b.do(ctx, http.MethodPost, hookbridge.PathToolCall, in)
	if err != nil {
		return hookbridge.ToolCallResult{}, err
	}
	return hookbridge.DecodeToolCallResult(body)
}

func (b *HTTPBridge) do(ctx context.Context, method, path string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, "https://"+b.pi.Addr+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := b.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("reaching %s at %s: %v", b.pi.Name, b.pi.Addr, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, hookbridge.MaxToolResponse+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s's answer: %v", b.pi.Name, err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("%s refused: %s: %s", b.pi.Name, resp.Status, strings.TrimSpace(string(out[:min(len(out), 200)])))
	}
	return out, nil
}
