package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/claude-pi/claude-pi/actors/absent"
	"github.com/claude-pi/claude-pi/boards/sim"
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
	c, err := loadConfig(o.config, configExplicit(fs))
	if err != nil {
		return err
	}
	o.apply(fs, &c)
	s, err := resolve(c, o.config, thisHost())
	if err != nil {
		return err
	}
	return serve(ctx, s, stdout, stderr)
}

// services is the appliance's actor tree. None of the real actors exist
// yet; each stand-in says what it is waiting for. The order and the
// dependencies are the real ones: the link before the protocol on it,
// the protocol before the approvals it carries, approvals before the
// screens and the dock that show them.
func services(s settings) []supervisor.Service {
	svc := func(name, why string, deps ...string) supervisor.Service {
		return supervisor.Service{Name: name, DependsOn: deps, Policy: s.policies[name], New: absent.New(why)}
	}
	return []supervisor.Service{
		svc("ble", fmt.Sprintf("sim link not served yet (nus_listen %s)", s.ble.NUSListen)),
		svc("buddy", "Buddy protocol actor not built yet", "ble"),
		svc("approvals", "approvals not built yet: prompts go unanswered", "buddy"),
		svc("dock", "waiting for a CoreS3 (dock host not built yet)", "approvals"),
		svc("ui", "sim display shows the status screen (ui actor not built yet)", "approvals"),
		svc("audio", "no audio output on this board"),
	}
}

// serve runs the appliance on the sim board until ctx ends.
func serve(ctx context.Context, s settings, stdout, stderr io.Writer) (err error) {
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: s.logLevel}))
	if err := os.MkdirAll(s.dataDir, 0o750); err != nil {
		return fmt.Errorf("data_dir: %w", err)
	}
	board, err := sim.New(nil)
	if err != nil {
		return err
	}
	tree, err := supervisor.New(supervisor.Options{Logger: log, Identification: "claude-pi"}, services(s)...)
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
			errs = append(errs, sock.Close())
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
	sock, err = ctlsock.Listen(s.controlSocket, tree, ctlsock.Options{Group: s.controlGroup, Logger: log.With("actor", "ctlsock")})
	if err != nil {
		return fmt.Errorf("control_socket: %w", err)
	}

	state := func() sim.State { return simState(s.board, tree.Processes()) }
	go sim.ShowStatus(ctx, board.Display, func() sim.StatusScreen {
		st := state()
		return sim.StatusScreen{Board: st.Board, Services: st.Services, Now: time.Now()}
	}, 250*time.Millisecond)

	webURL := "off"
	if s.http != "" {
		ln, err := net.Listen("tcp", s.http)
		if err != nil {
			return fmt.Errorf("http: %w (another claude-pi running? choose another with --http or set http = \"off\")", err)
		}
		srv := &sim.Server{Display: board.Display, Buttons: board.Buttons, State: state, Board: s.board,
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
	log.Info("started", "board", s.board, "data_dir", s.dataDir, "control_socket", s.controlSocket, "web", webURL)
	fmt.Fprintf(stdout, "Claude_Pi on board %s: web %s · supervisorctl -s unix://%s status\n", s.board, webURL, s.controlSocket)

	<-ctx.Done()
	log.Info("stopping", "cause", context.Cause(ctx))
	return nil
}

// simState is /api/state: what the appliance knows. Until the link, the
// approvals and the dock exist their fields stay null.
func simState(board string, ps []supervisor.ProcessInfo) sim.State {
	st := sim.State{Board: board, Services: make([]sim.Service, 0, len(ps))}
	for _, p := range ps {
		desc := p.Description
		if desc == "" && p.SpawnErr != "" {
			desc = p.SpawnErr
		}
		st.Services = append(st.Services, sim.Service{Name: p.Name, State: p.State.String(), Description: desc, Since: p.Start})
	}
	return st
}
