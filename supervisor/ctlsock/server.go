package ctlsock

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/claude-pi/claude-pi/supervisor/stalesock"
)

// Options configures Listen. The zero value is a root-only (0600) socket
// that logs nowhere.
type Options struct {
	// Group, if set, owns the socket and may use it (mode 0660), so that
	// members can run supervisorctl without sudo. Empty means root only.
	Group string
	// Logger receives one Debug line per call and Warn lines for trouble.
	// Nil discards.
	Logger *slog.Logger
	// Shutdown and Restart are what supervisorctl shutdown and reload do:
	// stop the whole program, or stop it and start it again with its
	// configuration re-read. They must only begin that and return; the
	// program then shuts the server down, which finishes the call. Nil
	// answers the call with a FAILED fault.
	Shutdown, Restart func()
	// Methods are the program's own XML-RPC methods, named
	// "namespace.name" outside the supervisor and system namespaces, for
	// its own commands to reach the running program (supervisorctl never
	// calls them).
	Methods map[string]Method
}

// Method is one of Options.Methods. It gets the call's arguments, which
// must all be strings, and must bound its own wait; an error becomes a
// FAILED fault with the error's text.
type Method func(args []string) (string, error)

// Server serves supervisord's XML-RPC and log-tail endpoints on a unix
// socket. Create it with Listen.
type Server struct {
	path   string
	fi     os.FileInfo // the socket we bound, to avoid removing a successor's
	ln     net.Listener
	http   *http.Server
	rpc    *rpc
	log    *slog.Logger
	closed chan struct{} // closed when follow streams must end
	once   sync.Once
	mu     sync.Mutex // orders tails.Add against endTails
	tails  sync.WaitGroup
	served chan error
}

