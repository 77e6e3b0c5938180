package ctlsock

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"syscall"
)

// maxResponseBytes bounds what the client reads back; a full log read is
// the largest legitimate answer.
const maxResponseBytes = 16 << 20

// Client calls the control socket's XML-RPC methods, as supervisorctl
// does, without needing Python on the device.
type Client struct {
	path string
	hc   *http.Client
}

// NewClient returns a client for the socket at path. It does not connect
// until the first call.
func NewClient(path string) *Client {
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		},
		DisableCompression: true,
	}
	return &Client{path: path, hc: &http.Client{Transport: tr}}
}

// Close releases idle connections.
func (c *Client) Close() {
	c.hc.CloseIdleConnections()
}

// Call invokes method with args and returns its decoded result. A fault
// comes back as a *Fault error; a missing socket or missing permission
// as an error that says what to do.
func (c *Client) Call(method string, args ...any) (any, error) {
	return c.CallContext(context.Background(), method, args...)
}

// CallContext is Call with a context for cancellation.
func (c *Client) CallContext(ctx context.Context, method string, args ...any) (any, error) {
	body, err := AppendMethodCall(nil, method, args...)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://localhost/RPC2", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "text/xml")
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, c.explain(err)
	}
	defer resp.Body.Close()
	data, err := readAllLimited(resp.Body, maxResponseBytes)
	if err != nil {
		return nil, fmt.Errorf("reading %s response: %w", method, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: HTTP %s: %s", method, resp.Status, bytes.TrimSpace(data))
	}
	mr, err := DecodeMethodResponse(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("decoding %s response: %w", method, err)
	}
	if mr.Fault != nil {
		return nil, mr.Fault
	}
	return mr.Value, nil
}

// explain turns dial failures into advice.
func (c *Client) explain(err error) error {
	switch {
	case errors.Is(err, os.ErrNotExist), errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("no claude-pi running at %s: start it with `claude-pi run`", c.path)
	case errors.Is(err, os.ErrPermission):
		return fmt.Errorf("permission denied on %s: run as root or as a member of the socket's group", c.path)
	}
	return fmt.Errorf("talking to claude-pi at %s: %w", c.path, err)
}

// readAllLimited reads at most n bytes and says so if there were more.
func readAllLimited(r io.Reader, n int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, n+1))
	if err == nil && int64(len(b)) > n {
		return nil, fmt.Errorf("response larger than %d bytes", n)
	}
	return b, err
}
