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
	"os/user"
	"strconv"
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
		return fmt.Errorf("permission denied on %s: %s", c.path, whoMayConnect(c.path))
	}
	return fmt.Errorf("talking to claude-pi at %s: %w", c.path, err)
}

// whoMayConnect reads the socket's owner, group and mode, so the advice
// fits: joining the group helps only when the group may connect (0660,
// control_group set), not on the default owner-only 0600 socket.
func whoMayConnect(path string) string {
	fi, err := os.Stat(path)
	uid, gid, ok := ownerOf(fi)
	if err != nil || !ok {
		return "run as root (sudo) or as the user the appliance runs as"
	}
	owner := strconv.FormatUint(uint64(uid), 10)
	if u, err := user.LookupId(owner); err == nil {
		owner = u.Username
	}
	if fi.Mode().Perm()&0o060 != 0o060 {
		return fmt.Sprintf("the socket is mode %04o, for its owner %s only: run as %s or root (sudo), "+
			"or set control_group in the appliance's configuration to let a group in", fi.Mode().Perm(), owner, owner)
	}
	group := strconv.FormatUint(uint64(gid), 10)
	if g, err := user.LookupGroupId(group); err == nil {
		group = g.Name
	}
	return fmt.Sprintf("the socket is mode %04o, group %s: run as root (sudo), as %s, or as a member of %s "+
		"(sudo usermod -aG %s $USER, then log in again)", fi.Mode().Perm(), group, owner, group, group)
}

// readAllLimited reads at most n bytes and says so if there were more.
func readAllLimited(r io.Reader, n int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, n+1))
	if err == nil && int64(len(b)) > n {
		return nil, fmt.Errorf("response larger than %d bytes", n)
	}
	return b, err
}
