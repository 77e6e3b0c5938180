// Package buddy is the "buddy" service: the Claude desktop session over the
// Hardware Buddy link (buddy-protocol spec §3-§9). It turns the lines the
// ble actor assembles into state (snapshot, owner, name, desktop clock),
// answers every command with exactly one ack, hands prompts to approvals
// and writes the decisions that come back, keeps the pet stats on disk and
// installs character packs pushed by the desktop.
//
// The logic lives in session, a pure state type tested on its own; the
// actor performs its effects: ble.Send, approvals.SetPrompts, atomic file
// writes.
package buddy

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/actors/approvals"
	bleactor "github.com/claude-pi/claude-pi/actors/ble"
	"github.com/claude-pi/claude-pi/actors/buddy/stats"
	drv "github.com/claude-pi/claude-pi/drivers/ble"
	"github.com/claude-pi/claude-pi/drivers/storage"
	"github.com/claude-pi/claude-pi/drivers/storage/statefile"
	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
	"github.com/claude-pi/claude-pi/protocols/buddy/folderpush"
	"github.com/claude-pi/claude-pi/supervisor"
)

// Files in the data directory.
const (
	StatsFile    = "stats.json"
	IdentityFile = "buddy.json"
)

// Config configures the actor. DataDir is required; the rest defaults.
type Config struct {
	// DataDir holds stats.json, buddy.json and packs/. It must exist.
	DataDir string
	// Name is the display name until the desktop sets one: the
	// advertised name. "" means drivers/ble.DefaultName.
	Name string
	// Now is the clock; nil means time.Now. Tests drive time with it.
	Now func() time.Time
	// TickEvery is the timer period for liveness, the push idle timeout
	// and stats saves; 0 means 1 s.
	TickEvery time.Duration
	// Push tunes the folder-push receiver; nil means its defaults.
	Push *folderpush.Opts
	// BLE and Approvals name the services to talk to; "" means
	// ble.ServiceName and approvals.ServiceName.
	BLE, Approvals string
	// Sys measures uptime and free memory for the status ack; nil
	// means the real machine. fsFree and fsTotal always come from
	// DataDir.
	Sys func() (up, heap uint64)
	// WriteFile replaces a kept file atomically; nil is the real disk.
	// Tests put a full disk here.
	WriteFile func(path string, data []byte, perm os.FileMode) error
}

// New returns the supervisor.Service constructor of the buddy actor.
func New(cfg Config) func(h *supervisor.Handle) actor.Actor {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.TickEvery <= 0 {
		cfg.TickEvery = time.Second
	}
	if cfg.Name == "" {
		cfg.Name = drv.DefaultName
	}
	if cfg.BLE == "" {
		cfg.BLE = bleactor.ServiceName
	}
	if cfg.Approvals == "" {
		cfg.Approvals = approvals.ServiceName
	}
	if cfg.Sys == nil {
		cfg.Sys = sysInfo
	}
	// Subscribers outlive an incarnation: they subscribed once with our
	// ServicePID and must keep getting State after a restart.
	subs := &supervisor.Subscribers{}
	return func(h *supervisor.Handle) actor.Actor { return &Actor{cfg: cfg, h: h, subs: subs} }
}

// Actor is the buddy service. It is exported only so that its type shows
// in logs and tests; use New.
type Actor struct {
	cfg Config
	h   *supervisor.Handle
	s   *session

	system               *actor.ActorSystem
	self, stable         *actor.PID // this incarnation; the ServicePID
	blePID, approvalsPID *actor.PID
	subs                 *supervisor.Subscribers // shared by every incarnation
	timer                *time.Timer
	lastDesc             string
	// prompts is the SetPrompts not yet sent to approvals and flushQueued
	// says a flush message is in the mailbox: heartbeats are snapshots,
	// so a burst of them sends approvals and the subscribers only the
	// newest, once the lines already queued are read (flushSoon).
	prompts     *approvals.SetPrompts
	flushQueued bool
}

// flush is the actor's own message that sends what a burst left queued.
type flush struct{}

// Receive handles the lifecycle, the link, decisions and queries.
func (a *Actor) Receive(c actor.Context) {
	switch c.Message().(type) {
	case *actor.Started:
		if a.start(c) {
			a.publish(c)
		}
		return
	case *actor.Stopping:
		a.stop()
		return
	}
	if a.s == nil {
		// Start failed and the supervisor is about to restart us.
		return
	}
	if a.subs.Receive(c, func() any { return a.s.state() }) {
		return
	}
	switch m := c.Message().(type) {
	case bleactor.Line:
		a.perform(a.s.line(m.Take(), a.cfg.Now()))
	case bleactor.LineError:
		a.h.Logger().Warn("over-long line dropped; the next line is unaffected", "err", m.Err)
	case bleactor.LinkState:
		a.perform(a.s.linkState(m))
	case approvals.Decided:
		a.perform(a.s.decided(m, a.cfg.Now()))
	case approvals.Resend:
		a.perform(a.s.resend())
	case bleactor.Sent:
		a.perform(a.s.sent(m, a.cfg.Now()))
	case SetSpecies:
		a.perform(a.s.chooseSpecies(m))
	case Nap:
		a.perform(a.s.nap(m, a.cfg.Now()))
	case tick:
		a.perform(a.s.tick(a.cfg.Now()))
		a.timer.Stop() // a tick sent by hand must not leave a second timer
		a.timer = time.AfterFunc(a.cfg.TickEvery, a.sendTick)
	case GetState:
		c.Respond(a.s.state())
	case supervisor.Reload:
		a.h.Logger().Info("reload: nothing to re-read")
	case flush:
		a.flushQueued = false
		a.sendPrompts()
		a.publish(c)
		return
	}
	if a.s.changed || a.prompts != nil {
		a.flushSoon()
	}
}

