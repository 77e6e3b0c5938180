package buddy

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"syscall"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
	bleactor "github.com/claude-pi/claude-pi/actors/ble"
	"github.com/claude-pi/claude-pi/actors/buddy/stats"
	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
	"github.com/claude-pi/claude-pi/protocols/buddy/folderpush"
)

// LinkTimeout is how long the desktop may stay silent before it counts as
// gone (spec §5.4). Its keepalive comes every 10-11 s.
const LinkTimeout = 30 * time.Second

// ReconnectHold is how long the desktop's prompt stays on screen, marked
// reconnecting and not answerable, after a BLE disconnect (spec §5.4): the
// desktop reconnects within seconds but sends its first heartbeat only
// when its 10 s keepalive falls due, 8-10 s later (§2.3).
const ReconnectHold = 15 * time.Second

// noClaude is the snapshot's msg after link loss, as on the reference.
const noClaude = "No Claude connected"

// Effects are what the session asks the actor to do, in order.
type effect interface{ isEffect() }

type (
	sendLine     struct{ line []byte }              // ble.Send
	sendDecision struct{ d approvals.Decided }      // ble.Send of its permission line, with a receipt
	report       struct{ msg approvals.Delivery }   // to approvals at once
	sendStatus   struct{}                           // build the status ack with live system numbers
	setPrompts   struct{ msg approvals.SetPrompts } // to approvals
	unpairBonds  struct{}                           // ble.Unpair, after the ack
	saveStats    struct{ s stats.Stats }            // persist atomically, then statsSaved
	saveIdentity struct {                           // persist owner/name/pack/species, then identitySaved
		id identity
		// ack is the command whose ok waits for this save, "" for none:
		// the desktop is told ok only for what buddy.json kept.
		ack string
		// prev is what a failed save goes back to.
		prev identity
	}
	publishTurn struct{ ev pbuddy.TurnEvent } // to subscribers, as Turn
)

func (sendLine) isEffect()     {}
func (sendDecision) isEffect() {}
func (report) isEffect()       {}
func (sendStatus) isEffect()   {}
func (setPrompts) isEffect()   {}
func (unpairBonds) isEffect()  {}
func (saveStats) isEffect()    {}
func (saveIdentity) isEffect() {}
func (publishTurn) isEffect()  {}

// identity is what the desktop told us to remember.
type identity struct {
	Owner string `json:"owner"`
	Name  string `json:"name"`
	Pack  string `json:"pack"`
	// Species is the chosen character, nil when none was (SpeciesDefault).
	Species *int `json:"species,omitempty"`
}

// session is the desktop session's pure state: decoded lines, link states,
// decisions and ticks in, effects out. The push receiver writes through its
// FS (a real PackStore in the actor, memfs in tests); nothing else here
// touches the outside world.
type session struct {
	log         *slog.Logger
	push        *folderpush.Receiver
	stats       *stats.Tracker
	id          identity
	defaultName string

	alive    bool // a valid line within LinkTimeout
	lastLine time.Time
	link     bleactor.LinkState
	snap     *pbuddy.Heartbeat // accumulated; nil before the first heartbeat
	arrived  time.Time         // when snap.Prompt first appeared
	// held is the prompt pending when the BLE link dropped and heldArrived
	// its arrival: a heartbeat after the reconnect that carries the same id
	// is the same prompt, not a new one.
	held        string
	heldArrived time.Time
	clock       *DesktopClock
	// changed is set when State would differ; the actor publishes and
	// clears it.
	changed    bool
	pushBucket int64 // Received / progressStep at the last publish
}

// progressStep rate-limits State publishes during a push: one per 8 KiB
// instead of one per 256-byte chunk.
const progressStep = 8 << 10

func newSession(log *slog.Logger, push *folderpush.Receiver, tr *stats.Tracker, id identity, defaultName string) *session {
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &session{log: log, push: push, stats: tr, id: id, defaultName: defaultName}
}

