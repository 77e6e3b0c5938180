package mcpserver

import (
	"context"
	"crypto/tls"
	"net/http"
	"strconv"

	"github.com/claude-pi/claude-pi/internal/client"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

// Pi is a paired Pi as `claude-pi pair` stored it in pis.json.
type Pi = client.Pi

// LoadPi reads the CLI's state in dir (default: the user config dir's
// claude-pi): the paired Pi named name (default: the last paired) and the
// computer's identity. It is the same state the hooks use (client.State).
func LoadPi(dir, name string) (Pi, tls.Certificate, error) {
	st, err := client.Load(dir)
	if err != nil {
		return Pi{}, tls.Certificate{}, err
	}
	pi, err := st.Pick(name)
	if err != nil {
		return Pi{}, tls.Certificate{}, err
	}
	id, err := st.Identity()
	if err != nil {
		return Pi{}, tls.Certificate{}, err
	}
	return pi, id, nil
}

// HTTPBridge is the Bridge to one paired Pi over pinned mutual TLS
// (client.Conn, its connections kept for the next call).
type HTTPBridge struct{ c *client.Conn }

// NewHTTPBridge returns the bridge to pi with the computer's identity id.
func NewHTTPBridge(pi Pi, id tls.Certificate) *HTTPBridge {
	return &HTTPBridge{c: client.Dial(pi, id, client.ConnectTimeout, true)}
}

// Catalog implements Bridge.
func (b *HTTPBridge) Catalog(ctx context.Context, after uint64, wait bool) (hookbridge.ToolCatalog, error) {
	path := hookbridge.PathTools
	if wait {
		path += "?after=" + strconv.FormatUint(after, 10)
	}
	body, err := b.c.Do(ctx, http.MethodGet, path, nil, nil, hookbridge.MaxToolResponse)
	if err != nil {
		return hookbridge.ToolCatalog{}, err
	}
	return hookbridge.DecodeToolCatalog(body)
}

// Call implements Bridge.
func (b *HTTPBridge) Call(ctx context.Context, c hookbridge.ToolCall) (hookbridge.ToolCallResult, error) {
	body, err := b.c.Post(ctx, hookbridge.PathToolCall, c, nil, hookbridge.MaxToolResponse)
	if err != nil {
		return hookbridge.ToolCallResult{}, err
	}
	return hookbridge.DecodeToolCallResult(body)
}
