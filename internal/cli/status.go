package cli

import (
	"context"
	"errors"
	"flag"
	"io"

	"github.com/claude-pi/claude-pi/internal/appliance"
	"github.com/claude-pi/claude-pi/supervisor/ctlsock"
)

const statusSynopsis = `Usage: claude-pi status [flags] [NAME...]

Prints the services and their states, exactly as "supervisorctl status"
does, without needing Python. NAME may be a service, "group:*" or "all".`

func statusFlags(w io.Writer) (*flag.FlagSet, *runOpts) {
	o := &runOpts{}
	fs := newFlagSet("status", statusSynopsis, w)
	fs.StringVar(&o.config, "config", appliance.DefaultConfigPath, "configuration `file`, for its control_socket")
	fs.StringVar(&o.controlSocket, "control-socket", "", "the appliance's unix `socket` (default: as claude-pi run would use)")
	return fs, o
}

// statusCommand is `claude-pi status`.
func statusCommand(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs, o := statusFlags(stderr)
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	path := o.controlSocket
	if path == "" {
		c, err := appliance.LoadConfig(o.config, configExplicit(fs))
		if err != nil {
			return err
		}
		_, path = appliance.AppliancePaths(c, appliance.ThisHost())
	}
	err := ctlsock.Status(ctx, path, fs.Args(), stdout)
	if errors.Is(err, ctlsock.ErrNoSuchProcess) {
		return reportedError{err} // the table already says which name
	}
	return err
}
