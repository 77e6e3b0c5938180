package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/claude-pi/claude-pi/actors/lan"
	"github.com/claude-pi/claude-pi/drivers/lanpair"
	"github.com/claude-pi/claude-pi/internal/appliance"
	"github.com/claude-pi/claude-pi/internal/clientcli"
	"github.com/claude-pi/claude-pi/supervisor/ctlsock"
)

const pairLocalSynopsis = `       claude-pi pair --local --list               on the Pi (e.g. over ssh):
       claude-pi pair --local --revoke NAME        the computers paired with it

With --local, --revoke rewrites the appliance's clients.json and tells the
running appliance through its control socket (as "supervisorctl signal HUP
lan" would), so the computer is refused from its next request on; its
pending prompts leave the screen. Run --local as root (sudo) or as the
appliance's user: clients.json is theirs.`

// pairCommand is clientcli's `claude-pi pair` (the computer's side) with
// the appliance's `--local --list` and `--local --revoke`.
var pairCommand = clientcli.PairCommand(&clientcli.LocalPair{
	Synopsis: pairLocalSynopsis,
	Bind: func(fs *flag.FlagSet) clientcli.LocalRun {
		lo := &localOpts{}
		fs.BoolVar(&lo.on, "local", false, "act on this appliance's paired computers (run on the Pi)")
		fs.StringVar(&lo.config, "appliance-config", appliance.DefaultConfigPath, "with --local: the appliance's configuration `file`, for data_dir and control_socket")
		fs.StringVar(&lo.dataDir, "data-dir", "", "with --local: the appliance's state `directory` (default: as claude-pi run would use)")
		fs.StringVar(&lo.socket, "control-socket", "", "with --local: the appliance's control `socket` (default: as claude-pi run would use)")
		return func(ctx context.Context, hosts []string, list bool, revoke string, stdout io.Writer) (bool, error) {
			if !lo.on {
				return false, nil
			}
			fs.Visit(func(f *flag.Flag) { lo.explicit = lo.explicit || f.Name == "appliance-config" })
			switch {
			case len(hosts) > 0:
				return true, usagef("pair --local: no host (it acts on this appliance)")
			case list && revoke != "":
				return true, usagef("pair --local: --list or --revoke, not both")
			case list:
				return true, localList(*lo, stdout)
			case revoke != "":
				return true, localRevoke(ctx, *lo, revoke, stdout)
			}
			return true, usagef("pair --local: want --list or --revoke NAME")
		}
	},
})

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
