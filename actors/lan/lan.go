// Package lan is the Pi's LAN API for Claude Code sessions in a terminal:
// `claude-pi hook permission` on a paired computer sends each permission
// dialog here; the lan actor shows it through approvals as source
// "cli:<session>" and answers the hook's long-poll with the decision.
//
// Transport is HTTPS with mutual TLS: the Pi and each computer hold
// self-signed certificates, paired once by comparing a 6-digit code
// (protocols/hookbridge pairing v2, this package's pairing.go), then
// pinned on both sides.
package lan

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/actors/approvals"
	drv "github.com/claude-pi/claude-pi/drivers/ble"
	"github.com/claude-pi/claude-pi/drivers/lanpair"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
	"github.com/claude-pi/claude-pi/supervisor"
)

// Options configures the lan service.
type Options struct {
	// Listen is the API's address, e.g. ":7787". Empty: the API is off
	// and the actor only says so.
	Listen string
	// DataDir holds lan/identity.pem (the Pi's certificate) and
	// lan/clients.json (the paired computers).
	DataDir string
	// Device is the name the hook's deny message names;
	// drivers/ble.DefaultName when empty.
	Device string
	// Approvals is the service that shows prompts; approvals.ServiceName
	// when empty.
	Approvals string
	// MaxWait bounds one permission long-poll on the Pi's side; the hook
	// usually gives up first. 15 min when zero.
	MaxWait time.Duration
	// Speak is the service that speaks Claude's replies from terminal
	// sessions (the dock): it gets a Reply for each Stop that carries
	// one. None when empty.
	Speak string
	// Tools is the service that holds Stack-chan's tools (the dock): the
	// tool routes ask it for GetCatalog and CallTool. Empty: nothing is
	// ever docked.
	Tools string
	// FollowUpWindow is how long a terminal session's Stop hook waits
	// for a head swipe on the dock after its reply ([voice] follow_up);
	// off when zero (followup.go).
	FollowUpWindow time.Duration
	// ToolApprovalWait is how long a Stack-chan tool call that needs the
	// person's yes (tools.go) waits for it; DefaultApprovalWait when zero.
	// Past it the call fails with code "not_approved".
	ToolApprovalWait time.Duration
	// PairTimeout is how long a pairing request waits for the button;
	// 2 min when zero.
	PairTimeout time.Duration
	// AcceptTimeout is how long an accepted pairing waits for the
	// computer's confirmation; DefaultAcceptTimeout when zero.
	AcceptTimeout time.Duration
	// Now replaces time.Now in tests.
	Now func() time.Time

	// The HTTP side's bounds, so that idle or slow connections from
	// anyone on the LAN cannot pile up; zero takes the default. Only a
	// paired computer's long polls (a permission while its prompt is
	// pending, the tool catalog's, a follow-up's) and the one pairing
	// request on the screen outlive ReadTimeout.
	//
	// HeaderTimeout bounds the TLS handshake and the request headers
	// (5 s); ReadTimeout a whole request and its answer (10 s);
	// IdleTimeout a keep-alive connection between requests (5 s).
	HeaderTimeout, ReadTimeout, IdleTimeout time.Duration
	// MaxConnsPerAddr and MaxConns cap the open connections from one
	// address (32: a computer's 16 pending prompts and its events; a /64
	// for IPv6) and in total (128). ReservedConns of the total are kept
	// for paired computers (MaxConns/2): strangers never hold more than
	// the rest. A paired computer's connections, long polls included,
	// are capped at its fair share of ReservedConns, divided by the
	// number of paired computers, never over MaxConnsPerClient
	// (ReservedConns/4: 16 pending prompts, its tool-catalog and
	// follow-up polls, its events) nor under 2: so however many are
	// paired, all of them at their cap and strangers at theirs still
	// leave each room (conns.go, shareOf).
	MaxConnsPerAddr, MaxConns, ReservedConns, MaxConnsPerClient int
}

func (o *Options) defaults() {
	set := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	set(&o.HeaderTimeout, 5*time.Second)
	set(&o.ReadTimeout, 10*time.Second)
	set(&o.IdleTimeout, 5*time.Second)
	if o.MaxConnsPerAddr == 0 {
		o.MaxConnsPerAddr = 32
	}
	if o.MaxConns == 0 {
		o.MaxConns = 128
	}
	if o.ReservedConns == 0 {
		o.ReservedConns = o.MaxConns / 2
	}
	if o.MaxConnsPerClient == 0 {
		o.MaxConnsPerClient = max(o.ReservedConns/4, 1)
	}
}

// Defaults for zero Options.
const (
	DefaultMaxWait     = 15 * time.Minute
	DefaultPairTimeout = 2 * time.Minute
)

