package ctlsock

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// tailHead is how much existing log a follow stream starts with, as
// supervisord's tail_f_producer does.
const tailHead = 1024

// followWriteTimeout bounds one chunk write, so a client that stops
// reading cannot pin a stream (and the Backend subscription) forever.
const followWriteTimeout = 10 * time.Second

// serveLogtail is `supervisorctl tail -f NAME [stdout|stderr]`:
// GET /logtail/NAME/CHANNEL, answered with a chunked body that ends only
// when the client leaves, the actor's log stream ends or the server stops.
func (s *Server) serveLogtail(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodGet {
		http.Error(w, "logtail needs GET", http.StatusBadRequest)
		return
	}
	spec, channel := splitLogtailPath(req.URL.Path)
	ps, group, f := s.rpc.lookup(spec)
	// Like supervisord, every reason there is nothing to follow is a 404.
	if f != nil || group || (channel != "stdout" && channel != "stderr") {
		http.NotFound(w, req)
		return
	}
	// stderr is merged into stdout here, so its stream stays empty; it is
	// still a stream that stays open until the client leaves, as
	// supervisord's is: supervisorctl fg follows both and prints "Cannot
	// read" for a 404, and answering and closing at once made its last
	// CRLF (sent after the headers) meet a closed socket: BrokenPipe.
	s.follow(w, req, ps[0].Name, channel == "stderr")
}

// serveMainLogtail is `supervisorctl maintail -f`.
func (s *Server) serveMainLogtail(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodGet {
		http.Error(w, "mainlogtail needs GET", http.StatusBadRequest)
		return
	}
	s.follow(w, req, "", false)
}

// follow takes the connection over from net/http. supervisorctl sends a
// stray CRLF after its request headers, which net/http's background read
// swallows as a "pipelined request", and from then on it no longer cancels
// the request context when the client hangs up. Owning the connection lets
// us watch for the hang-up ourselves. An empty stream (stderr, merged
// into stdout) sends no line but ends the same way.
func (s *Server) follow(w http.ResponseWriter, req *http.Request, name string, empty bool) {
	if !s.startTail() {
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
		return
	}
	defer s.tails.Done()
	var ch <-chan []byte // nil for an empty stream: never ready
	var kept []byte
	if !empty {
		lines, stop, err := s.rpc.b.FollowLog(name)
		if err != nil {
			http.NotFound(w, req)
			return
		}
		// Deferred after Done, so it runs first: Shutdown returns only
		// once every subscription is released.
		defer stop()
		// Subscribe before taking the snapshot: a line written in
		// between shows twice rather than not at all.
		if kept, _, err = s.rpc.b.Log(name); err != nil {
			http.NotFound(w, req)
			return
		}
		ch = lines
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	conn, rw, err := hj.Hijack()
	if err != nil {
		s.log.Warn("control socket: taking over log tail connection", "err", err)
		return
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Time{})

	chunked := req.ProtoAtLeast(1, 1)
	t := &tailWriter{conn: conn, w: rw.Writer, chunked: chunked}
	hdr := "HTTP/1.1 200 OK\r\nContent-Type: text/plain;charset=utf-8\r\nX-Accel-Buffering: no\r\nCache-Control: no-cache\r\n"
	if chunked {
		hdr += "Transfer-Encoding: chunked\r\n\r\n"
	} else {
		hdr = "HTTP/1.0 200 OK" + hdr[len("HTTP/1.1 200 OK"):] + "Connection: close\r\n\r\n"
	}
	if _, err := rw.WriteString(hdr); err != nil {
		return
	}
	if len(kept) > tailHead {
		kept = kept[len(kept)-tailHead:]
	}
	if err := t.chunk(kept); err != nil {
		return
	}

	gone := make(chan struct{})
	go func() {
		// Anything the client sends now is noise; EOF or error means it left.
		_, _ = io.Copy(io.Discard, rw.Reader)
		close(gone)
	}()
	s.log.Debug("control socket: following log", "name", name)
	for {
		select {
		case b, ok := <-ch:
			if !ok {
				t.end()
				return
			}
			if err := t.chunk(b); err != nil {
				s.log.Debug("control socket: log follower went away", "name", name, "err", err)
				return
			}
		case <-gone:
			return
		case <-s.closed:
			t.end()
			return
		}
	}
}

// tailWriter writes the body of a follow stream.
type tailWriter struct {
	conn    net.Conn
	w       *bufio.Writer
	chunked bool
}

func (t *tailWriter) chunk(b []byte) error {
	if len(b) == 0 {
		// An empty chunk would end a chunked body; only flush headers.
		return t.flush()
	}
	if t.chunked {
		fmt.Fprintf(t.w, "%x\r\n", len(b))
	}
	t.w.Write(b)
	if t.chunked {
		t.w.WriteString("\r\n")
	}
	return t.flush()
}

func (t *tailWriter) flush() error {
	_ = t.conn.SetWriteDeadline(time.Now().Add(followWriteTimeout))
	return t.w.Flush()
}

// end closes the body properly so that the client sees a clean finish.
func (t *tailWriter) end() {
	if t.chunked {
		t.w.WriteString("0\r\n\r\n")
	}
	_ = t.flush()
}
