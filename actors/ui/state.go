package ui

import (
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
	bleactor "github.com/claude-pi/claude-pi/actors/ble"
	buddyactor "github.com/claude-pi/claude-pi/actors/buddy"
	"github.com/claude-pi/claude-pi/actors/buddy/stats"
	"github.com/claude-pi/claude-pi/actors/dock"
	"github.com/claude-pi/claude-pi/actors/lan"
	"github.com/claude-pi/claude-pi/actors/ui/prefs"
	"github.com/claude-pi/claude-pi/drivers/audio"
	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
)

// By is how the Pi's own buttons sign their decisions.
const By = pbuddy.DeviceName

// Role is what a button does. The names are those of boards.Role, so a
// board profile converts with ui.Role(b.Role).
type Role string

// The roles.
const (
	RoleApprove Role = "approve" // answers the shown prompt "once"
	RoleDeny    Role = "deny"    // answers the shown prompt "deny"
	RoleNext    Role = "next"    // next page of the shown prompt, else the next info page
	RoleBack    Role = "back"    // previous page of the shown prompt, else the previous info page, then home
)

// DefaultRoles are the sim board's: A and B as on every HAT, X and Y for
// the pages.
var DefaultRoles = map[string]Role{"A": RoleApprove, "B": RoleDeny, "X": RoleNext, "Y": RoleBack}

// Screen names what the panel shows.
type Screen string

// The screens, in the order they override one another: off, then the
// Bluetooth pairing code, then a prompt, then a computer's LAN pairing,
// then a new CoreS3 asking to be accepted (ScreenDock), then forgetting
// the Bluetooth pairing (ScreenForget, forget.go), then a pack install,
// then the settings (pages.go), then the info, stats and clock pages, then
// home. A LAN pairing and a new dock wait behind every pending prompt:
// anyone on the network can ask to pair, and anyone at the Pi's USB port
// can plug a board in, so neither may take the decision buttons away from
// a prompt the user is about to answer.
const (
	ScreenOff      Screen = "off"
	ScreenPasskey  Screen = "passkey"
	ScreenPairing  Screen = "pairing"
	ScreenDock     Screen = "dock"
	ScreenApproval Screen = "approval"
	ScreenPack     Screen = "pack"
	ScreenInfo     Screen = "info"
	ScreenHome     Screen = "home"
)

// infoPages is how many pages next/back cycle through after home before
// the clock (Links and Stats); the LAN adds its own page of paired
// computers, the update status (Config.Updates) a System page after it,
// and the clock (pages.go) is always the last.
const infoPages = 2

// pages is the number of pages after home on this appliance.
func (s *state) pages() int {
	n := infoPages + 1
	if s.lanOn {
		n++
	}
	if s.updatesOn {
		n++
	}
	return n
}

// computersPage is the page of the paired computers, 0 without a LAN.
func (s *state) computersPage() int {
	if s.lanOn {
		return infoPages + 1
	}
	return 0
}

// systemPage is the page of the Debian updates (system.go), just before
// the clock; 0 when the appliance does not read them.
func (s *state) systemPage() int {
	if s.updatesOn {
		return s.clockPage() - 1
	}
	return 0
}