// New returns the supervisor.Service constructor of the "lan" service.
// Prompts are not kept across a restart: the hooks' connections drop with
// the old incarnation, so their prompts are withdrawn and the terminal
// dialogs carry on.
func New(o Options) func(h *supervisor.Handle) actor.Actor {
	if o.Device == "" {
		o.Device = drv.DefaultName
	}
	if o.Approvals == "" {
		o.Approvals = approvals.ServiceName
	}
	if o.MaxWait == 0 {
		o.MaxWait = DefaultMaxWait
	}
	if o.PairTimeout == 0 {
		o.PairTimeout = DefaultPairTimeout
	}
	if o.ToolApprovalWait == 0 {
		o.ToolApprovalWait = DefaultApprovalWait
	}
	if o.AcceptTimeout == 0 {
		o.AcceptTimeout = DefaultAcceptTimeout
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	o.defaults()
	// Subscribers outlive incarnations: the ui subscribed once with its
	// ServicePID and must see the next incarnation's pairing requests.
	subs := &supervisor.Subscribers{}
	return func(h *supervisor.Handle) actor.Actor { return &Actor{h: h, o: o, subs: subs} }
}

// Actor is the lan service; use New.
type Actor struct {
	h    *supervisor.Handle
	o    Options
	st   *state
	subs *supervisor.Subscribers

	system  *actor.ActorSystem
	self    *actor.PID
	addr    string
	paired  atomic.Pointer[map[string]bool]
	srv     *http.Server
	conns   *capListener
	serving sync.WaitGroup

	waiters map[key]chan answer
	fu      followUps
	// own is the Pi's certificate (DER), the one the TLS sessions show.
	own []byte
	// nonces rations the Pi's pairing nonces (pairing.go).
	nonces  *limiter
	pairSeq int
}

// ClientsPath is the paired computers' file in the data directory dataDir.
func ClientsPath(dataDir string) string { return filepath.Join(dataDir, "lan", "clients.json") }

// Receive handles the package's messages and the actor lifecycle.
func (a *Actor) Receive(c actor.Context) {
	if a.subs.Receive(c, func() any { return a.state() }) {
		return
	}
	if a.st != nil && (a.receivePairing(c.Message()) || a.receiveFollowUp(c)) {
		return
	}
	switch m := c.Message().(type) {
	case *actor.Started:
		a.start(c)
		a.changed()
	case *actor.Stopping:
		a.stop(c)
		// Subscribers must not keep showing a pairing code or sessions
		// nobody answers for any more.
		a.subs.Publish(a.system.Root, State{Device: a.o.Device})
	case *actor.Stopped:
		a.serving.Wait()
	case permIn:
		a.permission(c, m)
	case eventIn:
		ch, err := a.st.event(m.fp, m.ev, a.o.Now())
		if err != nil {
			m.reply <- answer{http.StatusForbidden, err.Error()}
			return
		}
		m.reply <- answer{http.StatusNoContent, struct{}{}}
		a.apply(c, ch, "moved on")
		if m.ev.Event == hookbridge.EventStop && m.ev.Reply != "" && a.o.Speak != "" {
			cl, _ := a.st.client(m.fp) // event succeeded: the client is paired
			c.Send(supervisor.ServicePID(a.system, a.o.Speak), Reply{Session: m.ev.Session, Project: m.ev.Project, Computer: cl.Name,
				Text: m.ev.Reply, FollowUp: a.offerFollowUp(m.fp, m.ev)})
		}
	case withdraw:
		if ch, ok := a.st.remove(m.k); ok {
			a.h.Logger().Info("prompt withdrawn by its hook", "session", m.k.session, "id", m.k.id)
			delete(a.waiters, m.k)
			a.apply(c, ch, "")
		}
	case approvals.Decided:
		a.decided(c, m)
	case approvals.Resend:
		// approvals restarted and lost every CLI prompt, and any set sent
		// while it was down; the hooks are still waiting.
		if a.st != nil {
			for id, se := range a.st.sessions {
				if len(se.prompts) > 0 {
					c.Send(a.approvals(), approvals.SetPrompts{Source: SourcePrefix + id, Prompts: a.st.prompts(id), LinkUp: true})
				}
			}
		}
	case Revoke:
		ch, err := a.st.revoke(m.Name)
		if err == nil {
			err = a.saveClients()
			a.apply(c, ch, "revoked")
		}
		if c.Sender() != nil {
			r := RevokeResult{OK: err == nil}
			if err != nil {
				r.Err = err.Error()
			}
			c.Respond(r)
		}
	case GetState:
		c.Respond(a.state())
	case supervisor.Reload:
		a.reload(c)
	}
}

func (a *Actor) start(c actor.Context) {
	a.system, a.self = c.ActorSystem(), c.Self()
	a.waiters = make(map[key]chan answer)
	a.nonces = newLimiter(1/nonceEvery.Seconds(), nonceBurst)
	clients, _ := a.loadClients() // a damaged file is set aside: pair again
	a.st = newState(clients)
	a.publishPaired()
	if a.o.Listen == "" {
		a.h.SetDescription("off (set [lan] listen to pair computers)")
		return
	}
	id, err := a.loadIdentity()
	if err != nil {
		a.h.Fail(err)
		return
	}
	ln, err := net.Listen("tcp", a.o.Listen)
	if err != nil {
		a.h.Fail(fmt.Errorf("listening on %s: %v", a.o.Listen, err))
		return
	}
	a.addr = ln.Addr().String()
	system, self := a.system, a.self
	s := &server{
		send:        func(m any) { system.Root.Send(self, m) },
		paired:      &a.paired,
		device:      a.o.Device,
		maxWait:     a.o.MaxWait,
		pairTTL:     a.o.PairTimeout,
		limit:       newLimiter(10, 30),
		clientLimit: newLimiter(100, 300),
		pairLimit:   newLimiter(1/pairEvery.Seconds(), pairBurst),
		ask:         askDock(system, a.o.Tools),
	}
	s.followUpWindow = a.o.FollowUpWindow
	s.approvalWait = a.o.ToolApprovalWait
	own := id.Certificate[0]
	a.own = own
	a.srv = &http.Server{
		Handler:           s.handler(),
		ReadHeaderTimeout: a.o.HeaderTimeout,
		ReadTimeout:       a.o.ReadTimeout,
		WriteTimeout:      a.o.ReadTimeout,
		IdleTimeout:       a.o.IdleTimeout,
		MaxHeaderBytes:    8 << 10,
		// Handshake and read errors are what any scanner on the LAN causes:
		// debug, so that they cannot flood the log.
		ErrorLog: slog.NewLogLogger(a.h.Logger().Handler(), slog.LevelDebug),
	}
	a.conns = newCapListener(ln, a.o.MaxConnsPerAddr, a.o.MaxConnsPerClient, a.o.MaxConns, a.o.ReservedConns)
	paired := func(der []byte) (string, bool, int) {
		fp := hookbridge.Fingerprint(der)
		ok, n := s.pairedCount(fp)
		return fp, ok, n
	}
	tl := tls.NewListener(a.conns, a.conns.tlsConfig(lanpair.ServerConfig(id), paired))
	a.serving.Add(1)
	go func() {
		defer a.serving.Done()
		if err := a.srv.Serve(tl); err != nil && !errors.Is(err, http.ErrServerClosed) {
			a.h.Fail(fmt.Errorf("serving: %v", err))
		}
	}()
	a.h.Logger().Info("LAN API listening", "addr", a.addr, "fingerprint", hookbridge.Fingerprint(own))
}

func (a *Actor) stop(c actor.Context) {
	if a.st == nil {
		return
	}
	// Tell each hook "no decision" before its connection goes, and take
	// every CLI prompt off the screen.
	for k, w := range a.waiters {
		w <- answer{http.StatusOK, hookbridge.Decision{ID: k.id, Behavior: hookbridge.BehaviorNone, Reason: a.o.Device + " stopping"}}
	}
	for id, se := range a.st.sessions {
		if len(se.prompts) > 0 {
			c.Send(a.approvals(), approvals.SetPrompts{Source: SourcePrefix + id, LinkUp: false})
		}
	}
	if a.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		a.srv.Shutdown(ctx)
		cancel()
		a.srv.Close()
	}
}

