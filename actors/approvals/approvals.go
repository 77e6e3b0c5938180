package approvals

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/supervisor"
)

// Option configures the actor made by New.
type Option func(*config)

type config struct {
	owners   map[string]string // source pattern → service name
	now      func() time.Time
	afterFor func(d time.Duration, f func()) (stop func() bool)
	busy     func(on bool)
}

// WithOwner routes decisions for source to the named service. A pattern
// ending in "*" matches every source with that prefix ("cli:*" → "lan");
// an exact match wins over a pattern. There is no default: the owners
// import this package, so the tree names them (a source without an owner
// has its decisions refused).
func WithOwner(source, service string) Option {
	return func(c *config) { c.owners[source] = service }
}

// WithClock replaces time.Now, so tests can move time by hand.
func WithClock(now func() time.Time) Option {
	return func(c *config) { c.now = now }
}

// WithAfterFunc replaces time.AfterFunc for the re-arm timer, so tests can
// fire it without sleeping. f must only be called after d, in any
// goroutine; stop cancels it.
func WithAfterFunc(after func(d time.Duration, f func()) (stop func() bool)) Option {
	return func(c *config) { c.afterFor = after }
}

// WithBusy calls busy(true) when the first prompt starts waiting and
// busy(false) when none is left (and when the actor stops, since its
// prompts go with it). The appliance keeps the updates' busy marker with
// it, so that neither an upgrade's restart nor a reboot cuts a prompt off.
func WithBusy(busy func(on bool)) Option {
	return func(c *config) { c.busy = busy }
}

// New returns the supervisor.Service constructor of the "approvals"
// service. Pending prompts are deliberately not kept across a restart: a
// decision must never outlive the actor that refused a second one. A
// restarted incarnation asks every owner for its sets again (Resend), so
// a prompt that arrived while approvals was down is shown once it is back.
func New(opts ...Option) func(h *supervisor.Handle) actor.Actor {
	cfg := config{
		owners: map[string]string{},
		now:    time.Now,
		afterFor: func(d time.Duration, f func()) func() bool {
			return time.AfterFunc(d, f).Stop
		},
	}
	for _, o := range opts {
		o(&cfg)
	}
	// Subscriptions outlive incarnations: subscribers register once with
	// their ServicePID and must not miss events because this actor restarted.
	subs := &supervisor.Subscribers{}
	// incarnations counts the actors made; only the first has no lost
	// sets to ask for (the owners start after it and send their own).
	incarnations := 0
	return func(h *supervisor.Handle) actor.Actor {
		incarnations++ // New runs on the supervisor's goroutine, one at a time
		return &Actor{h: h, cfg: cfg, st: newState(), subs: subs, restarted: incarnations > 1}
	}
}

// Actor is the approvals service. It is exported only so its type shows in
// logs; use New.
type Actor struct {
	h    *supervisor.Handle
	cfg  config
	st   *state
	subs *supervisor.Subscribers

	system    *actor.ActorSystem
	self      *actor.PID
	restarted bool // an earlier incarnation ran: ask the owners to Resend
	// The pending timer and its deadline; tick carries the deadline so a
	// tick from a timer already replaced is recognised and ignored.
	stopTimer func() bool
	deadline  time.Time
	stopped   bool
	busy      bool // what markBusy last told WithBusy's callback
	// queued holds the SetPrompts not applied yet, at most one per source
	// in arrival order, and flushQueued says a flush is in the mailbox.
	// A set is a source's complete snapshot, so a burst of them (a
	// heartbeat flood) is applied as its newest: one state change and
	// one round of events. Any other message applies the queue first, so
	// a Decide always sees every set that arrived before it.
	queued      []SetPrompts
	flushQueued bool
}

// tick is the re-arm (or hold) timer firing.
type tick struct{ deadline time.Time }

// flush is the actor's own message that applies the queued sets.
type flush struct{}

// Receive handles the messages of the package and the actor lifecycle.
func (a *Actor) Receive(c actor.Context) {
	if a.subs.Receive(c, func() any { return a.st.pending() }) {
		return
	}
	switch m := c.Message().(type) {
	case SetPrompts:
		a.queue(m)
		return
	case flush:
		a.flushQueued = false
	}
	a.applyQueued(c)
	switch m := c.Message().(type) {
	case *actor.Started:
		a.system, a.self = c.ActorSystem(), c.Self()
		a.describe()
		// A restart forgets every prompt; subscribers kept from the
		// previous incarnation must drop theirs too, until the owners
		// answer Resend with their sets (a set sent while no
		// incarnation ran went to dead letters).
		pending := a.st.pending()
		a.subs.Publish(c, pending)
		if a.restarted {
			a.askResend(c)
		}
	case *actor.Stopping:
		a.stopped = true
		a.cancelTimer()
		a.markBusy(false)
	case Decide:
		a.decide(c, m)
	case Delivery:
		a.delivery(c, m)
	case tick:
		if m.deadline.Equal(a.deadline) {
			a.deadline, a.stopTimer = time.Time{}, nil
		}
		a.deliver(c, a.st.tick(a.cfg.now()))
		a.describe()
	case GetPending:
		c.Respond(a.st.pending())
	case supervisor.Reload:
		a.h.Logger().Info("reload: nothing to re-read")
	}
}

