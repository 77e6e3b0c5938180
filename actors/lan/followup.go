package lan

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

// FollowUpHeard is hookbridge.FollowUpHeard, the wait once the user
// swiped, which the computer's hook shares.
const FollowUpHeard = hookbridge.FollowUpHeard

// FollowUp is the dock telling the lan service where a spoken follow-up
// to a terminal session's Reply is: State is hookbridge.FollowUpListening
// (the user swiped), FollowUpText (Text is the session's next message) or
// FollowUpNone (nothing will come: no microphone dock, nothing heard,
// cancelled on the CoreS3).
type FollowUp struct {
	Session string
	State   string
	Text    string
}

// Messages from the follow-up long-poll's goroutine.
type (
	followUpIn struct {
		fp      string
		session string
		lines   chan hookbridge.FollowUp
	}
	followUpGone struct {
		session string
		lines   chan hookbridge.FollowUp
	}
)

// followUpOffer is one Stop whose reply went to the dock with a window:
// the session's hook may wait for a follow-up.
type followUpOffer struct {
	fp     string
	at     time.Time
	lines  chan hookbridge.FollowUp // the waiting hook's, nil before it polls
	queued []hookbridge.FollowUp    // the dock's lines before the hook polled
}

// followUps are the offers by session: at most one per session, the
// latest Stop's. It is the actor's state; the poll's goroutine only
// writes what it is given.
type followUps struct {
	bySession map[string]*followUpOffer
}

// offer records a Stop of session by client fp; an offer the session
// still had is closed (its hook gets "none").
func (f *followUps) offer(session, fp string, now time.Time) {
	if f.bySession == nil {
		f.bySession = make(map[string]*followUpOffer)
	}
	f.close(session)
	f.bySession[session] = &followUpOffer{fp: fp, at: now}
}

// poll attaches a hook's lines to the session's offer. False when there is
// none for this client within window (not opted in, no reply, another
// client's session, a stale Stop): the hook is answered "none" at once.
// Lines the dock sent before the poll are delivered now.
func (f *followUps) poll(session, fp string, lines chan hookbridge.FollowUp, now time.Time, window time.Duration) bool {
	o := f.bySession[session]
	if o == nil || o.fp != fp || o.lines != nil || now.Sub(o.at) >= window {
		return false
	}
	o.lines = lines
	for _, l := range o.queued {
		f.deliver(session, o, l)
	}
	o.queued = nil
	return true
}

// fromDock routes one of the dock's lines to the session's hook, or keeps
// it until the hook polls. False when no offer waits for it.
func (f *followUps) fromDock(m FollowUp) bool {
	o := f.bySession[m.Session]
	if o == nil {
		return false
	}
	l := hookbridge.FollowUp{State: m.State, Text: m.Text}
	if o.lines == nil {
		o.queued = append(o.queued, l)
		if l.State != hookbridge.FollowUpListening {
			// A final line before the poll: keep only it.
			o.queued = []hookbridge.FollowUp{l}
		}
		return true
	}
	f.deliver(m.Session, o, l)
	return true
}

// deliver writes l for the waiting hook; a final line ends the offer.
// lines has room for every line an offer can produce in order (see
// followUpLines), so the actor never blocks on a slow connection.
func (f *followUps) deliver(session string, o *followUpOffer, l hookbridge.FollowUp) {
	select {
	case o.lines <- l:
	default:
	}
	if l.State != hookbridge.FollowUpListening {
		delete(f.bySession, session)
	}
}

// gone forgets the offer whose hook stopped waiting (answered, timed out,
// the CLI ended).
func (f *followUps) gone(session string, lines chan hookbridge.FollowUp) {
	if o := f.bySession[session]; o != nil && o.lines == lines {
		delete(f.bySession, session)
	}
}

// close ends the session's offer with "none".
func (f *followUps) close(session string) {
	if o := f.bySession[session]; o != nil {
		if o.lines != nil {
			f.deliver(session, o, hookbridge.FollowUp{State: hookbridge.FollowUpNone})
		}
		delete(f.bySession, session)
	}
}

// prune drops offers no hook polled within window.
func (f *followUps) prune(now time.Time, window time.Duration) {
	for s, o := range f.bySession {
		if o.lines == nil && now.Sub(o.at) >= window {
			delete(f.bySession, s)
		}
	}
}

// followUpLines is the room of a poll's channel: listening lines (one per
// swipe) and the final one.
const followUpLines = 16

// receiveFollowUp handles the follow-up messages; false for any other.
func (a *Actor) receiveFollowUp(c actor.Context) bool {
	switch m := c.Message().(type) {
	case followUpIn:
		now := a.o.Now()
		a.fu.prune(now, a.o.FollowUpWindow)
		if a.o.FollowUpWindow <= 0 || !a.fu.poll(m.session, m.fp, m.lines, now, a.o.FollowUpWindow) {
			m.lines <- hookbridge.FollowUp{State: hookbridge.FollowUpNone}
		}
	case followUpGone:
		a.fu.gone(m.session, m.lines)
	case FollowUp:
		if !a.fu.fromDock(m) && m.State == hookbridge.FollowUpText {
			a.h.Logger().Warn("spoken follow-up dropped: its terminal session no longer waits for one", "session", m.Session)
		}
	default:
		return false
	}
	return true
}

// offerFollowUp records a Stop that carried a reply; the window goes to
// the dock with it (0: follow-ups are off).
func (a *Actor) offerFollowUp(fp string, ev hookbridge.Event) time.Duration {
	if a.o.FollowUpWindow <= 0 {
		return 0
	}
	now := a.o.Now()
	a.fu.prune(now, a.o.FollowUpWindow) // a client's many sessions stay bounded by the window
	a.fu.offer(ev.Session, fp, now)
	return a.o.FollowUpWindow
}

// followUp is the Stop hook's long-poll. A hook whose user does not swipe
// is answered "none" when the window ends; after a swipe it waits up to
// FollowUpHeard more, for the recognised text or "none".
func (s *server) followUp(w http.ResponseWriter, r *http.Request) {
	fp, ok := s.authed(w, r)
	if !ok {
		return
	}
	req, ok := decodeBody(w, r, hookbridge.DecodeFollowUpRequest)
	if !ok {
		return
	}
	s.extend(w, s.followUpWindow+FollowUpHeard)
	lines := make(chan hookbridge.FollowUp, followUpLines)
	s.send(followUpIn{fp: fp, session: req.Session, lines: lines})
	defer s.send(followUpGone{session: req.Session, lines: lines})
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	write := func(l hookbridge.FollowUp) {
		b, _ := json.Marshal(l)
		w.Write(append(b, '\n'))
		rc.Flush()
	}
	// The actor answers at once when nothing is offered, and the dock
	// when its window ends; the window is counted here too, so that a
	// dock that says nothing cannot hold the terminal longer.
	wait := time.NewTimer(s.followUpWindow)
	defer wait.Stop()
	for {
		select {
		case l := <-lines:
			write(l)
			if l.State != hookbridge.FollowUpListening {
				return
			}
			wait.Reset(FollowUpHeard)
		case <-wait.C:
			write(hookbridge.FollowUp{State: hookbridge.FollowUpNone})
			return
		case <-r.Context().Done():
			return
		}
	}
}
