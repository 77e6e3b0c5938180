package cli

import (
	"bufio"
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/claude-pi/claude-pi/actors/lan"
	drv "github.com/claude-pi/claude-pi/drivers/ble"
	"github.com/claude-pi/claude-pi/drivers/lanpair"
	"github.com/claude-pi/claude-pi/internal/appliance"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
	"github.com/claude-pi/claude-pi/supervisor/ctlsock"
)

// defaultPiHost is the Pi's mDNS name; the image publishes _claude-pi._tcp
// under it with Avahi.
const defaultPiHost = "claude-pi.local"

// cliState is the computer's side of pairing, in the user's config dir:
// identity.pem and pis.json.
type cliState struct {
	dir string
	Pis []pairedPi `json:"pis"`
}

// pairedPi is one Pi this computer trusts.
type pairedPi struct {
	Name   string    `json:"name"`
	Addr   string    `json:"addr"`
	Pin    string    `json:"pin"`
	Paired time.Time `json:"paired"`
}

func loadCLIState(dir string) (*cliState, error) {
	if dir == "" {
		base, err := os.UserConfigDir()
		if err != nil {
			return nil, fmt.Errorf("finding the config dir: %v", err)
		}
		dir = filepath.Join(base, "claude-pi")
	}
	cs := &cliState{dir: dir}
	if err := lanpair.ReadJSON(filepath.Join(dir, "pis.json"), cs); err != nil {
		return nil, err
	}
	return cs, nil
}

func (cs *cliState) save() error { return lanpair.WriteJSON(filepath.Join(cs.dir, "pis.json"), cs) }

func (cs *cliState) identity() (tls.Certificate, error) {
	host, _ := os.Hostname()
	return lanpair.LoadOrCreate(filepath.Join(cs.dir, "identity.pem"), "claude-pi-cli "+host)
}

// pick returns the named Pi, or the last paired one.
func (cs *cliState) pick(name string) (pairedPi, error) {
	if len(cs.Pis) == 0 {
		return pairedPi{}, errors.New("no paired Pi (run claude-pi pair)")
	}
	if name == "" {
		return cs.Pis[len(cs.Pis)-1], nil
	}
	for _, p := range cs.Pis {
		if p.Name == name {
			return p, nil
		}
	}
	return pairedPi{}, fmt.Errorf("no paired Pi called %q", name)
}

const pairSynopsis = `Usage: claude-pi pair [flags] [HOST[:PORT]]      pair this computer with a Pi
       claude-pi pair --list | --revoke NAME       the Pis this computer trusts
       claude-pi pair --local --list               on the Pi (e.g. over ssh):
       claude-pi pair --local --revoke NAME        the computers paired with it

HOST defaults to ` + defaultPiHost + `. With --local, --revoke rewrites the
appliance's clients.json and tells the running appliance through its
control socket (as "supervisorctl signal HUP lan" would), so the computer is
refused from its next request on; its pending prompts leave the screen. Run
--local as root (sudo) or as the appliance's user: clients.json is theirs.`