// queue keeps m until the next flush, in place of the set of its source
// already queued, unless the link went up or down in between: approvals
// tells a link that dropped from one that stayed up.
func (a *Actor) queue(m SetPrompts) {
	for i := len(a.queued) - 1; i >= 0; i-- {
		if q := a.queued[i]; q.Source == m.Source {
			if q.LinkUp == m.LinkUp {
				a.queued[i] = m
				return
			}
			break
		}
	}
	a.queued = append(a.queued, m)
	if !a.flushQueued && a.self != nil {
		a.flushQueued = true
		a.system.Root.Send(a.self, flush{})
	}
}

func (a *Actor) applyQueued(c actor.Context) {
	q := a.queued
	a.queued = nil
	for _, m := range q {
		a.setPrompts(c, m)
	}
}

func (a *Actor) setPrompts(c actor.Context, m SetPrompts) {
	if m.Source == "" {
		a.h.Logger().Warn("SetPrompts without a source ignored", "prompts", len(m.Prompts))
		return
	}
	a.deliver(c, a.st.setPrompts(m, a.cfg.now()))
	a.describe()
}

func (a *Actor) decide(c actor.Context, m Decide) {
	err := a.checkOwner(m.Source)
	var out []any
	if err == nil {
		out, err = a.st.decide(m, a.cfg.now())
	}
	if err != nil {
		// Refusing is the safe default: the spec says a stale decision is
		// never sent, and the user can press again once the prompt shows.
		a.h.Logger().Warn("decision refused", "by", m.By, "decision", m.Decision.String(), "err", err)
		if c.Sender() != nil {
			c.Respond(DecideResult{Err: err.Error()})
		}
		return
	}
	a.h.Logger().Info("decision", "source", m.Source, "id", m.ID, "decision", m.Decision.String(), "by", m.By)
	a.deliver(c, out)
	if c.Sender() != nil {
		c.Respond(DecideResult{OK: true})
	}
	a.describe()
}

func (a *Actor) delivery(c actor.Context, m Delivery) {
	log := a.h.Logger().With("source", m.Source, "id", m.ID, "attempt", m.Attempt)
	if m.Sent {
		log.Debug("decision delivered")
	} else {
		log.Warn("decision not delivered: it is not credited to the Pi", "err", m.Err)
	}
	a.deliver(c, a.st.delivery(m))
	a.describe()
}

// askResend sends Resend to each owner service once.
func (a *Actor) askResend(c actor.Context) {
	owners := make([]string, 0, len(a.cfg.owners))
	for _, s := range a.cfg.owners {
		if !slices.Contains(owners, s) {
			owners = append(owners, s)
		}
	}
	slices.Sort(owners)
	a.h.Logger().Info("restarted: asking the sources for their prompts", "owners", strings.Join(owners, ","))
	for _, s := range owners {
		c.Send(supervisor.ServicePID(a.system, s), Resend{})
	}
}

// errNoOwner: a source nobody writes answers to.
var errNoOwner = errors.New("no service answers prompts of this source")

func (a *Actor) checkOwner(source string) error {
	if a.owner(source) == "" {
		return fmt.Errorf("%s: %w", source, errNoOwner)
	}
	return nil
}

// owner finds the service that sends decisions for source.
func (a *Actor) owner(source string) string {
	if s, ok := a.cfg.owners[source]; ok {
		return s
	}
	best, bestLen := "", -1
	for pat, s := range a.cfg.owners {
		if p, ok := strings.CutSuffix(pat, "*"); ok && strings.HasPrefix(source, p) && len(p) > bestLen {
			best, bestLen = s, len(p)
		}
	}
	return best
}

// deliver sends decisions to owners and everything else to subscribers,
// then re-plans the re-arm timer.
func (a *Actor) deliver(c actor.Context, out []any) {
	for _, msg := range out {
		if d, ok := msg.(*Decided); ok {
			c.Send(supervisor.ServicePID(a.system, a.owner(d.Source)), *d)
			continue
		}
		a.subs.Publish(c, msg)
	}
	a.plan()
}

// plan keeps one timer armed for the earliest re-arm or hold deadline.
func (a *Actor) plan() {
	next, ok := a.st.nextDeadline()
	if a.stopped || !ok || next.Equal(a.deadline) {
		if !ok {
			a.cancelTimer()
		}
		return
	}
	a.cancelTimer()
	a.deadline = next
	system, self := a.system, a.self
	a.stopTimer = a.cfg.afterFor(max(0, next.Sub(a.cfg.now())), func() {
		system.Root.Send(self, tick{deadline: next})
	})
}

func (a *Actor) cancelTimer() {
	if a.stopTimer != nil {
		a.stopTimer()
	}
	a.stopTimer, a.deadline = nil, time.Time{}
}

func (a *Actor) describe() {
	a.h.SetDescription(a.st.describe(a.cfg.now()))
	a.markBusy(len(a.st.pending().Prompts) > 0)
}

// markBusy tells WithBusy's callback when waiting prompts come or go.
func (a *Actor) markBusy(on bool) {
	if a.cfg.busy != nil && on != a.busy {
		a.busy = on
		a.cfg.busy(on)
	}
}
