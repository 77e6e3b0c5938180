package lan

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

// Messages from the HTTP goroutines to the actor. Each carries the
// client's certificate fingerprint; the actor, not the goroutine, decides
// whether it is paired.
type (
	permIn struct {
		fp    string
		req   hookbridge.PermissionRequest
		reply chan answer
	}
	eventIn struct {
		fp    string
		ev    hookbridge.Event
		reply chan answer
	}
	withdraw struct{ k key }
)

// answer is the actor's reply to an HTTP goroutine. status 0 means "wait
// for the next answer" (a permission accepted and shown).
type answer struct {
	status int
	body   any
}

// server is the HTTP side. It holds no actor state: only the limiter and
// a read-only snapshot of paired fingerprints, used to refuse strangers
// before their body is even read.
type server struct {
	send    func(any)
	paired  *atomic.Pointer[map[string]bool]
	device  string
	maxWait time.Duration
	pairTTL time.Duration
	// followUpWindow is Options.FollowUpWindow (followup.go).
	followUpWindow time.Duration
	// hold is the server's ReadTimeout: the slack added when a long
	// wait extends a connection's deadlines.
	hold  time.Duration
	limit *limiter
	// clientLimit is a paired computer's own bucket, by certificate: the
	// real CLI fires several hooks per tool call (three calls in one
	// message come within milliseconds), so the stranger's 10/s would
	// turn a busy session's prompt into a 429 and a denied call. It still
	// bounds a runaway client.
	clientLimit *limiter
	// pairLimit is a second, much slower bucket for pairing requests:
	// each one puts a code on the Pi's screen, so a stranger gets a few
	// tries, then one every pairEvery.
	pairLimit *limiter
	// ask reaches the dock for Stack-chan's tools (tools.go); nil: no routes.
	ask askFunc
	// approvalWait is Options.ToolApprovalWait.
	approvalWait time.Duration
}

// Pairing requests per address: a burst of pairBurst, then one per
// pairEvery.
const (
	pairBurst = 3
	pairEvery = 20 * time.Second
)

func (s *server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+hookbridge.PathPermission, s.permission)
	mux.HandleFunc("POST "+hookbridge.PathEvent, s.event)
	mux.HandleFunc("POST "+hookbridge.PathFollowUp, s.followUp)
	mux.HandleFunc("POST "+hookbridge.PathPair, s.pairCommit)
	mux.HandleFunc("POST "+hookbridge.PathPairReveal, s.pairReveal)
	mux.HandleFunc("POST "+hookbridge.PathPairConfirm, s.confirm)
	mux.HandleFunc("POST "+hookbridge.PathPairCancel, s.cancel)
	old := func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, hookbridge.OldPairingClient, http.StatusGone)
	}
	mux.HandleFunc(hookbridge.PathPairV1, old)
	mux.HandleFunc(hookbridge.PathPairConfirmV1, old)
	s.toolRoutes(mux)
	return s.guard(mux)
}

// guard applies the rate limit and the size limit to every request.
func (s *server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		bucket, key := s.limit, addrKey(host)
		if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
			if fp := fingerprint(r); s.isPaired(fp) {
				bucket, key = s.clientLimit, fp
			}
		}
		if !bucket.allow(key, time.Now()) {
			http.Error(w, "rate limited", http.StatusTooManyRequests)
			return
		}
		if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
			http.Error(w, "client certificate required", http.StatusUnauthorized)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, hookbridge.MaxRequest)
		next.ServeHTTP(w, r)
	})
}

func fingerprint(r *http.Request) string {
	return hookbridge.Fingerprint(r.TLS.PeerCertificates[0].Raw)
}

func (s *server) isPaired(fp string) bool {
	m := s.paired.Load()
	return m != nil && (*m)[fp]
}

// pairedCount is isPaired and the number of paired computers, from one
// snapshot.
func (s *server) pairedCount(fp string) (paired bool, n int) {
	m := s.paired.Load()
	if m == nil {
		return false, 0
	}
	return (*m)[fp], len(*m)
}