// pairCommand is `claude-pi pair [HOST[:PORT]]`, `--list` and `--revoke`,
// and on the Pi `--local --list` and `--local --revoke`.
func pairCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("pair", pairSynopsis, stderr)
	config := fs.String("config", os.Getenv("CLAUDE_PI_CONFIG"), "the CLI's state directory (default: the user config dir's claude-pi)")
	host, _ := os.Hostname()
	name := fs.String("name", host, "this computer's name on the Pi")
	list := fs.Bool("list", false, "list the Pis this computer is paired with (with --local: the computers paired with this appliance)")
	revoke := fs.String("revoke", "", "forget the paired Pi called `NAME` (with --local: revoke the computer called NAME on this appliance)")
	yes := fs.Bool("yes", false, "do not ask to confirm the code (for scripts that compare it themselves)")
	var lo localOpts
	fs.BoolVar(&lo.on, "local", false, "act on this appliance's paired computers (run on the Pi)")
	fs.StringVar(&lo.config, "appliance-config", appliance.DefaultConfigPath, "with --local: the appliance's configuration `file`, for data_dir and control_socket")
	fs.StringVar(&lo.dataDir, "data-dir", "", "with --local: the appliance's state `directory` (default: as claude-pi run would use)")
	fs.StringVar(&lo.socket, "control-socket", "", "with --local: the appliance's control `socket` (default: as claude-pi run would use)")
	hosts, help, err := parseInterleaved(fs, args)
	if help || err != nil {
		return err
	}
	if lo.on {
		fs.Visit(func(f *flag.Flag) { lo.explicit = lo.explicit || f.Name == "appliance-config" })
		switch {
		case len(hosts) > 0:
			return usagef("pair --local: no host (it acts on this appliance)")
		case *list && *revoke != "":
			return usagef("pair --local: --list or --revoke, not both")
		case *list:
			return localList(lo, stdout)
		case *revoke != "":
			return localRevoke(ctx, lo, *revoke, stdout)
		}
		return usagef("pair --local: want --list or --revoke NAME")
	}
	cs, err := loadCLIState(*config)
	if err != nil {
		return err
	}
	switch {
	case *list:
		for _, p := range cs.Pis {
			fmt.Fprintf(stdout, "%s\t%s\tpaired %s\tpin %s…\n", p.Name, p.Addr, p.Paired.Format(time.DateOnly), prefix(p.Pin, 16))
		}
		return nil
	case *revoke != "":
		i := slices.IndexFunc(cs.Pis, func(p pairedPi) bool { return p.Name == *revoke })
		if i < 0 {
			return fmt.Errorf("pair: no paired Pi called %q", *revoke)
		}
		cs.Pis = slices.Delete(cs.Pis, i, i+1)
		if err := cs.save(); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "forgot %s\n", *revoke)
		return nil
	}
	if len(hosts) > 1 {
		return usagef("pair: one host at most, got %q", hosts)
	}
	addr := defaultPiHost
	if len(hosts) == 1 {
		addr = hosts[0]
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		addr = net.JoinHostPort(addr, strconv.Itoa(hookbridge.DefaultPort))
	}
	return pair(ctx, cs, addr, *name, *yes, stdin, stdout)
}

