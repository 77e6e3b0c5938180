package ble

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/asynkron/protoactor-go/actor"

	drv "github.com/claude-pi/claude-pi/drivers/ble"
	"github.com/claude-pi/claude-pi/protocols/nus"
	"github.com/claude-pi/claude-pi/supervisor"
)

// Config is what the ble actor needs besides its Peripheral.
type Config struct {
	// Name is the advertised name, shown in the status line; "" means
	// drivers/ble.DefaultName. The backend does the advertising.
	Name string
	// Security is the configured mode, reported in LinkState.Security.
	Security drv.Security
	// MaxLine is the RX line limit in bytes; 0 means nus.DefaultMaxLine.
	MaxLine int
	// Lines is the service that receives Line and LineError (the buddy
	// service; actors/buddy imports this package, so the tree names it).
	// It must Take every Line and subscribe to this service when it
	// starts: a fresh subscription tells the link that the Lines a dead
	// incarnation left untaken are gone (rxwindow.go).
	Lines string
}

// New returns the supervisor.Service constructor of the "ble" service. The
// Peripheral outlives incarnations: each one runs it afresh and stops it
// before the next starts.
func New(p drv.Peripheral, cfg Config) func(h *supervisor.Handle) actor.Actor {
	if cfg.Name == "" {
		cfg.Name = drv.DefaultName
	}
	// Subscriptions outlive incarnations: subscribers register once with
	// their ServicePID and must not miss events because this actor restarted.
	subs := &supervisor.Subscribers{}
	return func(h *supervisor.Handle) actor.Actor {
		return &Actor{h: h, p: p, cfg: cfg, subs: subs}
	}
}

// Actor is the ble service. It is exported only so its type shows in logs;
// use New.
type Actor struct {
	h    *supervisor.Handle
	p    drv.Peripheral
	cfg  Config
	asm  *nus.Assembler
	link LinkState
	subs *supervisor.Subscribers

	lines  *actor.PID
	win    *rxWindow
	cancel context.CancelFunc
	wg     sync.WaitGroup
	chunks [][]byte
	// resync: a line was cut short, so the desktop holds half a line; the
	// next line starts with "\n" to end it, or the two would be glued.
	resync bool
}

// event carries a driver event into the mailbox.
type event struct{ ev drv.Event }

// runEnded reports that Peripheral.Run returned.
type runEnded struct{ err error }

// Receive handles the package's messages and the actor lifecycle.
func (a *Actor) Receive(c actor.Context) {
	if m, ok := c.Message().(supervisor.Subscribe); ok && a.lines != nil && m.PID.Equal(a.lines) {
		// The Lines service (re)started: what it left untaken is gone
		// (and the LinkState it gets now closes the open slot).
		a.win.reset()
	}
	if a.subs.Receive(c, func() any { return a.link }) {
		return
	}
	switch m := c.Message().(type) {
	case *actor.Started:
		a.start(c)
	case *actor.Stopping:
		if a.cancel != nil {
			a.cancel()
		}
	case *actor.Stopped:
		// Run must be over before the next incarnation calls it again.
		a.wg.Wait()
	case event:
		a.handle(c, m.ev)
		a.win.handled()
	case runEnded:
		if m.err == nil {
			m.err = errors.New("peripheral stopped by itself")
		}
		a.h.Logger().Error("link failed", "err", m.err)
		a.h.Fail(fmt.Errorf("ble: %w", m.err))
	case Send:
		err := a.send(m.Line)
		if m.Receipt != nil {
			a.win.barrier() // no heartbeat read after this line may jump over the report
			r := Sent{Receipt: m.Receipt, OK: err == nil}
			if err != nil {
				r.Err = err.Error()
			}
			c.Send(a.lines, r)
		}
	case Unpair:
		a.forget("unpair")
	case ForgetBonds:
		c.Respond(a.forget("forget pairing (the Pi's buttons)"))
	case supervisor.Reload:
		a.h.Logger().Info("reload: nothing to re-read")
	}
}

// forget removes every bond and says how that went, in the log and in the
// answer the ui shows.
func (a *Actor) forget(why string) BondsForgotten {
	log := a.h.Logger().With("why", why)
	n, err := a.p.RemoveBonds()
	switch {
	case errors.Is(err, drv.ErrNoBonds):
		log.Info("no bonds to forget: the link cannot pair", "security", a.cfg.Security.String())
		return BondsForgotten{NoBonds: true}
	case err != nil:
		log.Error("removing bonds failed", "removed", n, "err", err)
		return BondsForgotten{Removed: n, Err: err.Error()}
	}
	log.Info("bonds removed: a desktop can pair afresh", "removed", n)
	return BondsForgotten{Removed: n}
}

