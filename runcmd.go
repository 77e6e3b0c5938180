package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/actors/absent"
	"github.com/claude-pi/claude-pi/actors/dock"
	"github.com/claude-pi/claude-pi/actors/lan"
	"github.com/claude-pi/claude-pi/actors/ui"
	"github.com/claude-pi/claude-pi/boards"
	"github.com/claude-pi/claude-pi/boards/sim"
	drv "github.com/claude-pi/claude-pi/drivers/ble"
	blesim "github.com/claude-pi/claude-pi/drivers/ble/sim"
	"github.com/claude-pi/claude-pi/supervisor"
	"github.com/claude-pi/claude-pi/supervisor/ctlsock"
)

// shutdownDeadline bounds the whole shutdown: systemd and supervisord wait
// about this long before SIGKILL, and a kill loses whatever Stopping would
// have flushed.
const shutdownDeadline = 5 * time.Second

// runCommand is `claude-pi run`.
func runCommand(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs, o := runFlags(stderr)
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("run: unexpected argument %q (flags only; see claude-pi run --help)", fs.Arg(0))
	}
	if err := checkBoardFlag("run", o.board); o.board != "" && err != nil {
		return err
	}
	load := func() (settings, error) {
		c, err := loadConfig(o.config, configExplicit(fs))
		if err != nil {
			return settings{}, err
		}
		o.apply(fs, &c)
		return resolve(c, o.config, thisHost())
	}
	s, err := load()
	if err != nil {
		return err
	}
	for {
		err := serve(ctx, s, stdout, stderr)
		if !errors.Is(err, errRestart) {
			return err
		}
		// supervisorctl reload: like supervisord, read the file again and
		// start every service anew, in this same process.
		if s, err = load(); err != nil {
			return fmt.Errorf("supervisorctl reload: %w", err)
		}
	}
}

// errRestart ends serveWith for supervisorctl reload; errShutdown is the
// cause of a stop asked for by supervisorctl shutdown.
var (
	errRestart  = errors.New("restart requested (supervisorctl reload)")
	errShutdown = errors.New("shutdown requested (supervisorctl shutdown)")
)

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
	fs.StringVar(&o.config, "config", defaultConfigPath, "configuration `file` (a missing default file means all defaults)")
	fs.StringVar(&o.board, "board", "", "board `name`: auto, sim, pirate-audio, display-hat-mini or waveshare-lcd13 (key board; default auto)")
	fs.StringVar(&o.dataDir, "data-dir", "", "state `directory` (key data_dir; default /var/lib/claude-pi on a Pi, $XDG_STATE_HOME/claude-pi in sim)")
	fs.StringVar(&o.controlSocket, "control-socket", "", "supervisorctl's unix `socket` (key control_socket; default /run/supervisor.sock on a Pi, $XDG_RUNTIME_DIR/claude-pi/supervisor.sock in sim)")
	fs.StringVar(&o.controlGroup, "control-group", "", "`group` allowed to use the control socket (key control_group; default owner only)")
	fs.StringVar(&o.nusListen, "nus-listen", "", "sim BLE link `address`: host:port or unix:/path (key ble.nus_listen; default "+simNUSListen+")")
	fs.StringVar(&o.dockPort, "dock-port", "", "the CoreS3's serial `device` (key dock.port; default: found by USB ids)")
	fs.StringVar(&o.http, "http", "", "sim web page `address` host:port, or off (key http; default "+simHTTP+" in sim, off on a Pi)")
	fs.StringVar(&o.logLevel, "log-level", "", "`level`: debug, info, warn or error (key log_level; default info)")
	return fs, o
}

