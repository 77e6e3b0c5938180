package ui

import (
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	bleactor "github.com/claude-pi/claude-pi/actors/ble"
	"github.com/claude-pi/claude-pi/actors/ui/screens"
	"github.com/claude-pi/claude-pi/supervisor"
)

// ScreenForget is "Forget Bluetooth pairing?", the Pi's own way out of a
// stuck pairing, and then what came of it. It is opened on purpose only:
// a long press of approve on the Links info page, which no prompt, no
// pairing code and no LAN pairing ever shows behind. A second long press,
// begun after the question came up, forgets; deny cancels; a prompt, a
// passkey or the screen timing out takes the question away.
const ScreenForget Screen = "forget"

// forgetStep is where the forget flow is.
type forgetStep int

const (
	forgetNone    forgetStep = iota
	forgetAsking             // the question is up
	forgetSending            // approve was held; the ble service has not answered
	forgetDone               // the result and the computer's steps are up
)

// String is the step as View.Forget reports it.
func (f forgetStep) String() string {
	switch f {
	case forgetAsking:
		return "asking"
	case forgetSending:
		return "sending"
	case forgetDone:
		return "done"
	}
	return ""
}

// forgetFlow is the forget screen's part of the state.
type forgetFlow struct {
	step forgetStep
	// shownAt is when the question came up (settle): only a long press
	// that began after it forgets, so the hold that opened it cannot.
	shownAt time.Time
	result  bleactor.BondsForgotten
}

// linksPage is the info page with the BLE link on it, where the forget
// screen is opened.
const linksPage = 1

// forgetPress handles a button for the forget flow: a long approve on
// the Links page opens the question, a long approve begun on the
// question forgets (send: ask the ble service), deny cancels, and any
// button leaves the result. ok is false when the press is not the flow's.
func (s *state) forgetPress(r Role, long bool, began, now time.Time) (send, ok bool) {
	if !s.on {
		return false, false
	}
	sc := s.screen()
	if sc == ScreenInfo && s.page == linksPage && long && r == RoleApprove {
		s.lastActive = now
		s.forget = forgetFlow{step: forgetAsking}
		return false, true
	}
	if sc != ScreenForget {
		return false, false
	}
	s.lastActive = now
	switch s.forget.step {
	case forgetAsking:
		switch {
		case r == RoleDeny:
			s.forget = forgetFlow{}
		case r == RoleApprove && long && !s.forget.shownAt.IsZero() && !began.Before(s.forget.shownAt):
			s.forget.step = forgetSending
			return true, true
		}
	case forgetDone:
		s.forget = forgetFlow{}
	}
	return false, true // a short approve, or anything while sending, does nothing
}

// forgotten shows the ble service's answer (or the failure to get one).
func (s *state) forgotten(res bleactor.BondsForgotten, now time.Time) {
	if s.forget.step != forgetSending {
		return
	}
	s.forget.step, s.forget.result = forgetDone, res
	s.wake(now)
}

// settleForget records when the question came up, and drops the question
// or the result once anything else takes the screen (a prompt, a
// passkey, the timeout): neither comes back by itself later. An answer on
// its way is kept, to be shown when the screen is free.
func (s *state) settleForget(now time.Time) {
	switch {
	case s.forget.step == forgetSending:
	case s.screen() != ScreenForget:
		s.forget = forgetFlow{}
	case s.forget.shownAt.IsZero():
		s.forget.shownAt = now
	}
}

// forgetShows is whether the forget flow wants the screen.
func (s *state) forgetShows() bool { return s.forget.step != forgetNone }

// defaultForgetTimeout is Config.ForgetTimeout when zero: the bluez
// backend bounds each call to bluetoothd by 10 s, and there is one bond,
// or a few stale ones.
const defaultForgetTimeout = 30 * time.Second

// forgetPressed performs a press the forget flow took. On the confirming
// long press it asks the ble service to forget every bond, off the actor
// as a decision is, and shows the answer, or that none came.
func (a *Actor) forgetPressed(c actor.Context, button string, send bool) {
	log := a.h.Logger()
	if !send {
		log.Info("forget pairing screen", "button", button, "showing", a.st.forgetShows())
		a.refresh()
		return
	}
	log.Info("forget pairing confirmed: asking the ble service to forget every bond", "button", button)
	a.refresh() // "forgetting…" at once
	f := c.RequestFuture(supervisor.ServicePID(a.system, bleactor.ServiceName), bleactor.ForgetBonds{}, a.cfg.ForgetTimeout)
	c.ReenterAfter(f, func(res any, err error) {
		r, ok := res.(bleactor.BondsForgotten)
		if err != nil || !ok {
			log.Warn("forget pairing: no answer from the ble service", "err", err, "answer", fmt.Sprintf("%T", res))
			r = bleactor.BondsForgotten{Err: "The Bluetooth service did not answer (restarting?)"}
		}
		a.st.forgotten(r, a.cfg.Now())
		a.refresh()
	})
}

// forgetView is what the forget screen draws.
func forgetView(s *state, lg legend, device string) screens.ForgetView {
	r := s.forget.result
	return screens.ForgetView{Asking: s.forget.step == forgetAsking, Sending: s.forget.step == forgetSending,
		Removed: r.Removed, NoBonds: r.NoBonds, Err: r.Err, Device: device, Approve: lg.approve, Deny: lg.deny}
}
