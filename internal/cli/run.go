package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/claude-pi/claude-pi/internal/appliance"
)

// runCommand is `claude-pi run`.
func runCommand(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs, o := runFlags(stderr)
	if help, err := parseFlagsOnly(fs, args); help || err != nil {
		return err
	}
	if err := checkBoardFlag("run", o.board); o.board != "" && err != nil {
		return err
	}
	load := func() (appliance.Settings, error) {
		c, err := appliance.LoadConfig(o.config, configExplicit(fs))
		if err != nil {
			return appliance.Settings{}, err
		}
		o.apply(fs, &c)
		s, err := appliance.Resolve(c, o.config, appliance.ThisHost())
		s.Version = Version
		return s, err
	}
	s, err := load()
	if err != nil {
		return err
	}
	for {
		err := appliance.Serve(ctx, s, stdout, stderr)
		if !errors.Is(err, appliance.ErrRestart) {
			return err
		}
		// supervisorctl reload: like supervisord, read the file again and
		// start every service anew, in this same process.
		if s, err = load(); err != nil {
			return fmt.Errorf("supervisorctl reload: %w", err)
		}
	}
}

// runOpts are the flags of `claude-pi run`. Each one overrides the
// configuration key named in its help text.
type runOpts struct {
	config        string
	board         string
	dataDir       string
	controlSocket string
	controlGroup  string
	nusListen     string
	dockPort      string
	http          string
	logLevel      string
}

const runSynopsis = `Usage: claude-pi run [flags]

Runs the appliance until SIGINT or SIGTERM. Every service runs as a
supervised actor; "supervisorctl -s unix://SOCKET status" lists them.
On a machine that is not a Raspberry Pi it runs the simulated board.
Flags override the configuration file ("claude-pi help config").`

func runFlags(w io.Writer) (*flag.FlagSet, *runOpts) {
	o := &runOpts{}
	fs := newFlagSet("run", runSynopsis, w)
	fs.StringVar(&o.config, "config", appliance.DefaultConfigPath, "configuration `file` (a missing default file means all defaults)")
	fs.StringVar(&o.board, "board", "", "board `name`: auto, sim, pirate-audio, display-hat-mini or waveshare-lcd13 (key board; default auto)")
	fs.StringVar(&o.dataDir, "data-dir", "", "state `directory` (key data_dir; default /var/lib/claude-pi on a Pi, $XDG_STATE_HOME/claude-pi in sim)")
	fs.StringVar(&o.controlSocket, "control-socket", "", "supervisorctl's unix `socket` (key control_socket; default /run/supervisor.sock on a Pi, $XDG_RUNTIME_DIR/claude-pi/supervisor.sock in sim)")
	fs.StringVar(&o.controlGroup, "control-group", "", "`group` allowed to use the control socket (key control_group; default owner only)")
	fs.StringVar(&o.nusListen, "nus-listen", "", "sim BLE link `address`: host:port or unix:/path (key ble.nus_listen; default "+appliance.SimNUSListen+")")
	fs.StringVar(&o.dockPort, "dock-port", "", "the CoreS3's serial `device` (key dock.port; default: found by USB ids)")
	fs.StringVar(&o.http, "http", "", "sim web page `address` host:port, or off (key http; default "+appliance.SimHTTP+" in sim, off on a Pi)")
	fs.StringVar(&o.logLevel, "log-level", "", "`level`: debug, info, warn or error (key log_level; default info)")
	return fs, o
}

// apply overrides c with the flags that were given on the command line. A
// flag given as "" counts: --http "" turns the web page off.
func (o *runOpts) apply(fs *flag.FlagSet, c *appliance.Config) {
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "board":
			c.Board = o.board
		case "data-dir":
			c.DataDir = o.dataDir
		case "control-socket":
			c.ControlSocket = o.controlSocket
		case "control-group":
			c.ControlGroup = o.controlGroup
		case "nus-listen":
			c.BLE.NUSListen = o.nusListen
		case "dock-port":
			c.Dock.Port = o.dockPort
		case "http":
			h := o.http
			c.HTTP = &h
		case "log-level":
			c.LogLevel = o.logLevel
		}
	})
}

// configExplicit reports whether --config was given, which makes a missing
// file an error.
func configExplicit(fs *flag.FlagSet) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "config" })
	return given
}