func (a *Actor) flushSoon() {
	if !a.flushQueued {
		a.flushQueued = true
		a.system.Root.Send(a.self, flush{})
	}
}

// queuePrompts keeps m as the set approvals gets at the next flush. A
// change of LinkUp is not folded into another set: approvals treats a
// link that went down and up again differently from one that stayed up.
func (a *Actor) queuePrompts(m approvals.SetPrompts) {
	if a.prompts != nil && a.prompts.LinkUp != m.LinkUp {
		a.sendPrompts()
	}
	a.prompts = &m
}

func (a *Actor) sendPrompts() {
	if a.prompts != nil {
		a.system.Root.Send(a.approvalsPID, *a.prompts)
		a.prompts = nil
	}
}

// publish sends State to subscribers and updates the status line when the
// last message changed anything.
func (a *Actor) publish(c actor.Context) {
	if a.s.changed {
		a.s.changed = false
		st := a.s.state()
		a.subs.Publish(c, st)
		if d := a.s.description(); d != a.lastDesc {
			a.lastDesc = d
			a.h.SetDescription(d)
		}
	}
}

// start reports whether the actor is ready; on false it has called Fail.
func (a *Actor) start(c actor.Context) bool {
	log := a.h.Logger()
	a.system, a.self = c.ActorSystem(), c.Self()
	a.stable = supervisor.ServicePID(a.system, a.h.Name())
	a.blePID = supervisor.ServicePID(a.system, a.cfg.BLE)
	a.approvalsPID = supervisor.ServicePID(a.system, a.cfg.Approvals)
	now := a.cfg.Now()

	packs, err := storage.OpenPackStore(a.cfg.DataDir)
	if err != nil {
		a.h.Fail(fmt.Errorf("opening the pack store: %w", err))
		return false
	}
	push, err := folderpush.New(packs, a.cfg.Push)
	if err != nil {
		a.h.Fail(err)
		return false
	}
	st := a.loadStats()
	tr, err := stats.NewTracker(st, now)
	if err != nil { // loadStats validated it; only a bug gets here
		a.h.Fail(err)
		return false
	}
	a.s = newSession(log, push, tr, a.reconcilePack(a.loadIdentity(), packs), a.cfg.Name)
	a.s.changed = true
	// Whatever the previous incarnation told approvals is stale: the
	// next heartbeat re-creates the prompt.
	c.Send(a.approvalsPID, approvals.SetPrompts{Source: Source, LinkUp: false})
	c.Send(a.blePID, supervisor.Subscribe{PID: a.stable})
	a.timer = time.AfterFunc(a.cfg.TickEvery, a.sendTick)
	log.Info("started", "data", a.cfg.DataDir, "name", a.s.name(), "stats", tr.String())
	return true
}

func (a *Actor) sendTick() { a.system.Root.Send(a.self, tick{}) }

func (a *Actor) stop() {
	if a.timer != nil {
		a.timer.Stop()
	}
	if a.s == nil {
		return
	}
	if a.s.push.Active() {
		a.s.abortPush("shutting down")
	}
	// Persist on shutdown as well as on the rate limit (spec §9.3).
	a.saveStats(a.s.stats.Stats(), a.cfg.Now())
	a.system.Root.Send(a.blePID, supervisor.Unsubscribe{PID: a.stable})
}

func (a *Actor) perform(effs []effect) {
	for _, e := range effs {
		switch e := e.(type) {
		case sendLine:
			a.system.Root.Send(a.blePID, bleactor.Send{Line: e.line})
		case sendDecision:
			a.system.Root.Send(a.blePID, bleactor.Send{Line: pbuddy.EncodePermission(e.d.ID, wireDecision(e.d.Decision)), Receipt: e.d})
		case report:
			// At once, ahead of any set still queued: a set built from a
			// heartbeat read before the line was written must not be
			// judged without it (approvals' resolved).
			a.system.Root.Send(a.approvalsPID, e.msg)
		case sendStatus:
			a.system.Root.Send(a.blePID, bleactor.Send{Line: pbuddy.EncodeStatus(a.s.statusAck(a.sys()))})
		case setPrompts:
			a.queuePrompts(e.msg)
		case unpairBonds:
			a.system.Root.Send(a.blePID, bleactor.Unpair{})
		case saveStats:
			a.saveStats(e.s, a.cfg.Now())
		case saveIdentity:
			a.perform(a.s.identitySaved(e, a.saveIdentity(e.id)))
		case publishTurn:
			a.subs.Publish(a.system.Root, Turn{Event: e.ev})
		}
	}
}