// state is what the screen knows, fed by the approvals, buddy, ble and
// dock services and the buttons. It is pure: no I/O, time comes in.
type state struct {
	prompts []approvals.PromptView     // arrival order, as approvals keeps them
	sending map[key]approvals.Decision // pressed here, PromptDecided not back yet
	link    *bleactor.LinkState
	buddy   *buddyactor.State
	dock    *dock.State
	// updatesOn: Config.Updates is set, and the System page shows.
	updatesOn bool
	// lan is the last lan.State published, nil before one or without a LAN
	// service (lanOn false). pairAccepted and pairRefused hold the code
	// of a pairing answered here until the lan state catches up.
	lan                       *lan.State
	lanOn                     bool
	pairAccepted, pairRefused string
	// pairShownAt is when the pairing screen came up (settle), zero while
	// it is not showing: only a long press that began after it accepts.
	pairShownAt time.Time
	// dockAnswered is the serial of the new dock answered here, until the
	// dock state stops asking about it; dockShownAt is pairShownAt for
	// ScreenDock.
	dockAnswered *string
	dockShownAt  time.Time
	// forget is "Forget Bluetooth pairing?" (forget.go).
	forget forgetFlow
	// question is where the user is in the shown question (question.go).
	question questionFlow
	// onScreen is what the last frame showed (settle): approve and deny
	// act on it, never on a state the panel has not shown yet.
	onScreen shownFrame

	// pageKeys: the board has dedicated next/back buttons; without them
	// approve and deny page through info while no prompt is shown.
	pageKeys bool
	// timeout is the configured screen timeout; prefs.Timeout(timeout)
	// is the one in force.
	timeout time.Duration
	page    int // 0 home, 1..infoPages
	// approvalPage is the page of the shown prompt, any integer (the
	// screen takes it modulo its page count); approvalOf is the prompt
	// it belongs to: another prompt starts on its first page.
	approvalPage int
	approvalOf   key

	on         bool
	lastActive time.Time // last press, or last prompt/passkey/push change
	wokeAt     time.Time

	oneShot      stats.State
	oneShotUntil time.Time

	// The settings page (pages.go): what it shows, the saved settings,
	// why the last save failed ("" when it did not), the species chosen
	// there until the buddy's State has it.
	settings      settingsFlow
	prefs         prefs.Prefs
	prefsErr      string
	speciesWanted *int
	// offSince is when the screen went off, zero while it is on; nap is
	// a finished nap the actor has not sent yet.
	offSince time.Time
	nap      *buddyactor.Nap
}

type key struct{ source, id string }

// shownFrame is what a frame showed, as far as the buttons care.
type shownFrame struct {
	screen Screen
	// shownAt is when the first frame of this screen, without a break,
	// was drawn: a press begun before it was meant for another screen.
	shownAt time.Time
	// prompt is the approval screen's prompt; answerable: its buttons
	// were up (not "sent…", not "reconnecting…"), since when the first
	// of the frames that have shown them without a break was drawn.
	prompt     approvals.Prompt
	answerable bool
	since      time.Time
	// sent, reconnecting: what it showed in place of the buttons; index
	// (0-based) and of: its place in the queue.
	sent, reconnecting bool
	index, of          int
	// card is the question card shown (questionFlow.cardID), "" for a
	// prompt that asks none: approve chooses only the card drawn.
	card string
}

// samePrompt: a and b are one prompt and read the same on the screen.
func samePrompt(a, b approvals.Prompt) bool {
	return a.Source == b.Source && a.ID == b.ID && a.Tool == b.Tool && a.Hint == b.Hint &&
		a.Detail == b.Detail && a.Warnings == b.Warnings && a.Label == b.Label
}

func keyOf(p approvals.Prompt) key { return key{p.Source, p.ID} }

func newState(now time.Time, timeout time.Duration, pageKeys bool) *state {
	return &state{sending: map[key]approvals.Decision{}, on: true, lastActive: now, timeout: timeout, pageKeys: pageKeys,
		prefs: prefs.Defaults()}
}

// chime is an effect: play this sound.
type chime struct{ c audio.Chime }