// apply overrides c with the flags that were given on the command line. A
// flag given as "" counts: --http "" turns the web page off.
func (o *runOpts) apply(fs *flag.FlagSet, c *Config) {
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

// hardware is what the services drive on this board.
type hardware struct {
	board    *sim.Board // nil on a HAT board
	link     drv.Peripheral
	security drv.Security
	// ui and audio are the board's services; the others are the same on
	// every board.
	ui, audio func(*supervisor.Handle) actor.Actor
	dock      dock.Options
}

// boardHardware builds what the services drive: the simulator's
// framebuffer, buttons and socket link, or a HAT's radio, panel, buttons
// and speaker. Nothing on a HAT is opened here; each service opens its part
// when it starts, so a broken part fails one service, visibly.
func boardHardware(s settings, log *slog.Logger, processes func() []supervisor.ProcessInfo) (hardware, func(), error) {
	sec, err := drv.ParseSecurity(s.ble.Security)
	if err != nil {
		return hardware{}, nil, err
	}
	synth, err := buildSynth(s.tts, log)
	if err != nil {
		return hardware{}, nil, err
	}
	hw := hardware{security: sec, dock: dockOptions(s.dock, s.voice, synth, log)}
	// docks.json keeps the CoreS3s accepted on the screen; HUP re-reads the volume.
	hw.dock.DataDir = s.dataDir
	hw.dock.ReadVolume = func() (*int, error) {
		c, err := loadConfig(s.configPath, false)
		return c.Dock.Volume, err
	}
	// The screen shows the lan service's pairing requests and sessions on
	// every board; the lan runs even with [lan] listen off.
	screen := ui.Config{Board: s.board, Device: s.ble.Name, DataDir: s.dataDir, Version: version, LAN: lan.ServiceName, Services: processes,
		ScreenTimeout: s.screenTimeout}
	if !s.simulated() {
		profile, err := boards.Lookup(s.board)
		if err != nil {
			return hardware{}, nil, err
		}
		hw.link = radioLink(s.ble, sec, log)
		hw.ui = hatUI(profile, openHAT, screen)
		hw.audio = hatAudio(profile)
		return hw, func() {}, nil
	}
	board, err := sim.New(nil)
	if err != nil {
		return hardware{}, nil, err
	}
	// The sim has no speaker: the ui plays no chimes here.
	screen.Display, screen.Input = board.Display, board.Buttons
	hw.ui = ui.New(screen)
	hw.audio = absent.New("no audio output on this board")
	hw.board = board
	if s.ble.Backend != "sim" {
		// Simulated screen and buttons, real radio.
		hw.link = radioLink(s.ble, sec, log)
		return hw, func() {}, nil
	}
	nusLn, err := blesim.Listen(s.ble.NUSListen)
	if err != nil {
		return hardware{}, nil, fmt.Errorf("ble.nus_listen: %w (another claude-pi running? choose another with --nus-listen)", err)
	}
	link := blesim.NewLink(nusLn, s.ble.NUSListen, blesim.Options{MTU: s.ble.MTU, Logger: log.With("actor", "ble")})
	hw.link = link
	return hw, link.Close, nil
}

// serve runs the appliance until ctx ends.
func serve(ctx context.Context, s settings, stdout, stderr io.Writer) error {
	return serveWith(ctx, s, stdout, stderr, nil)
}

// running is the started appliance, handed to serveWith's ready hook so
// in-process tests can reach the board and the actors.
type running struct {
	tree   *supervisor.Tree
	board  *sim.Board
	nus    string // the sim link's address
	webURL string // "off" or http://host:port
}

// serveWith is serve, calling ready (if not nil) once everything runs.
func serveWith(ctx context.Context, s settings, stdout, stderr io.Writer, ready func(running)) (err error) {
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: s.logLevel}))
	unlock, err := lockDataDir(s.dataDir)
	if err != nil {
		return err
	}
	defer unlock()
	// supervisorctl shutdown and reload end this run as a signal does.
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var tree *supervisor.Tree
	hw, release, err := boardHardware(s, log, func() []supervisor.ProcessInfo { return tree.Processes() })
	if err != nil {
		return err
	}
	defer release()
	tree, err = supervisor.New(supervisor.Options{Logger: log, Identification: "claude-pi"}, services(s, hw)...)
	if err != nil {
		return err
	}

	// Everything started is stopped by one deferred function, in reverse,
	// whether start-up failed half way or ctx ended.
	var (
		sock *ctlsock.Server
		web  *http.Server
	)
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), shutdownDeadline)
		defer cancel()
		began := time.Now()
		var errs []error
		if web != nil {
			errs = append(errs, web.Shutdown(sctx))
		}
		errs = append(errs, tree.Shutdown(sctx))
		if sock != nil {
			// Shutdown, not Close: a supervisorctl shutdown or reload
			// that began this gets its answer.
			errs = append(errs, sock.Shutdown(sctx))
		}
		if serr := errors.Join(errs...); serr != nil {
			log.Error("shutdown incomplete", "err", serr, "took", time.Since(began).Round(time.Millisecond))
			if err == nil {
				err = fmt.Errorf("shutting down: %w", serr)
			}
			return
		}
		log.Info("stopped", "took", time.Since(began).Round(time.Millisecond))
	}()

	startCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	err = tree.Start(startCtx)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return nil // interrupted while starting: a normal stop
		}
		return err
	}
	sock, err = ctlsock.Listen(s.controlSocket, tree, ctlsock.Options{Group: s.controlGroup, Logger: log.With("actor", "ctlsock"),
		Shutdown: func() { stop(errShutdown) }, Restart: func() { stop(errRestart) },
		Methods: controlMethods(tree)})
	if err != nil {
		return fmt.Errorf("control_socket: %w", err)
	}

	state := func() sim.State { return apiState(tree, s.board, stateTimeout) }

	webURL := "off"
	if s.http != "" {
		ln, err := net.Listen("tcp", s.http)
		if err != nil {
			return fmt.Errorf("http: %w (another claude-pi running? choose another with --http or set http = \"off\")", err)
		}
		srv := &sim.Server{Display: hw.board.Display, Buttons: hw.board.Buttons, State: state, Board: s.board,
			Logger: log.With("actor", "web")}
		web = &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second,
			ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
		go func() {
			if err := web.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Error("web server stopped", "err", err)
			}
		}()
		webURL = "http://" + ln.Addr().String()
		if a, ok := ln.Addr().(*net.TCPAddr); ok && !a.IP.IsLoopback() {
			log.Warn("the sim web page is reachable from the network: anyone who can reach it can press the buttons", "http", s.http)
		}
	}
	nus := "over the air"
	if l, ok := hw.link.(*blesim.Link); ok {
		nus = l.Addr()
	}
	log.Info("started", "board", s.board, "data_dir", s.dataDir, "nus", nus, "control_socket", s.controlSocket, "web", webURL)
	fmt.Fprintf(stdout, "%s on board %s: web %s · supervisorctl -s unix://%s status\n", s.ble.Name, s.board, webURL, s.controlSocket)
	if _, ok := hw.link.(*blesim.Link); ok {
		fmt.Fprintf(stdout, "sim BLE link on %s · try: claude-pi demo --nus %s\n", nus, nus)
	}
	if ready != nil {
		ready(running{tree: tree, board: hw.board, nus: nus, webURL: webURL})
	}

	<-ctx.Done()
	log.Info("stopping", "cause", context.Cause(ctx))
	if errors.Is(context.Cause(ctx), errRestart) {
		return errRestart
	}
	return nil
}

// simServices is the service list as /api/state and the screen show it.
func simServices(ps []supervisor.ProcessInfo) []sim.Service {
	out := make([]sim.Service, 0, len(ps))
	for _, p := range ps {
		desc := p.Description
		if desc == "" && p.SpawnErr != "" {
			desc = p.SpawnErr
		}
		out = append(out, sim.Service{Name: p.Name, State: p.State.String(), Description: desc, Since: p.Start})
	}
	return out
}
