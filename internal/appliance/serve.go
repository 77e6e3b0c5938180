// Package appliance is what `claude-pi run` starts: the configuration file
// and its resolved Settings, the actor tree (topology), each board's
// hardware, the sim's web page and /api/state, the control socket's own
// methods, and the lock on the data directory. The cli package parses the
// command line and calls Serve; nothing here knows about the other commands.
package appliance

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
	"github.com/claude-pi/claude-pi/actors/dock"
	"github.com/claude-pi/claude-pi/actors/lan"
	"github.com/claude-pi/claude-pi/actors/ui"
	"github.com/claude-pi/claude-pi/boards"
	"github.com/claude-pi/claude-pi/boards/sim"
	drv "github.com/claude-pi/claude-pi/drivers/ble"
	blesim "github.com/claude-pi/claude-pi/drivers/ble/sim"
	"github.com/claude-pi/claude-pi/drivers/sdnotify"
	"github.com/claude-pi/claude-pi/drivers/updates"
	"github.com/claude-pi/claude-pi/internal/appliance/webapi"
	"github.com/claude-pi/claude-pi/supervisor"
	"github.com/claude-pi/claude-pi/supervisor/ctlsock"
)

// ShutdownDeadline bounds the whole shutdown: systemd and supervisord wait
// about this long before SIGKILL, and a kill loses whatever Stopping would
// have flushed.
const ShutdownDeadline = 5 * time.Second

// ErrRestart ends ServeWith for supervisorctl reload; errShutdown is the
// cause of a stop asked for by supervisorctl shutdown.
var (
	ErrRestart  = errors.New("restart requested (supervisorctl reload)")
	errShutdown = errors.New("shutdown requested (supervisorctl shutdown)")
)

