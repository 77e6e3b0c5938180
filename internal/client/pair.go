package client

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/claude-pi/claude-pi/drivers/lanpair"
	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

// ApplianceConfigPath is where the Pi keeps its configuration file
// (internal/appliance.DefaultConfigPath, which a test in internal/cli
// holds equal): the hint for a Pi whose LAN bridge is off names it.
const ApplianceConfigPath = "/etc/claude-pi/config.toml"

// PairOptions is one pairing of this computer with a Pi.
type PairOptions struct {
	// Addr is the Pi's HOST or HOST:PORT (hookbridge.DefaultPort when
	// absent); "" is DefaultHost.
	Addr string
	// Name is this computer's name on the Pi.
	Name string
	// Code shows the code; Confirm asks the user whether the Pi showed it
	// (lanpair.PairOptions says when each is called).
	Code    func(code string)
	Confirm func(device, code string) bool
}

// Pair runs pairing v2 with the Pi at o.Addr (lanpair.Pair, the protocol
// the Pi's side shares) and remembers the Pi in pis.json. A Pi that
// cannot be reached is an error that says what to check.
func (s *State) Pair(ctx context.Context, o PairOptions) (Pi, error) {
	addr := WithPort(cmp.Or(o.Addr, DefaultHost))
	id, err := s.Identity()
	if err != nil {
		return Pi{}, err
	}
	p, err := lanpair.Pair(ctx, lanpair.PairOptions{Identity: id, Addr: addr, Name: o.Name, Code: o.Code, Confirm: o.Confirm})
	if de := (*lanpair.DialError)(nil); errors.As(err, &de) {
		return Pi{}, fmt.Errorf("reaching %s: %v%s", addr, de.Err, ReachHint(de.Err, addr))
	}
	if err != nil {
		return Pi{}, err
	}
	pi := Pi{Name: cmp.Or(p.Device, pbuddy.DeviceName), Addr: addr, Pin: p.Pin, Paired: time.Now().UTC()}
	return pi, s.Remember(pi)
}

// WithPort adds hookbridge.DefaultPort to a bare host.
func WithPort(addr string) string {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return net.JoinHostPort(addr, strconv.Itoa(hookbridge.DefaultPort))
	}
	return addr
}

// ReachHint says what to check when the Pi cannot be reached: a name that
// does not resolve (mDNS is not everywhere), or a Pi whose LAN bridge is
// off, which it is until [lan] listen is set.
func ReachHint(err error, addr string) string {
	host, port, _ := net.SplitHostPort(addr)
	var dns *net.DNSError
	switch {
	case errors.As(err, &dns):
		return fmt.Sprintf("\n%s does not resolve here. Is the Pi on this network? Its IP is on its info screen "+
			"(the next-page button from home); then run: claude-pi pair IP", host)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Sprintf("\nNothing listens on port %s there. The Pi's LAN bridge is off by default: on the Pi set\n"+
			"  [lan]\n  listen = \":%d\"\nin %s and restart it (sudo systemctl restart claude-pi). "+
			"If the port is another, pass HOST:PORT.", port, hookbridge.DefaultPort, ApplianceConfigPath)
	case errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "\nThe Pi does not answer. Check its IP on its info screen, that this computer is on the same network, " +
			"and that no firewall drops port " + port + "."
	}
	return ""
}