// line handles one assembled line (without '\n') received at now.
func (s *session) line(data []byte, now time.Time) []effect {
	msg, err := pbuddy.Decode(data)
	var cerr *pbuddy.CommandError
	var ferr *pbuddy.FieldError
	switch {
	case errors.As(err, &cerr):
		s.touch(now)
		s.log.Warn("command with bad arguments", "cmd", cerr.Cmd, "err", cerr)
		// A push command the receiver never sees still ends the push,
		// as any rejection inside a transfer does.
		if isPushCmd(cerr.Cmd) && s.push.Active() {
			s.abortPush("bad " + cerr.Cmd)
		}
		return []effect{sendLine{cerr.Ack()}}
	case errors.As(err, &ferr):
		// Valid JSON, unusable content: the link is alive, nothing changes.
		s.touch(now)
		s.log.Warn("line dropped", "err", ferr)
		return nil
	case err != nil:
		s.log.Debug("line dropped", "err", err, "len", len(data))
		return nil
	}
	s.touch(now)
	switch m := msg.(type) {
	case pbuddy.Heartbeat:
		return s.heartbeat(m, now)
	case pbuddy.Command:
		return s.command(m, now)
	case pbuddy.TimeSync:
		s.clock = &DesktopClock{Epoch: m.Epoch, Offset: m.Offset, Received: now}
		s.changed = true
	case pbuddy.TurnEvent:
		// A turn event must never touch the prompt (spec §12.1); it only
		// goes on to whoever speaks or shows the transcript.
		return []effect{publishTurn{m}}
	case pbuddy.OtherEvent, pbuddy.Keepalive, pbuddy.Ack:
		// Liveness only; the desktop never sends acks.
	}
	return nil
}

func (s *session) touch(now time.Time) {
	s.lastLine = now
	if !s.alive {
		s.alive, s.changed = true, true
		// No credit for tokens produced while we were away (spec §9.3).
		s.stats.Reconnect()
		s.log.Info("desktop link up")
	}
}

func (s *session) heartbeat(h pbuddy.Heartbeat, now time.Time) []effect {
	for _, fe := range h.Ignored {
		s.log.Warn("heartbeat field ignored, keeping its previous value", "err", fe)
	}
	if s.snap == nil {
		s.snap = &pbuddy.Heartbeat{}
	}
	p := s.snap
	if h.Present.Has(pbuddy.FieldTotal) {
		p.Total = h.Total
	}
	if h.Present.Has(pbuddy.FieldRunning) {
		p.Running = h.Running
	}
	if h.Present.Has(pbuddy.FieldWaiting) {
		p.Waiting = h.Waiting
	}
	if h.Present.Has(pbuddy.FieldMsg) {
		p.Msg = h.Msg
	}
	if h.Present.Has(pbuddy.FieldEntries) {
		p.Entries = h.Entries
	}
	if h.Present.Has(pbuddy.FieldTokens) {
		p.Tokens = h.Tokens
		if s.stats.Tokens(h.Tokens) {
			s.log.Info("level up", "level", s.stats.Level())
		}
	}
	if h.Present.Has(pbuddy.FieldTokensToday) {
		p.TokensToday = h.TokensToday
	}
	p.Present |= h.Present &^ pbuddy.FieldCompleted
	// Complete state: no prompt key means no prompt (spec §5.1).
	switch {
	case h.Prompt == nil:
		p.Prompt = nil
	case p.Prompt == nil || p.Prompt.ID != h.Prompt.ID:
		pr := *h.Prompt
		p.Prompt, s.arrived = &pr, now
		if pr.ID == s.held {
			s.arrived = s.heldArrived
		}
	default:
		p.Prompt.Tool, p.Prompt.Hint = h.Prompt.Tool, h.Prompt.Hint
	}
	s.held, s.heldArrived = "", time.Time{} // this heartbeat confirmed or dropped it
	s.changed = true
	return s.maybeSave([]effect{setPrompts{s.promptSet()}}, now)
}

func isPushCmd(cmd string) bool {
	switch cmd {
	case pbuddy.CmdCharBegin, pbuddy.CmdFile, pbuddy.CmdChunk, pbuddy.CmdFileEnd, pbuddy.CmdCharEnd:
		return true
	}
	return false
}

