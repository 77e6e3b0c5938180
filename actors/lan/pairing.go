package lan

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

// The Pi's side of pairing v2 (protocols/hookbridge/pairing.go): one
// pairing at a time, in three stages, each with its own deadline so that
// none can hold the slot for good.
//
//	committed  the client committed and got the Pi's nonce; nothing on the
//	           screen yet. It must reveal within revealTimeout.
//	shown      the commitment opened: the code is on the screen and the
//	           reveal's long-poll waits for the button (PairTimeout).
//	accepted   approve was held; the computer's user answers y or N
//	           within Options.AcceptTimeout, or it expires.
//
// B refuses at every stage, N on the computer cancels (PathPairCancel),
// and a new request replaces one that is stale (staleAfter).
type pairStage int

const (
	pairCommitted pairStage = iota + 1
	pairShown
	pairAccepted
)

// Pairing deadlines.
const (
	// revealTimeout: an honest client reveals right after the Pi's nonce
	// comes back.
	revealTimeout = 10 * time.Second
	// staleAfter: a code on the screen that nobody answered for this long
	// gives way to a new request from another computer, so that a
	// stranger's request cannot keep the owner's from the screen for the
	// whole PairTimeout.
	staleAfter = 30 * time.Second
	// DefaultAcceptTimeout is how long an accepted pairing waits for the
	// computer's y or N.
	DefaultAcceptTimeout = 60 * time.Second
)

// The Pi's nonces are rationed across all addresses, because each one is
// a relay's try at a matching code (10^-6 each, pairing.go): a burst of
// nonceBurst, then one per nonceEvery. A `claude-pi pair` waits at most
// lanpair.MaxPairWait for the button, so a relay gets at most
// nonceBurst + MaxPairWait/nonceEvery = 5 + 6 = 11 tries per pairing the
// user runs: a chance below 1.1·10^-5. A stranger can spend the ration
// and keep pairing from working for a while (the answer says so); they
// could as well answer for claude-pi.local, so availability on a hostile
// LAN is not a promise.
const (
	nonceBurst = 5
	nonceEvery = 30 * time.Second
)

type pairing struct {
	Pairing
	stage      pairStage
	at         time.Time // the stage began
	fp         string
	cert       []byte // the client's certificate, DER
	commitment []byte
	np         []byte // the Pi's nonce
	seq        int    // the stage's number, for its timer
	reply      chan answer
}

// stale reports whether a new request from another computer may take the
// pairing's place.
func (p *pairing) stale(now time.Time, accept time.Duration) bool {
	switch p.stage {
	case pairCommitted:
		return now.Sub(p.at) >= revealTimeout
	case pairShown:
		return now.Sub(p.at) >= staleAfter
	}
	return now.Sub(p.at) >= accept
}

// Messages from the HTTP side.
type (
	pairCommit struct {
		fp, name         string
		cert, commitment []byte
		reply            chan answer
	}
	pairReveal struct {
		fp    string
		nc    []byte
		reply chan answer
	}
	pairGone    struct{ fp string }
	pairConfirm struct {
		fp    string
		reply chan answer
	}
	pairCancel struct {
		fp    string
		reply chan answer
	}
	// pairExpire is a stage's timer.
	pairExpire struct{ seq int }
)

func (a *Actor) receivePairing(m any) bool {
	switch m := m.(type) {
	case pairCommit:
		a.pairCommit(m)
	case pairReveal:
		a.pairReveal(m)
	case pairGone:
		if p := a.st.pairing; p != nil && p.fp == m.fp && p.stage == pairShown {
			a.endPairing("", "the computer stopped waiting")
		}
	case pairExpire:
		if p := a.st.pairing; p != nil && p.seq == m.seq {
			a.endPairing("the pairing expired on "+a.o.Device, "expired")
		}
	case AcceptPairing:
		a.acceptPairing(m)
	case RefusePairing:
		if a.st.pairing != nil {
			a.endPairing("refused on "+a.o.Device, "refused on the Pi")
		}
	case pairConfirm:
		a.confirm(m)
	case pairCancel:
		if p := a.st.pairing; p != nil && p.fp == m.fp {
			a.endPairing("cancelled on the computer", "cancelled on the computer")
		}
		m.reply <- answer{http.StatusNoContent, struct{}{}}
	default:
		return false
	}
	return true
}

// endPairing takes the pairing off the screen; a reveal still waiting for
// the button is answered refused with reason (none if "").
func (a *Actor) endPairing(reason, why string) {
	p := a.st.pairing
	if p.reply != nil && reason != "" {
		p.reply <- answer{http.StatusOK, hookbridge.PairResponse{Status: hookbridge.PairRefused, Device: a.o.Device, Reason: reason}}
	}
	a.h.Logger().Info("pairing ended", "name", p.Name, "why", why)
	a.st.pairing = nil
	a.changed()
}