func (s *server) authed(w http.ResponseWriter, r *http.Request) (string, bool) {
	fp := fingerprint(r)
	if !s.isPaired(fp) {
		http.Error(w, "not paired (run claude-pi pair)", http.StatusForbidden)
		return "", false
	}
	return fp, true
}

func (s *server) permission(w http.ResponseWriter, r *http.Request) {
	fp, ok := s.authed(w, r)
	if !ok {
		return
	}
	req, ok := decodeBody(w, r, hookbridge.DecodePermissionRequest)
	if !ok {
		return
	}
	req.Started = hookbridge.ParseHookStarted(r.Header.Get(hookbridge.HeaderHookStarted))
	// A paired hook's long-poll is the one request allowed to outlive the
	// server's timeouts, for as long as its prompt can be pending.
	s.extend(w, s.maxWait)
	reply := make(chan answer, 2)
	s.send(permIn{fp: fp, req: req, reply: reply})
	k := key{req.Session, req.ID}
	wait := time.NewTimer(s.maxWait)
	defer wait.Stop()
	for {
		select {
		case a := <-reply:
			if a.status == 0 {
				// Shown: flush headers so the hook knows the Pi has it.
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusOK)
				http.NewResponseController(w).Flush()
				continue
			}
			writeAnswer(w, a)
			return
		case <-r.Context().Done():
			// The hook exited (answered in the terminal, killed, timed
			// out): its prompt must not stay on the Pi.
			s.send(withdraw{k})
			return
		case <-wait.C:
			s.send(withdraw{k})
			writeAnswer(w, answer{http.StatusOK, hookbridge.Decision{ID: req.ID, Behavior: hookbridge.BehaviorNone, Reason: "timeout"}})
			return
		}
	}
}

func (s *server) event(w http.ResponseWriter, r *http.Request) {
	fp, ok := s.authed(w, r)
	if !ok {
		return
	}
	ev, ok := decodeBody(w, r, hookbridge.DecodeEvent)
	if !ok {
		return
	}
	ev.Started = hookbridge.ParseHookStarted(r.Header.Get(hookbridge.HeaderHookStarted))
	reply := make(chan answer, 1)
	s.send(eventIn{fp: fp, ev: ev, reply: reply})
	s.await(w, r, reply, 5*time.Second)
}

// pairCommit is step 1: rate limited per address (a /64 for IPv6), as
// each answer is a fresh Pi nonce.
func (s *server) pairCommit(w http.ResponseWriter, r *http.Request) {
	host, _, _ := net.SplitHostPort(r.RemoteAddr)
	if !s.pairLimit.allow(addrKey(host), time.Now()) {
		http.Error(w, "too many pairing requests from "+host+": wait a minute", http.StatusTooManyRequests)
		return
	}
	name, commitment, ok := decodeBody2(w, r, hookbridge.DecodePairCommit)
	if !ok {
		return
	}
	reply := make(chan answer, 1)
	s.send(pairCommit{fp: fingerprint(r), name: name, cert: r.TLS.PeerCertificates[0].Raw, commitment: commitment, reply: reply})
	s.await(w, r, reply, 5*time.Second)
}

// pairReveal is step 3; once the commitment opens, its answer waits for
// the button.
func (s *server) pairReveal(w http.ResponseWriter, r *http.Request) {
	nc, ok := decodeBody(w, r, hookbridge.DecodePairReveal)
	if !ok {
		return
	}
	reply := make(chan answer, 2)
	fp := fingerprint(r)
	s.send(pairReveal{fp: fp, nc: nc, reply: reply})
	ctx, cancel := context.WithTimeout(r.Context(), s.pairTTL)
	defer cancel()
	for {
		select {
		case a := <-reply:
			if a.status == 0 {
				// On the screen (the only one): it may wait for the
				// button past the server's timeouts.
				s.extend(w, s.pairTTL)
				continue
			}
			writeAnswer(w, a)
			return
		case <-ctx.Done():
			if r.Context().Err() == nil {
				http.Error(w, "timed out waiting for the button on "+s.device, http.StatusGatewayTimeout)
			}
			s.send(pairGone{fp})
			return
		}
	}
}