func pair(ctx context.Context, cs *cliState, addr, name string, yes bool, stdin io.Reader, stdout io.Writer) error {
	id, err := cs.identity()
	if err != nil {
		return err
	}
	p, err := lanpair.Pair(ctx, lanpair.PairOptions{Identity: id, Addr: addr, Name: name,
		Code: func(code string) {
			fmt.Fprintf(stdout, "Pairing with %s as %q.\nCode: %s\nCheck that the Pi shows the same code, then hold approve on the Pi (it shows the request once no prompt is waiting).\n", addr, name, code)
		},
		Confirm: func(device, code string) bool {
			if yes {
				return true
			}
			fmt.Fprintf(stdout, "Accepted on %s. Did it show %s? [y/N] ", device, code)
			line, _ := bufio.NewReader(stdin).ReadString('\n')
			a := strings.ToLower(strings.TrimSpace(line))
			return a == "y" || a == "yes"
		}})
	if de := (*lanpair.DialError)(nil); errors.As(err, &de) {
		return fmt.Errorf("pair: reaching %s: %v%s", addr, de.Err, reachHint(de.Err, addr))
	}
	if err != nil {
		return fmt.Errorf("pair: %v", err)
	}
	dev := cmp.Or(p.Device, drv.DefaultName)
	cs.Pis = slices.DeleteFunc(cs.Pis, func(q pairedPi) bool { return q.Name == dev || q.Pin == p.Pin })
	cs.Pis = append(cs.Pis, pairedPi{Name: dev, Addr: addr, Pin: p.Pin, Paired: time.Now().UTC()})
	if err := cs.save(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Paired with %s at %s. Install the hooks with: claude-pi hook install\n", dev, addr)
	return nil
}

// reachHint says what to check when the Pi cannot be reached: a name that
// does not resolve (mDNS is not everywhere), or a Pi whose LAN bridge is
// off, which it is until [lan] listen is set.
func reachHint(err error, addr string) string {
	host, port, _ := net.SplitHostPort(addr)
	var dns *net.DNSError
	switch {
	case errors.As(err, &dns):
		return fmt.Sprintf("\n%s does not resolve here. Is the Pi on this network? Its IP is on its info screen "+
			"(the next-page button from home); then run: claude-pi pair IP", host)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Sprintf("\nNothing listens on port %s there. The Pi's LAN bridge is off by default: on the Pi set\n"+
			"  [lan]\n  listen = \":%d\"\nin %s and restart it (sudo systemctl restart claude-pi). "+
			"If the port is another, pass HOST:PORT.", port, hookbridge.DefaultPort, appliance.DefaultConfigPath)
	case errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "\nThe Pi does not answer. Check its IP on its info screen, that this computer is on the same network, " +
			"and that no firewall drops port " + port + "."
	}
	return ""
}

func prefix(s string, n int) string { return s[:min(n, len(s))] }

// localOpts locate the appliance that `pair --local` acts on.
type localOpts struct {
	on       bool
	config   string
	explicit bool // --appliance-config given: a missing file is an error
	dataDir  string
	socket   string
}

// resolve finds clients.json and the control socket as `claude-pi run`
// would with the same configuration file.
func (o localOpts) resolve() (clients, socket string, err error) {
	c, err := appliance.LoadConfig(o.config, o.explicit)
	if err != nil {
		return "", "", err
	}
	if o.dataDir != "" {
		c.DataDir = o.dataDir
	}
	if o.socket != "" {
		c.ControlSocket = o.socket
	}
	dir, socket := appliance.AppliancePaths(c, appliance.ThisHost())
	return lan.ClientsPath(dir), socket, nil
}

// applianceClients reads clients.json; missing is no clients, unreadable
// is an error that says whose file it is.
func applianceClients(path string) ([]lan.Client, error) {
	var cs []lan.Client
	if err := lanpair.ReadJSONNoFollow(path, &cs); err != nil {
		if errors.Is(err, os.ErrPermission) {
			return nil, fmt.Errorf("pair --local: %v: run it as root (sudo) or as the appliance's user", err)
		}
		return nil, fmt.Errorf("pair --local: %v", err)
	}
	return cs, nil
}

func localList(o localOpts, stdout io.Writer) error {
	path, _, err := o.resolve()
	if err != nil {
		return err
	}
	cs, err := applianceClients(path)
	if err != nil {
		return err
	}
	if len(cs) == 0 {
		fmt.Fprintf(stdout, "no computers paired (%s)\n", path)
		return nil
	}
	for _, c := range cs {
		fmt.Fprintf(stdout, "%s\tpaired %s\tcertificate %s…\n", c.Name, c.Paired.Format(time.DateOnly), prefix(c.Fingerprint, 16))
	}
	return nil
}

// localRevoke removes the computer. A running appliance is asked to do it
// (appliance.RevokeMethod on the control socket), so its lan service, which owns
// clients.json, withdraws the computer's prompts and refuses its next
// request, and no pairing confirmed meanwhile is lost. Only when the
// appliance is down is the file edited here.
func localRevoke(ctx context.Context, o localOpts, name string, stdout io.Writer) error {
	path, socket, err := o.resolve()
	if err != nil {
		return err
	}
	switch err := revokeRunning(ctx, socket, name); {
	case err == nil:
		fmt.Fprintf(stdout, "revoked %s: the appliance refuses it from now on\n", name)
		return nil
	case !errors.Is(err, errApplianceDown):
		return fmt.Errorf("pair --local: %v", err)
	}
	cs, err := applianceClients(path)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(cs, func(c lan.Client) bool { return c.Name == name })
	if i < 0 {
		return fmt.Errorf("pair --local: no computer called %q is paired (see claude-pi pair --local --list)", name)
	}
	cs = slices.Delete(cs, i, i+1)
	if err := lanpair.ReplaceJSON(path, cs); err != nil {
		return fmt.Errorf("pair --local: %v", err)
	}
	fmt.Fprintf(stdout, "revoked %s (%v: it refuses %s when it starts)\n", name, errApplianceDown, name)
	return nil
}

// errApplianceDown: nothing to tell; the file is all there is.
var errApplianceDown = errors.New("the appliance is not running")

// revokeRunning asks the appliance behind socket to revoke name;
// errApplianceDown when none is running.
func revokeRunning(ctx context.Context, socket, name string) error {
	// A missing socket or one nobody listens on (left by a crash) is an
	// appliance that is down, not a failure.
	conn, err := net.DialTimeout("unix", socket, 2*time.Second)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) {
		return errApplianceDown
	}
	if err != nil {
		return fmt.Errorf("control socket %s: %v", socket, err)
	}
	conn.Close()
	c := ctlsock.NewClient(socket)
	defer c.Close()
	ctx, cancel := context.WithTimeout(ctx, appliance.RevokeWait+time.Second)
	defer cancel()
	_, err = c.CallContext(ctx, appliance.RevokeMethod, name)
	var f *ctlsock.Fault
	if errors.As(err, &f) {
		return errors.New(strings.TrimPrefix(f.String, "FAILED: "))
	}
	return err
}