func (a *Actor) start(c actor.Context) {
	a.asm = nus.NewAssembler(a.cfg.MaxLine)
	a.lines = supervisor.ServicePID(c.ActorSystem(), a.cfg.Lines)
	a.link = LinkState{MTU: drv.DefaultMTU, CanPair: a.p.CanPair(), Security: a.cfg.Security.String()}
	a.win = newRXWindow()
	a.h.SetDescription("starting " + a.cfg.Name)
	// A restarted link knows nothing yet: tell subscribers kept from the
	// previous incarnation, so no one trusts a connection that is gone.
	a.subs.Publish(c, a.link)

	ctx, cancel := context.WithCancel(context.Background())
	a.cancel = cancel
	system, self, win := c.ActorSystem(), c.Self(), a.win
	// Unbuffered, so once Run has returned every event it sent has been
	// taken by the forwarder, which sends it on before runEnded: no event
	// is reordered after the end of the run.
	events := make(chan drv.Event)
	ended := make(chan error, 1)
	a.wg.Add(2)
	go func() {
		defer a.wg.Done()
		ended <- a.p.Run(ctx, events)
	}()
	go func() {
		defer a.wg.Done()
		for {
			select {
			case ev := <-events:
				// Wait for room: this is where a central that writes
				// faster than buddy reads is held back.
				if !win.admit(ctx) {
					return
				}
				system.Root.Send(self, event{ev})
			case err := <-ended:
				if ctx.Err() == nil {
					system.Root.Send(self, runEnded{err})
				}
				return
			}
		}
	}()
}

func (a *Actor) handle(c actor.Context, ev drv.Event) {
	log := a.h.Logger()
	switch ev := ev.(type) {
	case drv.Received:
		a.feed(c, ev.Data)
		return
	case drv.Connected:
		a.asm.Reset()
		a.resync = false
		log.Info("central connected", "central", ev.Central)
	case drv.Disconnected:
		// A line cut by the lost link must not prefix the next one.
		a.asm.Reset()
		a.resync = false
		log.Info("central disconnected", "central", ev.Central)
	case drv.Advertising:
		if ev.On {
			log.Info("advertising", "name", a.cfg.Name)
		} else {
			log.Warn("not advertising", "err", ev.Err)
		}
	case drv.PairingDone:
		log.Info("pairing finished", "ok", ev.OK)
	case drv.Passkey:
		log.Info("pairing: passkey shown")
	}
	next := apply(a.link, ev)
	if next == a.link {
		return
	}
	a.link = next
	a.h.SetDescription(describe(a.link, a.cfg.Name))
	a.win.barrier() // no heartbeat may jump over this LinkState
	a.subs.Publish(c, a.link)
}

func (a *Actor) feed(c actor.Context, p []byte) {
	a.asm.Feed(p, func(line []byte, err error) {
		if err != nil {
			a.h.Logger().Warn("RX line dropped", "err", err)
			a.win.barrier()
			c.Send(a.lines, LineError{Err: err})
			return
		}
		if s := a.win.offer(line); s != nil {
			c.Send(a.lines, Line{s: s})
		}
	})
}

// send writes one line as notifications, in order, and never part of it
// followed by another line: after a failed chunk the rest is dropped and
// the next line first ends the cut one. It returns why the line did not
// go out whole, nil when it did.
func (a *Actor) send(line []byte) error { return a.sendWith(a.h.Logger(), line) }

func (a *Actor) sendWith(log *slog.Logger, line []byte) error {
	mtu := nus.ClampMTU(a.p.MTU())
	var err error
	a.chunks, err = nus.AppendChunks(a.chunks[:0], line, mtu)
	if err != nil {
		log.Error("refusing to send a malformed line", "err", err, "bytes", len(line))
		return fmt.Errorf("malformed line: %w", err)
	}
	chunks, prefixed := a.chunks, a.resync
	if prefixed {
		chunks = prefixNewline(line, mtu)
	}
	sent := 0
	var failed error
	for ; sent < len(chunks); sent++ {
		err := a.p.Notify(chunks[sent])
		if err == nil {
			continue
		}
		switch {
		case sent > 0:
			log.Warn("TX line cut: rest dropped", "sent_chunks", sent, "chunks", len(chunks), "err", err)
			failed = fmt.Errorf("line cut after %d of %d notifications: %w", sent, len(chunks), err)
		case errors.Is(err, drv.ErrNotSubscribed):
			log.Debug("TX line dropped: no central subscribed", "bytes", len(line))
			failed = err
		default:
			log.Warn("TX line dropped", "err", err, "bytes", len(line))
			failed = err
		}
		break
	}
	switch {
	case sent == len(chunks) && prefixed:
		a.resync = false // the prefixed line went out whole: in step again
	case sent > 0 && sent < len(chunks):
		a.resync = true
	}
	clear(a.chunks)
	return failed
}

// prefixNewline chunks "\n"+line: the leading newline ends whatever half
// line the desktop holds (it then drops that as bad JSON, or skips an
// empty line). nus.AppendChunks refuses inner newlines, so cut by hand.
func prefixNewline(line []byte, mtu int) [][]byte {
	buf := make([]byte, 0, len(line)+1)
	buf = append(append(buf, '\n'), line...)
	n := nus.MaxPayload(mtu)
	var out [][]byte
	for len(buf) > 0 {
		k := min(n, len(buf))
		out = append(out, buf[:k])
		buf = buf[k:]
	}
	return out
}