// hardware is what the services drive on this board.
type hardware struct {
	board *sim.Board // nil on a HAT board
	// web is the sim board's page and API; serve sets its State. Nil on a
	// HAT board, which has no framebuffer or buttons to show.
	web      *webapi.Server
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
func boardHardware(s Settings, log *slog.Logger, processes func() []supervisor.ProcessInfo) (hardware, func(), error) {
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
		c, err := LoadConfig(s.configPath, false)
		return c.Dock.Volume, err
	}
	// The screen shows the lan service's pairing requests and sessions on
	// every board; the lan runs even with [lan] listen off.
	screen := ui.Config{Board: s.board, Device: s.ble.Name, DataDir: s.dataDir, Version: s.Version, LAN: lan.ServiceName, Services: processes,
		ScreenTimeout: s.screenTimeout, Updates: uiUpdates(s)}
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
	hw.web = &webapi.Server{Display: board.Display, Buttons: board.Buttons, Board: s.board, Logger: log.With("actor", "web")}
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

// uiUpdates is what the screen's System page reads (ui.Config.Updates):
// the Pi's own apt and unattended-upgrades state under "/" on a HAT board.
// The sim gets none, so no System page: it runs on a developer's machine,
// whose updates are not the appliance's to report (and whose Debian, if
// it is one, a page claiming to be the Pi's would misdescribe).
func uiUpdates(s Settings) func() (updates.Status, error) {
	if s.simulated() {
		return nil
	}
	return func() (updates.Status, error) { return updates.Read("/") }
}

// Serve runs the appliance until ctx ends.
func Serve(ctx context.Context, s Settings, stdout, stderr io.Writer) error {
	return ServeWith(ctx, s, stdout, stderr, Options{})
}

// Options are what in-process tests change about a run.
type Options struct {
	// Ready (if not nil) is called once everything runs.
	Ready func(Running)
	// Link (if not nil) replaces the board's BLE link, e.g. with a fake
	// central a test can unsubscribe.
	Link drv.Peripheral
}

// Running is the started appliance, handed to Options.Ready so
// in-process tests can reach the board and the actors.
type Running struct {
	Tree   *supervisor.Tree
	Board  *sim.Board
	NUS    string // the sim link's address
	WebURL string // "off" or http://host:port
}

// ServeWith is Serve with o.
func ServeWith(ctx context.Context, s Settings, stdout, stderr io.Writer, o Options) (err error) {
	// The line that says where everything is comes first: the start-up's
	// INFO lines wait for it (heldLog).
	var held heldLog
	defer held.release()
	log := slog.New(held.handler(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: s.logLevel})))
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
	if s.http != "" && hw.web == nil {
		return fmt.Errorf("http = %q: board %s has no web page (it draws the sim's screen); set http = \"off\"", s.http, s.board)
	}
	if o.Link != nil {
		hw.link = o.Link
	}
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
		sctx, cancel := context.WithTimeout(context.Background(), ShutdownDeadline)
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
		Shutdown: func() { stop(errShutdown) }, Restart: func() { stop(ErrRestart) },
		Methods: ControlMethods(tree)})
	if err != nil {
		return fmt.Errorf("control_socket: %w", err)
	}

	webURL := "off"
	if s.http != "" {
		ln, err := net.Listen("tcp", s.http)
		if err != nil {
			return fmt.Errorf("http: %w (another claude-pi running? choose another with --http or set http = \"off\")", err)
		}
		hw.web.State = func() webapi.State { return APIState(tree, s.board, stateTimeout) }
		web = &http.Server{Handler: hw.web.Handler(), ReadHeaderTimeout: 10 * time.Second,
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
	log.Info("started", "board", s.board, "board_chosen", s.boardHow, "data_dir", s.dataDir, "nus", nus, "control_socket", s.controlSocket, "web", webURL)
	fmt.Fprintf(stdout, "%s on board %s: web %s · supervisorctl -s unix://%s status\n", s.ble.Name, s.board, webURL, s.controlSocket)
	held.release()
	if _, ok := hw.link.(*blesim.Link); ok {
		fmt.Fprintf(stdout, "sim BLE link on %s · try: claude-pi demo --nus %s\n", nus, nus)
	}
	if o.Ready != nil {
		o.Ready(Running{Tree: tree, Board: hw.board, NUS: nus, WebURL: webURL})
	}
	stopWatchdog := notifySystemd(ctx, sdnotify.FromEnv(), tree, log)
	defer stopWatchdog()

	<-ctx.Done()
	log.Info("stopping", "cause", context.Cause(ctx))
	if errors.Is(context.Cause(ctx), ErrRestart) {
		return ErrRestart
	}
	return nil
}

// notifySystemd tells systemd (Type=notify) that the appliance is up, and
// feeds its watchdog (WatchdogSec=) for as long as the supervisor's root
// actor answers, so a wedged actor system is killed and restarted. The
// returned func says why the process stops and waits for the pings to end.
// Outside systemd it does nothing.
func notifySystemd(ctx context.Context, n sdnotify.Socket, tree *supervisor.Tree, log *slog.Logger) func() {
	if !n.Enabled() {
		return func() {}
	}
	if err := n.Notify(sdnotify.Ready); err != nil {
		log.Warn("systemd not told we are ready: it will time the start out", "err", err)
	}
	every := sdnotify.WatchdogInterval() / 3
	done := make(chan struct{})
	if every > 0 {
		ticker := time.NewTicker(every)
		go func() {
			defer close(done)
			defer ticker.Stop()
			sdnotify.Keep(ctx, n, ticker.C, every, tree.Alive, log)
		}()
	} else {
		close(done)
	}
	return func() {
		<-done
		// RELOADING=1 until the next run's READY=1: a reload is not a stop.
		state := sdnotify.Stopping
		if errors.Is(context.Cause(ctx), ErrRestart) {
			state = sdnotify.Reloading
		}
		if err := n.Notify(state); err != nil {
			log.Warn("systemd not told we are stopping", "err", err)
		}
	}
}

// simServices is the service list as /api/state and the screen show it.
func simServices(ps []supervisor.ProcessInfo) []webapi.Service {
	out := make([]webapi.Service, 0, len(ps))
	for _, p := range ps {
		desc := p.Description
		if desc == "" && p.SpawnErr != "" {
			desc = p.SpawnErr
		}
		out = append(out, webapi.Service{Name: p.Name, State: p.State.String(), Description: desc, Since: p.Start})
	}
	return out
}