func (s *session) command(c pbuddy.Command, now time.Time) []effect {
	switch c := c.(type) {
	case pbuddy.Owner:
		return s.setIdentity(pbuddy.CmdOwner, c.Name, &s.id.Owner)
	case pbuddy.SetName:
		return s.setIdentity(pbuddy.CmdName, c.Name, &s.id.Name)
	case pbuddy.Status:
		return []effect{sendStatus{}}
	case pbuddy.Unpair:
		// Ack first: removing the bond can drop the link (spec §4.4).
		s.log.Info("unpair requested: forgetting all bonds")
		return []effect{sendLine{pbuddy.AckOK(pbuddy.CmdUnpair, 0)}, unpairBonds{}}
	case pbuddy.CharBegin:
		return s.pushCmd(folderpush.Input{Cmd: folderpush.CmdBegin, Name: c.Name, Total: c.Total}, now)
	case pbuddy.File:
		return s.pushCmd(folderpush.Input{Cmd: folderpush.CmdFile, Path: c.Path, Size: c.Size}, now)
	case pbuddy.Chunk:
		return s.pushCmd(folderpush.Input{Cmd: folderpush.CmdChunk, Data: c.D}, now)
	case pbuddy.FileEnd:
		return s.pushCmd(folderpush.Input{Cmd: folderpush.CmdFileEnd}, now)
	case pbuddy.CharEnd:
		return s.pushCmd(folderpush.Input{Cmd: folderpush.CmdEnd}, now)
	case pbuddy.Species:
		if err := s.validSpecies(c.Idx); err != nil {
			s.log.Info("species refused", "idx", c.Idx, "err", err)
			return []effect{sendLine{pbuddy.AckFail(pbuddy.CmdSpecies, 0, err.Error())}}
		}
		if effs := s.setSpecies(int(c.Idx), pbuddy.CmdSpecies); effs != nil {
			return effs // acked once saved (identitySaved)
		}
		return []effect{sendLine{pbuddy.AckOK(pbuddy.CmdSpecies, 0)}}
	}
	// Unknown commands, and permission, which only we may send (spec
	// §6.1 rule 6).
	s.log.Info("unknown command acked as such", "cmd", c.CmdName())
	return []effect{sendLine{pbuddy.AckFail(c.CmdName(), 0, "unknown command")}}
}

// validSpecies checks a species index against what the screen can draw:
// a built-in, or the pack only when one is installed.
func (s *session) validSpecies(idx int64) error { return speciesOK(idx, s.id.Pack) }

func speciesOK(idx int64, pack string) error {
	switch {
	case idx >= 0 && idx < BuiltInSpecies:
		return nil
	case idx == SpeciesPack && pack != "":
		return nil
	case idx == SpeciesPack:
		return errors.New("no character pack installed")
	}
	return fmt.Errorf("unknown species: want 0-%d, or %d for the installed pack", BuiltInSpecies-1, SpeciesPack)
}

// setSpecies records a valid choice; persisting only a change, and
// acking ack (when set) once the save is done.
func (s *session) setSpecies(idx int, ack string) []effect {
	if s.id.Species != nil && *s.id.Species == idx {
		return nil
	}
	prev := s.id
	s.id.Species, s.changed = &idx, true
	return []effect{saveIdentity{id: s.id, ack: ack, prev: prev}}
}

// chooseSpecies is the screen's SetSpecies.
func (s *session) chooseSpecies(m SetSpecies) []effect {
	if err := s.validSpecies(int64(m.Idx)); err != nil {
		s.log.Warn("species from the screen ignored", "idx", m.Idx, "err", err)
		return nil
	}
	return s.setSpecies(m.Idx, "")
}

// nap credits a rest of the screen (Nap) to the stats.
func (s *session) nap(m Nap, now time.Time) []effect {
	if !m.End.After(m.Start) {
		return nil
	}
	s.stats.Nap(m.Start, m.End)
	s.changed = true
	return s.maybeSave(nil, now)
}

func (s *session) setIdentity(cmd, raw string, field *string) []effect {
	name := pbuddy.SanitizeName(raw)
	if name == "" {
		return []effect{sendLine{pbuddy.AckFail(cmd, 0, "invalid name")}}
	}
	if *field == name {
		return []effect{sendLine{pbuddy.AckOK(cmd, 0)}}
	}
	prev := s.id
	*field, s.changed = name, true
	return []effect{saveIdentity{id: s.id, ack: cmd, prev: prev}}
}

// identitySaved is the outcome of a saveIdentity: the command it carries
// is acked ok only when buddy.json kept the change. A failed save (a full
// disk) takes the change back and acks the failure, so the desktop may
// send it again and what the screen shows is what a restart keeps. A
// save without a command (a pack installed, the screen's choice) only
// logs its failure: the pack is reconciled from the disk at start.
func (s *session) identitySaved(e saveIdentity, err error) []effect {
	if e.ack == "" {
		return nil
	}
	if err == nil {
		return []effect{sendLine{pbuddy.AckOK(e.ack, 0)}}
	}
	s.id, s.changed = e.prev, true
	why := "not saved: storage error"
	if errors.Is(err, syscall.ENOSPC) {
		why = "not saved: storage full"
	}
	return []effect{sendLine{pbuddy.AckFail(e.ack, 0, why)}}
}