// apply folds one event from another service into the state; the effects
// it returns are the actor's to perform.
func (s *state) apply(msg any, now time.Time) (fx []any) {
	defer s.followPrompt()
	switch m := msg.(type) {
	case approvals.Pending:
		before := s.undecided()
		s.prompts = append(s.prompts[:0:0], m.Prompts...)
		for k := range s.sending {
			if s.find(k) < 0 {
				delete(s.sending, k)
			}
		}
		if s.undecided() > before {
			fx = append(fx, s.wake(now), chime{audio.ChimePrompt})
		}
	case approvals.PromptAppeared:
		if s.find(keyOf(m.Prompt)) < 0 {
			s.prompts = append(s.prompts, approvals.PromptView{Prompt: m.Prompt})
			fx = append(fx, s.wake(now), chime{audio.ChimePrompt})
		}
	case approvals.PromptDecided:
		if i := s.find(keyOf(m.Prompt)); i >= 0 {
			v := &s.prompts[i]
			v.Decided, v.Decision, v.By = true, m.Decision, m.By
		}
		delete(s.sending, keyOf(m.Prompt))
	case approvals.PromptRearmed:
		if i := s.find(keyOf(m.Prompt)); i >= 0 {
			s.prompts[i].Decided = false
			fx = append(fx, s.wake(now), chime{audio.ChimePrompt})
		}
		delete(s.sending, keyOf(m.Prompt))
	case approvals.PromptReconnecting:
		if i := s.find(keyOf(m.Prompt)); i >= 0 {
			s.prompts[i].Reconnecting, s.prompts[i].HoldUntil = true, m.Until
		}
	case approvals.PromptRestored:
		if i := s.find(keyOf(m.Prompt)); i >= 0 {
			v := &s.prompts[i]
			v.Reconnecting, v.HoldUntil = false, time.Time{}
			fx = append(fx, s.wake(now))
			if !v.Decided {
				// Answerable again; a decided one chimes with PromptRearmed.
				fx = append(fx, chime{audio.ChimePrompt})
			}
		}
	case approvals.PromptResolved:
		if i := s.find(keyOf(m.Prompt)); i >= 0 {
			s.prompts = append(s.prompts[:i], s.prompts[i+1:]...)
		}
		delete(s.sending, keyOf(m.Prompt))
		s.lastActive = now // the timeout counts from the last prompt
		if m.How == approvals.ApprovedHere && !m.Prompt.Arrived.IsZero() && now.Sub(m.Prompt.Arrived) < stats.HeartWithin {
			s.oneShot, s.oneShotUntil = stats.Heart, now.Add(stats.HeartFor)
		}
	case bleactor.LinkState:
		if m.Passkey != "" && (s.link == nil || s.link.Passkey != m.Passkey) {
			fx = append(fx, s.wake(now))
		}
		s.link = &m
	case buddyactor.State:
		if s.buddy != nil && m.Stats.Lvl > s.buddy.Stats.Lvl {
			s.oneShot, s.oneShotUntil = stats.Celebrate, now.Add(stats.CelebrateFor)
		}
		if m.Push != nil && m.Push.Active {
			s.lastActive = now
		}
		if w := s.speciesWanted; w != nil && *w == m.Character() {
			s.speciesWanted = nil
		}
		s.buddy = &m
	case dock.State:
		if nd := m.NewDock; nd.Asking && len(s.prompts) == 0 && (s.dock == nil || s.dock.NewDock != nd) {
			fx = append(fx, s.wake(now), chime{audio.ChimePrompt})
		}
		if a := s.dockAnswered; a != nil && (!m.NewDock.Asking || m.NewDock.Serial != *a) {
			s.dockAnswered = nil
		}
		s.dock = &m
	case lan.State:
		if p := m.Pairing; p != nil && len(s.prompts) == 0 && (s.lan == nil || s.lan.Pairing == nil || s.lan.Pairing.Code != p.Code) {
			fx = append(fx, s.wake(now), chime{audio.ChimePrompt})
		}
		if m.Pairing == nil || m.Pairing.Code != s.pairAccepted {
			s.pairAccepted = ""
		}
		if m.Pairing == nil || m.Pairing.Code != s.pairRefused {
			s.pairRefused = ""
		}
		s.lan = &m
	}
	return fx
}