func (a *Actor) approvals() *actor.PID { return supervisor.ServicePID(a.system, a.o.Approvals) }

func (a *Actor) permission(c actor.Context, m permIn) {
	ch, err := a.st.permission(m.fp, m.req, a.o.Now())
	if err != nil {
		status := http.StatusConflict
		if errors.Is(err, errUnpaired) {
			status = http.StatusForbidden
		} else if errors.Is(err, errBusy) {
			status = http.StatusTooManyRequests
		}
		a.h.Logger().Warn("permission request refused", "err", err)
		m.reply <- answer{status, err.Error()}
		return
	}
	a.waiters[key{m.req.Session, m.req.ID}] = m.reply
	m.reply <- answer{} // shown
	a.apply(c, ch, "superseded")
}

// apply answers dropped prompts with no decision and sends each changed
// session's complete prompt set to approvals.
func (a *Actor) apply(c actor.Context, ch changes, why string) {
	for _, k := range ch.dropped {
		if w := a.waiters[k]; w != nil {
			w <- answer{http.StatusOK, hookbridge.Decision{ID: k.id, Behavior: hookbridge.BehaviorNone, Reason: why}}
			delete(a.waiters, k)
		}
	}
	for _, id := range ch.sessions {
		c.Send(a.approvals(), approvals.SetPrompts{Source: SourcePrefix + id, Prompts: a.st.prompts(id), LinkUp: true})
	}
	a.changed()
}

