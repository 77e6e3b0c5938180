package sim

import (
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/claude-pi/claude-pi/supervisor/stalesock"
)

// Listen opens the listener named by a --nus-listen address: "host:port"
// for TCP (":7777", "127.0.0.1:7777", "[::1]:7777") or "unix:/path" for a
// unix socket. A stale socket file left by a previous run is removed first;
// any other file at that path is an error.
func Listen(addr string) (net.Listener, error) {
	if path, ok := strings.CutPrefix(addr, "unix:"); ok {
		if path == "" {
			return nil, errors.New("sim: --nus-listen \"unix:\" needs a socket path, e.g. unix:/run/claude-pi/nus.sock")
		}
		if err := stalesock.Clear(path); err != nil {
			return nil, fmt.Errorf("sim: --nus-listen: %w", err)
		}
		ln, err := net.Listen("unix", path)
		if err != nil {
			return nil, fmt.Errorf("sim: listening on unix socket %s: %w", path, err)
		}
		return ln, nil
	}
	if addr == "" {
		return nil, errors.New("sim: empty --nus-listen address: want host:port or unix:/path")
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("sim: --nus-listen %q: want host:port or unix:/path: %w", addr, err)
	}
	if port == "" {
		return nil, fmt.Errorf("sim: --nus-listen %q has no port", addr)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, fmt.Errorf("sim: listening on %s: %w", addr, err)
	}
	return ln, nil
}