func (s *server) cancel(w http.ResponseWriter, r *http.Request) {
	reply := make(chan answer, 1)
	s.send(pairCancel{fp: fingerprint(r), reply: reply})
	s.await(w, r, reply, 5*time.Second)
}

// extend moves the connection's read and write deadlines to d (plus the
// usual slack) from now.
func (s *server) extend(w http.ResponseWriter, d time.Duration) {
	rc := http.NewResponseController(w)
	at := time.Now().Add(d + s.hold)
	rc.SetReadDeadline(at)
	rc.SetWriteDeadline(at)
}

// decodeBody2 is decodeBody for a decoder of two values.
func decodeBody2[T, U any](w http.ResponseWriter, r *http.Request, decode func([]byte) (T, U, error)) (T, U, bool) {
	type pair struct {
		t T
		u U
	}
	p, ok := decodeBody(w, r, func(b []byte) (pair, error) {
		t, u, err := decode(b)
		return pair{t, u}, err
	})
	return p.t, p.u, ok
}

// decodeBody reads the (size-limited) body and decodes it; on failure it
// has answered 413 or 400 and returns false.
func decodeBody[T any](w http.ResponseWriter, r *http.Request, decode func([]byte) (T, error)) (T, bool) {
	var zero T
	b, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "reading request: "+err.Error(), http.StatusRequestEntityTooLarge)
		return zero, false
	}
	v, err := decode(b)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return zero, false
	}
	return v, true
}

func (s *server) confirm(w http.ResponseWriter, r *http.Request) {
	reply := make(chan answer, 1)
	s.send(pairConfirm{fp: fingerprint(r), reply: reply})
	s.await(w, r, reply, 5*time.Second)
}

// await writes the actor's answer; false when none came (client gone,
// timeout).
func (s *server) await(w http.ResponseWriter, r *http.Request, reply chan answer, d time.Duration) bool {
	ctx, cancel := context.WithTimeout(r.Context(), d)
	defer cancel()
	select {
	case a := <-reply:
		writeAnswer(w, a)
		return true
	case <-ctx.Done():
		if r.Context().Err() == nil {
			http.Error(w, "timed out", http.StatusGatewayTimeout)
		}
		return false
	}
}

func writeAnswer(w http.ResponseWriter, a answer) {
	if msg, ok := a.body.(string); ok {
		http.Error(w, msg, a.status)
		return
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.status)
	}
	json.NewEncoder(w).Encode(a.body)
}

// addrKey is what the limits count by: an IPv4 address, or an IPv6
// address's /64, since one host on a LAN can take any number of
// addresses in its prefix (SLAAC privacy addresses) but rarely a second
// prefix.
func addrKey(host string) string {
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.Unmap()
	if ip.Is4() {
		return ip.String()
	}
	p, _ := ip.WithZone("").Prefix(64)
	return p.String()
}

// limiter is a token bucket per remote address: refused early, before a
// stranger can make the actor do any work.
type limiter struct {
	mu      sync.Mutex
	rate    float64 // tokens per second
	burst   float64
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

func newLimiter(rate, burst float64) *limiter {
	return &limiter{rate: rate, burst: burst, buckets: make(map[string]*bucket)}
}

func (l *limiter) allow(host string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buckets) > 1024 {
		// A flood of addresses: forget the full buckets rather than grow.
		for h, b := range l.buckets {
			if b.tokens+now.Sub(b.last).Seconds()*l.rate >= l.burst {
				delete(l.buckets, h)
			}
		}
	}
	b := l.buckets[host]
	if b == nil {
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[host] = b
	}
	b.tokens = min(l.burst, b.tokens+now.Sub(b.last).Seconds()*l.rate)
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