// Listen binds a unix socket at path and serves b on it until Close or
// Shutdown. A stale socket left by a dead instance is replaced; a live one
// (another instance answers on it) is an error, as is any other file.
func Listen(path string, b Backend, opts Options) (*Server, error) {
	if b == nil {
		return nil, errors.New("ctlsock: nil Backend")
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	gid := -1
	if opts.Group != "" {
		g, err := user.LookupGroup(opts.Group)
		if err != nil {
			return nil, fmt.Errorf("ctlsock: socket group %q: %w", opts.Group, err)
		}
		if gid, err = strconv.Atoi(g.Gid); err != nil {
			return nil, fmt.Errorf("ctlsock: socket group %q has non-numeric gid %q", opts.Group, g.Gid)
		}
	}
	if err := stalesock.Clear(path); err != nil {
		if errors.Is(err, stalesock.ErrInUse) {
			return nil, fmt.Errorf("ctlsock: %s: another claude-pi is already serving this socket", path)
		}
		return nil, fmt.Errorf("ctlsock: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("ctlsock: creating socket directory: %w", err)
	}
	for name := range opts.Methods {
		ns, _, ok := strings.Cut(name, ".")
		if !ok || strings.Count(name, ".") != 1 || ns == "supervisor" || ns == "system" {
			return nil, fmt.Errorf("ctlsock: method %q: want namespace.name outside supervisor and system", name)
		}
	}
	ln, fi, err := bindPrivately(path, gid)
	if err != nil {
		return nil, err
	}
	s := &Server{
		path:   path,
		fi:     fi,
		ln:     ln,
		rpc:    &rpc{b: b, now: time.Now, life: lifecycle{shutdown: opts.Shutdown, restart: opts.Restart}, own: opts.Methods},
		log:    log,
		closed: make(chan struct{}),
		served: make(chan error, 1),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/RPC2", s.serveRPC)
	mux.HandleFunc("/logtail/", s.serveLogtail)
	mux.HandleFunc("/mainlogtail", s.serveMainLogtail)
	s.http = &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	go func() { s.served <- s.http.Serve(ln) }()
	log.Info("control socket listening", "path", path, "group", opts.Group)
	return s, nil
}

// bindPrivately binds under a temporary name, sets mode and group, then
// renames into place, so the socket is never reachable with the umask's
// looser permissions.
func bindPrivately(path string, gid int) (net.Listener, os.FileInfo, error) {
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	_ = os.Remove(tmp)
	ln, err := net.Listen("unix", tmp)
	if err != nil {
		return nil, nil, fmt.Errorf("ctlsock: binding %s: %w", path, err)
	}
	// We unlink by hand in Close: the listener only knows the tmp name.
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	fail := func(step string, err error) (net.Listener, os.FileInfo, error) {
		ln.Close()
		os.Remove(tmp)
		return nil, nil, fmt.Errorf("ctlsock: %s %s: %w", step, path, err)
	}
	mode := os.FileMode(0o600)
	if gid >= 0 {
		mode = 0o660
		if err := os.Chown(tmp, -1, gid); err != nil {
			return fail("setting group of", err)
		}
	}
	if err := os.Chmod(tmp, mode); err != nil {
		return fail("setting mode of", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fail("moving socket into place at", err)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return fail("checking", err)
	}
	return ln, fi, nil
}

// Path is the socket's file name.
func (s *Server) Path() string { return s.path }

// Close stops serving at once, ends follow streams and removes the socket.
func (s *Server) Close() error {
	s.endTails()
	err := s.http.Close()
	s.tails.Wait()
	s.removeSocket()
	return err
}

// Shutdown stops accepting, ends follow streams (tail -f) right away, and
// waits for calls in progress until ctx is done; then removes the socket.
func (s *Server) Shutdown(ctx context.Context) error {
	s.endTails()
	err := s.http.Shutdown(ctx)
	done := make(chan struct{})
	go func() { s.tails.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		if err == nil {
			err = ctx.Err()
		}
	}
	s.removeSocket()
	return err
}

func (s *Server) endTails() {
	s.once.Do(func() {
		s.mu.Lock()
		close(s.closed)
		s.mu.Unlock()
	})
}

// startTail registers a follow stream unless the server is stopping, so
// that no stream starts after Shutdown began waiting for them.
func (s *Server) startTail() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.closed:
		return false
	default:
		s.tails.Add(1)
		return true
	}
}

// removeSocket unlinks the socket unless another instance has since
// replaced it with its own.
func (s *Server) removeSocket() {
	if fi, err := os.Lstat(s.path); err == nil && os.SameFile(fi, s.fi) {
		os.Remove(s.path)
	}
}

func (s *Server) serveRPC(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "XML-RPC needs POST", http.StatusMethodNotAllowed)
		return
	}
	// Read the whole body first so that an oversized one is always a 413,
	// whatever the decoder would have tripped over first.
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, MaxRequestBytes))
	if err != nil {
		s.log.Warn("control socket: reading XML-RPC request", "err", err)
		http.Error(w, "request too large or unreadable", http.StatusRequestEntityTooLarge)
		return
	}
	mc, err := DecodeMethodCall(bytes.NewReader(body))
	if err != nil {
		// supervisord answers an undecodable body with HTTP 400, not a fault.
		s.log.Warn("control socket: bad XML-RPC request", "err", err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	out, err := s.handle(mc)
	if err != nil {
		s.log.Warn("control socket: encoding response", "method", mc.Method, "err", err)
		out = AppendFault(nil, newFault(Failed, err.Error()))
	}
	w.Header().Set("Content-Type", "text/xml")
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	if _, err := w.Write(out); err != nil {
		s.log.Debug("control socket: writing response", "method", mc.Method, "err", err)
	}
}

// handle runs one decoded call and encodes its response or fault.
func (s *Server) handle(mc MethodCall) ([]byte, error) {
	v, f := s.rpc.call(mc.Method, mc.Params)
	if f != nil {
		s.log.Debug("control socket call", "method", mc.Method, "fault", f.String)
		return AppendFault(nil, f), nil
	}
	s.log.Debug("control socket call", "method", mc.Method)
	return AppendResponse(nil, v)
}

// splitLogtailPath parses "/logtail/NAME[/CHANNEL]", default stdout.
func splitLogtailPath(p string) (name, channel string) {
	rest := strings.TrimLeft(strings.TrimPrefix(strings.TrimLeft(p, "/"), "logtail"), "/")
	name, channel, ok := strings.Cut(rest, "/")
	if !ok {
		channel = "stdout"
	}
	return name, channel
}