func (s *session) pushCmd(in folderpush.Input, now time.Time) []effect {
	res := s.push.Apply(in, now)
	var line []byte
	if res.OK {
		line = pbuddy.AckOK(res.Ack, res.N)
	} else {
		line = pbuddy.AckFail(res.Ack, res.N, res.Err)
		s.log.Warn("push command refused", "cmd", res.Ack, "error", res.Err, "cause", res.Cause)
	}
	effs := []effect{sendLine{line}}
	bucket := s.push.Progress().Received / progressStep
	if in.Cmd != folderpush.CmdChunk || !res.OK || bucket != s.pushBucket {
		s.changed, s.pushBucket = true, bucket
	}
	if res.Installed != nil {
		s.log.Info("character pack installed", "pack", res.Pack)
		// A pack just pushed is what the user wants to see: back to the
		// default choice, which shows it.
		s.id.Pack, s.id.Species = res.Pack, nil
		effs = append(effs, saveIdentity{id: s.id})
	}
	return effs
}

func (s *session) abortPush(why string) {
	if err := s.push.Abort(); err != nil {
		s.log.Warn("discarding push staging failed; the next push or boot removes it", "err", err)
	}
	s.changed = true
	s.log.Info("push abandoned", "why", why)
}

// linkState handles a ble.LinkState.
func (s *session) linkState(ls bleactor.LinkState) []effect {
	was := s.link
	s.link, s.changed = ls, true
	if was.Connected && !ls.Connected {
		return s.lose("BLE disconnect", ReconnectHold)
	}
	return nil
}

// tick runs the timers: liveness, push idle, stats save.
func (s *session) tick(now time.Time) []effect {
	var effs []effect
	if s.alive && now.Sub(s.lastLine) >= LinkTimeout {
		// No hold: 30 s of silence is a desktop gone, not one
		// reconnecting (spec §5.4 clears the prompt).
		effs = s.lose(fmt.Sprintf("no line for %v", LinkTimeout), 0)
	}
	abandoned, err := s.push.Tick(now)
	if abandoned {
		s.changed = true
		s.log.Info("push abandoned after idle timeout", "err", err)
	}
	return s.maybeSave(effs, now)
}

// lose ends the desktop session: the counts drop to zero, the transcript
// stays, and the prompt goes (with its "sent" state, which approvals owns):
// at once when hold is zero, else approvals keeps it as reconnecting for
// hold, until a heartbeat confirms or drops it.
func (s *session) lose(why string, hold time.Duration) []effect {
	if s.push.Active() {
		s.abortPush(why)
	}
	if !s.alive {
		return nil
	}
	s.alive, s.changed = false, true
	s.stats.Reconnect()
	s.held, s.heldArrived = "", time.Time{}
	if s.snap != nil {
		if s.snap.Prompt != nil && hold > 0 {
			s.held, s.heldArrived = s.snap.Prompt.ID, s.arrived
		}
		s.snap.Total, s.snap.Running, s.snap.Waiting = 0, 0, 0
		s.snap.Msg, s.snap.Prompt = noClaude, nil
	}
	s.log.Info("desktop link lost", "why", why, "prompt_held", hold)
	return []effect{setPrompts{approvals.SetPrompts{Source: Source, LinkUp: false, Hold: hold}}}
}

// resend is the desktop's current prompt set again, for an approvals that
// restarted and lost it. While the link is down there is nothing to
// confirm: the next heartbeat brings the prompt back, if it is still there.
func (s *session) resend() []effect {
	if !s.alive || s.snap == nil {
		return nil
	}
	return []effect{setPrompts{s.promptSet()}}
}

// promptSet is the desktop's complete prompt set as the last heartbeat
// left it: no prompt key means no prompt (spec §5.1).
func (s *session) promptSet() approvals.SetPrompts {
	msg := approvals.SetPrompts{Source: Source, LinkUp: true}
	if p := s.snap.Prompt; p != nil {
		msg.Prompts = []approvals.Prompt{{Source: Source, ID: p.ID, Tool: p.Tool, Hint: p.Hint, Arrived: s.arrived}}
	}
	return msg
}

// decided turns a decision taken on the appliance into a permission line.
func (s *session) decided(d approvals.Decided, now time.Time) []effect {
	if d.Source != Source {
		s.log.Warn("decision for another source ignored", "source", d.Source)
		return nil
	}
	if !s.alive || !s.link.Connected {
		// A write into a dead link would be lost silently (spec
		// §12.10). approvals refuses decisions for a prompt held across a
		// disconnect, so this is one already on its way when the link
		// dropped. The report tells approvals it never left: it re-arms
		// the prompt once a heartbeat after the reconnect still lists it
		// (at once, if no hold applies), and does not credit it to the
		// Pi if the desktop answered it meanwhile.
		s.log.Info("decision dropped: no desktop connected", "decision", d.Decision.String(), "by", d.By)
		return []effect{report{approvals.Delivery{Source: d.Source, ID: d.ID, Attempt: d.Attempt,
			Err: "no desktop connected: the permission line was not written"}}}
	}
	s.log.Info("permission line to the desktop", "decision", d.Decision.String(), "by", d.By)
	return []effect{sendDecision{d}}
}