// followPrompt keeps the approval page with its prompt, and drops the
// info page while prompts show: after the last one the screen is home,
// not a page opened before it came.
func (s *state) followPrompt() {
	i := s.shown()
	if i < 0 {
		s.approvalPage, s.approvalOf = 0, key{}
		return
	}
	s.page, s.settings = 0, settingsFlow{}
	if k := keyOf(s.prompts[i].Prompt); k != s.approvalOf {
		s.approvalPage, s.approvalOf = 0, k
	}
}

// pairing is the LAN pairing request to show, nil when none (or when it
// was refused here and the lan state has not caught up).
func (s *state) pairing() *lan.Pairing {
	if s.lan == nil || s.lan.Pairing == nil || s.lan.Pairing.Code == s.pairRefused {
		return nil
	}
	return s.lan.Pairing
}

// newDock is the CoreS3 asking to be accepted, nil when none (or when it
// was answered here and the dock state has not caught up).
func (s *state) newDock() *dock.NewDock {
	if s.dock == nil || !s.dock.NewDock.Asking || (s.dockAnswered != nil && *s.dockAnswered == s.dock.NewDock.Serial) {
		return nil
	}
	return &s.dock.NewDock
}

// dockPress handles a button while ScreenDock shows, as pairPress does:
// a long approve that began while the screen showed accepts the dock,
// deny refuses it (until it is unplugged).
func (s *state) dockPress(r Role, long bool, began, now time.Time) (msg any, ok bool) {
	if !s.on || s.screen() != ScreenDock || s.onScreen.screen != ScreenDock {
		return nil, false
	}
	s.lastActive = now
	nd := s.newDock()
	switch r {
	case RoleApprove:
		if !long || s.dockShownAt.IsZero() || began.Before(s.dockShownAt) {
			return nil, false
		}
		s.dockAnswered = &nd.Serial
		return dock.AcceptDock{Serial: nd.Serial}, true
	case RoleDeny:
		s.dockAnswered = &nd.Serial
		return dock.RefuseDock{Serial: nd.Serial}, true
	}
	return nil, false
}

// pairPress handles a button while the pairing screen shows: a long
// press of approve that began while the screen showed accepts the code
// (once), deny refuses. A short approve does nothing here: the press a
// user meant for a prompt that just left the screen must not pair a
// stranger. ok is false when the press is not the pairing screen's, or
// has nothing left to do.
func (s *state) pairPress(r Role, long bool, began, now time.Time) (msg any, ok bool) {
	if !s.on || s.screen() != ScreenPairing || s.onScreen.screen != ScreenPairing {
		return nil, false // not on the panel (yet): see press
	}
	s.lastActive = now
	p := s.pairing()
	switch r {
	case RoleApprove:
		if !long || s.pairShownAt.IsZero() || began.Before(s.pairShownAt) || p.Accepted || s.pairAccepted == p.Code {
			return nil, false
		}
		s.pairAccepted = p.Code
		return lan.AcceptPairing{Code: p.Code}, true
	case RoleDeny:
		s.pairRefused = p.Code
		return lan.RefusePairing{}, true
	}
	return nil, false
}

// settle records what the frame about to be drawn shows, and when the
// pairing screen came up; the actor calls it for every frame, and only
// then: between two frames the state may run ahead of the panel.
func (s *state) settle(now time.Time) {
	s.settleForget(now)
	switch {
	case s.screen() != ScreenPairing:
		s.pairShownAt = time.Time{}
	case s.pairShownAt.IsZero():
		s.pairShownAt = now
	}
	switch {
	case s.screen() != ScreenDock:
		s.dockShownAt = time.Time{}
	case s.dockShownAt.IsZero():
		s.dockShownAt = now
	}
	was := s.onScreen
	s.onScreen = shownFrame{screen: s.screen(), shownAt: now}
	if was.screen == s.onScreen.screen {
		s.onScreen.shownAt = was.shownAt
	}
	if s.onScreen.screen != ScreenApproval {
		return
	}
	i := s.shown()
	v := s.prompts[i]
	f := &s.onScreen
	f.prompt, f.index, f.of = v.Prompt, i, len(s.prompts)
	f.sent, f.reconnecting = v.Decided || s.isSending(v.Prompt), v.Reconnecting
	if f.answerable = !f.sent && !f.reconnecting; !f.answerable {
		return
	}
	if questionsOf(v.Prompt) != nil {
		f.card = s.flowFor(v.Prompt).cardID()
	}
	f.since = now
	if was.screen == ScreenApproval && was.answerable && samePrompt(was.prompt, v.Prompt) && was.card == f.card {
		f.since = was.since
	}
}