// stage moves the pairing to s and arms the stage's timer, if it has one.
func (a *Actor) stage(p *pairing, s pairStage, d time.Duration) {
	a.pairSeq++
	p.stage, p.at, p.seq = s, a.o.Now(), a.pairSeq
	if d > 0 {
		seq, self, root := p.seq, a.self, a.system.Root
		time.AfterFunc(d, func() { root.Send(self, pairExpire{seq}) })
	}
}

func (a *Actor) pairCommit(m pairCommit) {
	now := a.o.Now()
	if p := a.st.pairing; p != nil {
		if p.fp != m.fp && !p.stale(now, a.o.AcceptTimeout) {
			m.reply <- answer{http.StatusConflict, fmt.Sprintf("another pairing (%s) is on %s: press B there to refuse it, or try again in %v",
				p.Name, a.o.Device, (staleAfter - now.Sub(p.at)).Round(time.Second))}
			return
		}
		a.endPairing("replaced by a newer pairing request", "replaced")
	}
	if !a.nonces.allow("", now) {
		m.reply <- answer{http.StatusTooManyRequests, fmt.Sprintf("too many pairing attempts on %s: try again in a minute", a.o.Device)}
		return
	}
	np := make([]byte, hookbridge.NonceSize)
	rand.Read(np)
	name := m.name
	if c, ok := a.st.client(m.fp); ok {
		name = c.Name // pairing again: the same computer keeps its name
	} else {
		for i := 2; slices.ContainsFunc(a.st.clients, func(c Client) bool { return c.Name == name }); i++ {
			name = fmt.Sprintf("%s-%d", m.name, i)
		}
	}
	p := &pairing{Pairing: Pairing{Name: name}, fp: m.fp, cert: m.cert, commitment: m.commitment, np: np}
	a.stage(p, pairCommitted, revealTimeout)
	a.st.pairing = p
	m.reply <- answer{http.StatusOK, hookbridge.PairNonce{Nonce: hex.EncodeToString(np), Device: a.o.Device}}
}

func (a *Actor) pairReveal(m pairReveal) {
	p := a.st.pairing
	if p == nil || p.fp != m.fp || p.stage != pairCommitted {
		m.reply <- answer{http.StatusConflict, "no pairing waits for this computer's nonce (run claude-pi pair again)"}
		return
	}
	if !hookbridge.CheckCommitment(p.commitment, p.cert, a.own, m.nc) {
		// Someone in the middle, or a broken client: the code would not
		// be the one the computer shows, so it never reaches the screen.
		a.h.Logger().Warn("pairing nonce does not open its commitment", "name", p.Name)
		a.st.pairing = nil
		m.reply <- answer{http.StatusForbidden, "the pairing nonce does not open its commitment: something between this computer and " + a.o.Device + " changed the pairing"}
		return
	}
	p.Code = hookbridge.Code(p.cert, a.own, m.nc, p.np)
	p.reply = m.reply
	a.stage(p, pairShown, 0) // the reveal's long-poll bounds it (PairTimeout)
	p.Since = p.at
	m.reply <- answer{} // shown
	a.h.Logger().Info("pairing request", "name", p.Name, "code", p.Code)
	a.changed()
}

func (a *Actor) acceptPairing(m AcceptPairing) {
	p := a.st.pairing
	if p == nil || p.stage != pairShown || p.Code != m.Code {
		a.h.Logger().Warn("pairing accept ignored", "code", m.Code)
		return
	}
	p.Accepted = true
	a.stage(p, pairAccepted, a.o.AcceptTimeout)
	p.reply <- answer{http.StatusOK, hookbridge.PairResponse{Status: hookbridge.PairAccepted, Device: a.o.Device}}
	p.reply = nil
	a.changed()
}

// confirm pairs the client once both users agreed: approve on the Pi,
// then yes on the computer.
func (a *Actor) confirm(m pairConfirm) {
	p := a.st.pairing
	if p == nil || p.fp != m.fp || p.stage != pairAccepted {
		m.reply <- answer{http.StatusForbidden, "no accepted pairing for this certificate (it expires " + a.o.AcceptTimeout.String() + " after approve)"}
		return
	}
	a.st.pairing = nil
	if _, known := a.st.client(p.fp); !known {
		a.st.clients = append(slices.Clone(a.st.clients), Client{Name: p.Name, Fingerprint: p.fp, Paired: a.o.Now()})
		if err := a.saveClients(); err != nil {
			a.st.clients = a.st.clients[:len(a.st.clients)-1]
			a.publishPaired()
			m.reply <- answer{http.StatusInternalServerError, err.Error()}
			a.changed()
			return
		}
	}
	a.h.Logger().Info("paired", "name", p.Name, "fingerprint", p.fp)
	m.reply <- answer{http.StatusOK, hookbridge.PairResponse{Status: hookbridge.PairPaired, Device: a.o.Device}}
	a.changed()
}