func (a *Actor) sys() pbuddy.System {
	up, heap := a.cfg.Sys()
	free, total, err := storage.FSInfo(a.cfg.DataDir)
	if err != nil {
		a.h.Logger().Warn("status: no filesystem numbers", "err", err)
	}
	return pbuddy.System{Up: up, Heap: heap, FSFree: free, FSTotal: total}
}

// maxFile bounds what is read of stats.json and buddy.json: each is a
// few hundred bytes.
const maxFile = 16 << 10

// files is the data directory through the state-file helper.
func (a *Actor) files() statefile.Dir {
	return statefile.Dir{Path: a.cfg.DataDir, Write: a.cfg.WriteFile, Now: a.cfg.Now}
}

func (a *Actor) saveStats(st stats.Stats, now time.Time) {
	b, err := st.Encode()
	if err == nil {
		err = a.files().Save(StatsFile, b, 0o644)
	}
	if err != nil {
		// Not marked saved, so the next SaveDue retries.
		a.h.Logger().Error("saving stats failed; retried at the next save", "err", err)
		return
	}
	a.s.stats.Saved(now)
}

// saveIdentity writes buddy.json; its error decides the ack of a name,
// owner or species command (session.identitySaved).
func (a *Actor) saveIdentity(id identity) error {
	b, _ := json.Marshal(id) // strings and an int: cannot fail
	if err := a.files().Save(IdentityFile, append(b, '\n'), 0o644); err != nil {
		a.h.Logger().Error("saving owner, name and character failed", "err", err)
		return err
	}
	return nil
}

// loadStats reads stats.json; a missing file starts fresh, a damaged one
// is set aside (statefile) and stats start fresh.
func (a *Actor) loadStats() stats.Stats {
	fresh := stats.Stats{Version: stats.FormatVersion}
	var st stats.Stats
	found, dmg := a.files().Load(StatsFile, maxFile, func(b []byte) (err error) {
		st, err = stats.Decode(b)
		return err
	})
	if !found || a.damaged(dmg) {
		return fresh
	}
	return st
}

// loadIdentity reads buddy.json; a missing or damaged file (set aside) is
// the defaults: no owner, the advertised name, the default character.
func (a *Actor) loadIdentity() identity {
	id, _, dmg := statefile.LoadJSON(a.files(), IdentityFile, maxFile, identity{})
	a.damaged(dmg)
	id.Owner, id.Name = pbuddy.SanitizeName(id.Owner), pbuddy.SanitizeName(id.Name)
	return id
}

// reconcilePack makes buddy.json agree with the pack on disk. A pack is
// swapped in before buddy.json records its name, so a kill between the
// two left the old name, or none after a first push, and species 255 was
// refused with a pack installed. The pack names itself
// (PackStore.InstalledName); a pack from before packs did keeps the name
// buddy.json gives it.
func (a *Actor) reconcilePack(id identity, packs *storage.PackStore) identity {
	log := a.h.Logger()
	name, labelled, installed := packs.InstalledName()
	was := id
	switch {
	case installed && id.Pack != name && (labelled || id.Pack == ""):
		// What a completed install would have recorded: the new pack,
		// shown by the default choice.
		log.Warn(IdentityFile+" did not name the installed pack; following the disk", "recorded", id.Pack, "installed", name)
		id.Pack, id.Species = name, nil
	case !installed && id.Pack != "":
		log.Warn(IdentityFile+" names a pack but none is installed; following the disk", "recorded", id.Pack)
		id.Pack = ""
	}
	if sp := id.Species; sp != nil && speciesOK(int64(*sp), id.Pack) != nil {
		log.Warn(IdentityFile+": species not drawable; showing the default character", "species", *sp, "err", speciesOK(int64(*sp), id.Pack))
		id.Species = nil
	}
	if id.Pack != was.Pack || (id.Species == nil) != (was.Species == nil) {
		// A failed save is logged; the next start reconciles again.
		_ = a.saveIdentity(id)
	}
	return id
}

// damaged logs a file set aside; it reports whether there was one.
func (a *Actor) damaged(dmg *statefile.Damage) bool {
	if dmg == nil {
		return false
	}
	a.h.Logger().Error("a kept file was damaged; starting fresh", "file", dmg.File, "reason", string(dmg.Reason), "err", dmg)
	return true
}

// wireDecision is the edge where approvals' decision becomes the BLE
// permission line's (buddy spec §7.1): the only place the two meet.
func wireDecision(d approvals.Decision) pbuddy.Decision {
	if d.Allows() {
		return pbuddy.Once
	}
	return pbuddy.Deny
}