// wake turns the screen on; it returns nil so apply can list it.
func (s *state) wake(now time.Time) any {
	if !s.on {
		s.on, s.wokeAt = true, now
		s.woke(now)
	}
	s.lastActive = now
	return nil
}

func (s *state) find(k key) int {
	for i, p := range s.prompts {
		if keyOf(p.Prompt) == k {
			return i
		}
	}
	return -1
}

// undecided counts the prompts waiting for an answer that can be given now:
// not decided, and not held while their link is down.
func (s *state) undecided() int {
	n := 0
	for _, v := range s.prompts {
		if !v.Decided && !v.Reconnecting {
			n++
		}
	}
	return n
}

// shown is the prompt on the approval screen: the oldest one the buttons
// can answer, else the oldest, which then shows "sent…" or
// "reconnecting…". -1 when none.
func (s *state) shown() int {
	for i, v := range s.prompts {
		if !v.Decided && !v.Reconnecting && !s.isSending(v.Prompt) {
			return i
		}
	}
	if len(s.prompts) > 0 {
		return 0
	}
	return -1
}

func (s *state) isSending(p approvals.Prompt) bool { _, ok := s.sending[keyOf(p)]; return ok }

// screen is what the panel shows now.
func (s *state) screen() Screen {
	switch {
	case !s.on:
		return ScreenOff
	case s.link != nil && s.link.Passkey != "":
		return ScreenPasskey
	case len(s.prompts) > 0:
		return ScreenApproval
	case s.pairing() != nil:
		return ScreenPairing
	case s.newDock() != nil:
		return ScreenDock
	case s.forgetShows():
		return ScreenForget
	case s.buddy != nil && s.buddy.Push != nil && s.buddy.Push.Active:
		return ScreenPack
	case s.settings.open:
		return ScreenSettings
	case s.page == statsPage:
		return ScreenStats
	case s.page > 0 && s.page == s.clockPage():
		return ScreenClock
	case s.page > 0:
		return ScreenInfo
	}
	return ScreenHome
}