func (a *Actor) decided(c actor.Context, m approvals.Decided) {
	session, ok := cutSource(m.Source)
	k := key{session, m.ID}
	w := a.waiters[k]
	if !ok || w == nil {
		a.h.Logger().Warn("decision for a prompt no hook waits for", "source", m.Source, "id", m.ID)
		return
	}
	// Device and By reach Claude in the hook's deny message: short and
	// printable (the hook cuts them too, whatever a Pi sends).
	d := hookbridge.Decision{ID: m.ID, Behavior: hookbridge.BehaviorDeny,
		Device: hookbridge.Printable(a.o.Device, hookbridge.MaxLabel), By: hookbridge.Printable(m.By, hookbridge.MaxLabel)}
	switch {
	case m.Answer != nil && m.Answer.Choices == nil:
		// "Answer at the computer": the terminal's own dialog asks.
		d = hookbridge.Decision{ID: m.ID, Behavior: hookbridge.BehaviorNone, Reason: "answer at the computer (chosen on " + d.By + ")"}
	case m.Answer != nil:
		d.Behavior, d.Choices = hookbridge.BehaviorAllow, m.Answer.Choices
	case m.Decision.Allows(): // the edge: approvals' decision becomes the hook's behavior
		d.Behavior = hookbridge.BehaviorAllow
	}
	w <- answer{http.StatusOK, d}
	delete(a.waiters, k)
	ch, _ := a.st.remove(k)
	a.apply(c, ch, "")
}

func cutSource(src string) (string, bool) {
	if len(src) > len(SourcePrefix) && src[:len(SourcePrefix)] == SourcePrefix {
		return src[len(SourcePrefix):], true
	}
	return "", false
}

// reload is HUP (`supervisorctl signal HUP lan`, after editing the file by
// hand; `claude-pi pair --local --revoke` sends Revoke): clients.json is
// the truth again, and a client no
// longer in it is refused from its next request on, its prompts withdrawn
// and its long-polls answered with no decision.
func (a *Actor) reload(c actor.Context) {
	if a.st == nil {
		return
	}
	clients, dmg := a.loadClients()
	if dmg != nil {
		// Keep serving the clients we know rather than lock everyone out
		// over a file someone is editing by hand: the edit is set aside
		// and the known clients written back.
		a.h.Logger().Error("reload: keeping the paired clients and writing them back", "err", dmg)
		if err := a.writeClients(); err != nil {
			a.h.Logger().Error("reload: writing the paired clients back", "err", err)
		}
		return
	}
	ch, gone := a.st.reload(clients)
	a.publishPaired()
	a.apply(c, ch, "revoked")
	a.h.Logger().Info("reloaded the paired clients", "clients", len(clients), "revoked", gone)
}

func (a *Actor) saveClients() error {
	a.publishPaired()
	return a.writeClients()
}

func (a *Actor) publishPaired() {
	m := make(map[string]bool, len(a.st.clients))
	for _, c := range a.st.clients {
		m[c.Fingerprint] = true
	}
	a.paired.Store(&m)
}

// changed refreshes the status line and tells subscribers; every change
// of the state ends here.
func (a *Actor) changed() {
	a.describe()
	a.publish()
}

// state is what GetState answers and subscribers get.
func (a *Actor) state() State {
	if a.st == nil { // start failed: nothing is served
		return State{Device: a.o.Device}
	}
	st := a.st.view()
	st.Addr, st.Device = a.addr, a.o.Device
	if a.conns != nil {
		st.Conns, st.ConnsRefused = a.conns.count(), a.conns.refused.Load()
	}
	return st
}

func (a *Actor) publish() { a.subs.Publish(a.system.Root, a.state()) }

func (a *Actor) describe() {
	if a.o.Listen == "" || a.st == nil {
		return
	}
	v := a.st.view()
	d := fmt.Sprintf("%d paired client%s, %d pending", len(v.Clients), plural(len(v.Clients)), v.Pending)
	if v.Pairing != nil {
		d += ", pairing " + v.Pairing.Name + " code " + v.Pairing.Code
	}
	a.h.SetDescription(d)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