// sent relays the link's receipt for a permission line to approvals: a
// line the link dropped (no central subscribed, a failed write) must not
// make the screen say "approved here" when the desktop then drops the
// prompt because the user answered it there. Only a line that went out
// counts in the stats (the status ack's appr and deny).
func (s *session) sent(m bleactor.Sent, now time.Time) []effect {
	d, ok := m.Receipt.(approvals.Decided)
	if !ok {
		s.log.Warn("receipt for no decision ignored", "receipt", fmt.Sprintf("%T", m.Receipt))
		return nil
	}
	out := []effect{report{approvals.Delivery{Source: d.Source, ID: d.ID, Attempt: d.Attempt, Sent: m.OK, Err: m.Err}}}
	if !m.OK {
		s.log.Warn("permission line dropped by the link", "decision", d.Decision.String(), "by", d.By, "err", m.Err)
		return out
	}
	arrived := now
	if s.snap != nil && s.snap.Prompt != nil && s.snap.Prompt.ID == d.ID {
		arrived = s.arrived
	}
	if d.Decision.Allows() {
		s.stats.Approve(d.ID, arrived, now)
	} else {
		s.stats.Deny(d.ID)
	}
	s.changed = true
	return s.maybeSave(out, now)
}

func (s *session) maybeSave(effs []effect, now time.Time) []effect {
	if s.stats.SaveDue(now) {
		effs = append(effs, saveStats{s.stats.Stats()})
	}
	return effs
}

func (s *session) name() string {
	if s.id.Name != "" {
		return s.id.Name
	}
	return s.defaultName
}

// statusAck fills the strict status ack (spec §7.3); sys carries the live
// numbers the actor measures.
func (s *session) statusAck(sys pbuddy.System) pbuddy.StatusAck {
	r := s.stats.Report()
	return pbuddy.StatusAck{
		Name: s.name(), Owner: s.id.Owner, Sec: s.link.Secured,
		// Mains powered: full, nominal supply, not charging, USB present.
		Bat:   pbuddy.Battery{Pct: 100, MilliVolt: 5000, MilliAmp: 0, USB: true},
		Sys:   sys,
		Stats: pbuddy.Stats{Appr: uint64(r.Appr), Deny: uint64(r.Deny), Vel: uint64(r.Vel), Nap: r.Nap, Lvl: uint64(r.Lvl)},
	}
}

// state is the copy the actor publishes.
func (s *session) state() State {
	st := State{
		Connected: s.alive, Owner: s.id.Owner, Name: s.name(), Pack: s.id.Pack,
		Secured: s.link.Secured,
		Stats: StatsView{Report: s.stats.Report(), Tokens: s.stats.Stats().Tokens, Fed: s.stats.Fed(), Mood: s.stats.Mood(),
			Energy: s.stats.EnergyState()},
	}
	if s.snap != nil {
		h := *s.snap
		h.Entries = append([]string(nil), s.snap.Entries...)
		if s.snap.Prompt != nil {
			p := *s.snap.Prompt
			h.Prompt = &p
			st.PromptArrived = s.arrived
		}
		h.Ignored = nil
		st.Snapshot = &h
	}
	if p := s.push.Progress(); p.Active {
		st.Push = &p
	}
	if s.clock != nil {
		c := *s.clock
		st.Desktop = &c
	}
	if sp := s.id.Species; sp != nil {
		st.Species, st.SpeciesChosen = *sp, true
	}
	return st
}

// description is the supervisorctl status line.
func (s *session) description() string {
	if !s.alive {
		if s.link.Connected {
			return "no desktop connected · central " + s.link.Central + " silent"
		}
		return "no desktop connected"
	}
	d := "desktop connected"
	if s.id.Owner != "" {
		d += " · owner " + s.id.Owner
	}
	if s.snap != nil {
		noun := "sessions"
		if s.snap.Total == 1 {
			noun = "session"
		}
		d += fmt.Sprintf(" · %d %s, %d running", s.snap.Total, noun, s.snap.Running)
		if s.snap.Prompt != nil {
			d += " · prompt " + s.snap.Prompt.Tool
		}
	}
	if p := s.push.Progress(); p.Active {
		d += " · receiving pack " + p.Name
		if p.Total > 0 {
			d += fmt.Sprintf(" %d%%", p.Received*100/p.Total)
		}
	}
	return d
}