// press handles a button with role r that went down at began. A press
// while the screen is off only wakes it. Approve and deny act on the
// prompt the last frame showed with its buttons, and on nothing else: not
// on a prompt that came after it and is not drawn yet, nor on one drawn
// after the button went down (the press was meant for the screen
// before), nor on one whose text changed since; a prompt hidden behind
// the Bluetooth passkey is not answered blind. ok is false when no
// decision is to be sent.
func (s *state) press(r Role, began, now time.Time) (d approvals.Decide, ok bool) {
	if !s.on {
		s.wake(now)
		return d, false
	}
	s.lastActive = now
	sc := s.screen()
	decides := r == RoleApprove || r == RoleDeny
	if sc == ScreenApproval || (decides && s.onScreen.screen == ScreenApproval) {
		// Every button here acts on the prompt on the screen: approve and
		// deny decide it, next and back page through it. (Paging follows
		// the state: a page turn meant for a prompt that just went harms
		// nothing.)
		var dec approvals.Decision
		switch r {
		case RoleApprove:
			dec = approvals.AllowOnce
		case RoleDeny:
			dec = approvals.Deny
		case RoleNext:
			s.approvalPage++
			return d, false
		case RoleBack:
			s.approvalPage--
			return d, false
		default:
			return d, false
		}
		f := s.onScreen
		if sc != ScreenApproval || f.screen != ScreenApproval || !f.answerable || began.Before(f.since) {
			// The panel showed no buttons for a prompt (or "sent…", or
			// "reconnecting…"), or not yet when the button went down, or
			// the prompts are about to leave the screen: nothing the user
			// saw is left to decide.
			return d, false
		}
		i := s.find(keyOf(f.prompt))
		if i < 0 {
			return d, false // answered elsewhere, or gone, since the frame
		}
		v := s.prompts[i]
		if !samePrompt(v.Prompt, f.prompt) || v.Decided || v.Reconnecting || s.isSending(v.Prompt) {
			// Changed under the user's eyes, decided by someone else, or
			// its link dropped (approvals would refuse it anyway).
			return d, false
		}
		if isDesktopQuestion(v.Prompt) {
			return d, false // the buttons are not drawn: answer at the computer
		}
		var answer *approvals.Answer
		if qs := questionsOf(v.Prompt); qs != nil {
			flow := s.flowFor(v.Prompt)
			if flow.cardID() != f.card {
				return d, false // a card the panel has not drawn yet
			}
			s.approvalPage = 0
			if r == RoleDeny {
				flow.Step(qs)
				return d, false
			}
			a, done := flow.Choose(qs)
			if !done {
				return d, false
			}
			answer, dec = a, approvals.AllowOnce
		}
		s.sending[keyOf(v.Prompt)] = dec
		s.followPrompt()
		return approvals.Decide{Source: v.Source, ID: v.ID, Decision: dec, By: By, Answer: answer}, true
	}
	switch sc {
	case ScreenHome, ScreenInfo, ScreenStats, ScreenClock:
	default:
		return d, false
	}
	if !s.pageKeys {
		switch r {
		case RoleApprove:
			r = RoleNext
		case RoleDeny:
			r = RoleBack
		}
	}
	switch r {
	case RoleNext:
		s.page = (s.page + 1) % (s.pages() + 1)
	case RoleBack:
		s.page = (s.page + s.pages()) % (s.pages() + 1)
	}
	return d, false
}

// refused undoes the "sent…" of a decision approvals did not accept.
func (s *state) refused(d approvals.Decide) { delete(s.sending, key{d.Source, d.ID}) }

// offAt is when the screen times out, zero while something keeps it on.
func (s *state) offAt() time.Time {
	if !s.on || len(s.prompts) > 0 || (s.link != nil && s.link.Passkey != "") || s.pairing() != nil ||
		(s.buddy != nil && s.buddy.Push != nil && s.buddy.Push.Active) {
		return time.Time{}
	}
	t := s.prefs.Timeout(s.timeout)
	if t == prefs.Never {
		return time.Time{}
	}
	return s.lastActive.Add(t)
}

// tick turns the screen off when its time has come.
func (s *state) tick(now time.Time) {
	if at := s.offAt(); !at.IsZero() && !now.Before(at) {
		s.on = false
		s.page, s.settings = 0, settingsFlow{}
		s.asleep(now)
	}
}

// persona is the character's state by the Buddy spec's rules.
func (s *state) persona(now time.Time) stats.State {
	sc := stats.Scene{WokeAt: s.wokeAt, OneShot: s.oneShot, OneShotUntil: s.oneShotUntil}
	if b := s.buddy; b != nil {
		sc.Connected = b.Connected
		if h := b.Snapshot; h != nil {
			sc.Running, sc.Waiting = h.Running, h.Waiting
		}
	}
	if l := s.lan; l != nil && len(l.Sessions) > 0 {
		// A terminal session keeps the character awake as the desktop does.
		sc.Connected = true
		for _, se := range l.Sessions {
			if se.State == "running" {
				sc.Running++
			}
		}
	}
	if n := uint32(s.undecided()); n > sc.Waiting {
		sc.Waiting = n
	}
	return stats.Persona(sc, stats.DefaultRules, now)
}
