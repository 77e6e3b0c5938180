package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/actors/absent"
	"github.com/claude-pi/claude-pi/actors/approvals"
	bleactor "github.com/claude-pi/claude-pi/actors/ble"
	buddyactor "github.com/claude-pi/claude-pi/actors/buddy"
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

// audioService is the speaker's service. No package owns it: on every
// board today it is an absent.New stand-in (the ui plays the chimes).
const audioService = "audio"

// topology is the appliance's actor tree, its one table: each service in
// start order and the services it depends on. A service depends on every
// service its Started handler sends to, so that one runs first and stops
// after it (TestStartupLosesNoMessage holds this true). Who sends what to
// whom is in actors/README.md.
var topology = []struct {
	name string
	deps []string
}{
	{bleactor.ServiceName, nil},
	{approvals.ServiceName, nil},
	{buddyactor.ServiceName, []string{bleactor.ServiceName, approvals.ServiceName}},
	{lan.ServiceName, []string{approvals.ServiceName}},
	{dock.ServiceName, []string{approvals.ServiceName, buddyactor.ServiceName}},
	{ui.ServiceName, []string{approvals.ServiceName, buddyactor.ServiceName, bleactor.ServiceName,
		dock.ServiceName, lan.ServiceName}},
	{audioService, nil},
}

// serviceNames are topology's names, for the [services.NAME] keys.
var serviceNames = func() []string {
	names := make([]string, len(topology))
	for i, t := range topology {
		names[i] = t.name
	}
	return names
}()

// services is topology with each service's actor and policy.
func services(s settings, hw hardware) []supervisor.Service {
	actors := map[string]func(*supervisor.Handle) actor.Actor{
		bleactor.ServiceName: bleactor.New(hw.link, bleactor.Config{Name: s.ble.Name, Security: hw.security,
			Lines: buddyactor.ServiceName}),
		// The owners of the prompts' sources hear their decisions: the
		// desktop's go back over BLE, the CLI's ("cli:<session>") to the
		// hook waiting on the lan.
		approvals.ServiceName: approvals.New(approvals.WithOwner(buddyactor.Source, buddyactor.ServiceName),
			approvals.WithOwner(lan.SourcePrefix+"*", lan.ServiceName)),
		buddyactor.ServiceName: buddyactor.New(buddyactor.Config{DataDir: s.dataDir, Name: s.ble.Name}),
		lan.ServiceName: lan.New(lan.Options{Listen: s.lan.listen, DataDir: s.dataDir, Device: s.ble.Name,
			PairTimeout: s.lan.pairTimeout, MaxWait: s.lan.maxWait, Speak: dock.ServiceName}),
		dock.ServiceName: dock.New(hw.dock),
		ui.ServiceName:   hw.ui,
		audioService:     hw.audio,
	}
	out := make([]supervisor.Service, 0, len(topology))
	for _, t := range topology {
		out = append(out, supervisor.Service{Name: t.name, DependsOn: t.deps, Policy: s.policies[t.name], New: actors[t.name]})
	}
	return out
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
	// The screen shows the lan service's pairing requests and sessions on
	// every board; the lan runs even with [lan] listen off.
	screen := ui.Config{Board: s.board, DataDir: s.dataDir, Version: version, LAN: lan.ServiceName, Services: processes,
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
