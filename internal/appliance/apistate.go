package appliance

import (
	"strings"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/actors/approvals"
	buddyactor "github.com/claude-pi/claude-pi/actors/buddy"
	"github.com/claude-pi/claude-pi/actors/dock"
	"github.com/claude-pi/claude-pi/actors/lan"
	"github.com/claude-pi/claude-pi/actors/ui"
	"github.com/claude-pi/claude-pi/internal/appliance/webapi"
	"github.com/claude-pi/claude-pi/supervisor"
)

// stateTimeout bounds each question /api/state asks a service: a service
// in BACKOFF answers nothing, and the page must not hang on it.
const stateTimeout = 200 * time.Millisecond

// newLAN is the lan service's state as /api/state shows it.
func newLAN(l lan.State) *webapi.LAN {
	a := &webapi.LAN{Listen: l.Addr, Pending: l.Pending, Clients: []webapi.LANClient{}, Sessions: []webapi.LANSession{}}
	for _, c := range l.Clients {
		a.Clients = append(a.Clients, webapi.LANClient{Name: c.Name, Fingerprint: c.Fingerprint, Paired: c.Paired})
	}
	if p := l.Pairing; p != nil {
		a.Pairing = &webapi.LANPairing{Name: p.Name, Code: p.Code, Accepted: p.Accepted}
	}
	for _, s := range l.Sessions {
		a.Sessions = append(a.Sessions, webapi.LANSession{ID: s.ID, Client: s.Client, Project: s.Project,
			State: s.State, Activity: s.Activity, Pending: s.Pending})
	}
	return a
}

// newDock is the dock service's state as /api/state shows it.
func newDock(d dock.State) *webapi.Dock {
	sd := &webapi.Dock{Connected: d.Connected, Path: d.Path, Serial: d.Serial, Ready: d.Ready, Event: d.Event,
		Description: d.Description, Pending: d.Pending, MaxCreditWait: d.MaxCreditWait.Milliseconds(),
		DisplayOnly: d.DisplayOnly}
	if nd := d.NewDock; nd.Asking {
		sd.NewDock = &webapi.NewDock{Serial: nd.Serial, Shown: nd.Shown, Looks: nd.Looks, Was: nd.Was}
	}
	return sd
}

// newPrompt is a prompt as /api/state shows it, its age counted to now.
// Decided, By and Reconnecting are the caller's: approvals' for the
// list, the ui's last frame for the prompt on the screen.
func newPrompt(p approvals.Prompt, now time.Time) webapi.Prompt {
	sp := webapi.Prompt{Source: p.Source, ID: p.ID, Tool: p.Tool, Hint: p.Hint, Detail: p.Detail,
		Warnings: []string{}, Truncated: p.Truncated}
	if p.Warnings != "" {
		sp.Warnings = strings.Split(p.Warnings, "\n")
	}
	if !p.Arrived.IsZero() {
		sp.AgeMs = now.Sub(p.Arrived).Milliseconds()
	}
	return sp
}

// ask sends msg to the service and returns its answer if it is a T in
// time; ok is false for no answer or another type.
func ask[T any](sys *actor.ActorSystem, service string, msg any, timeout time.Duration) (v T, ok bool) {
	r, err := sys.Root.RequestFuture(supervisor.ServicePID(sys, service), msg, timeout).Result()
	if err != nil {
		return v, false
	}
	v, ok = r.(T)
	return v, ok
}

// APIState asks the services what they know, all at once, each with its
// own timeout; a service that does not answer in time leaves its fields
// null rather than holding up the page.
func APIState(tree *supervisor.Tree, board string, timeout time.Duration) webapi.State {
	st := webapi.State{Board: board, Services: simServices(tree.Processes())}
	sys := tree.System()
	var (
		wg       sync.WaitGroup
		view     ui.View
		viewOK   bool
		bstate   buddyactor.State
		pending  approvals.Pending
		dstate   dock.State
		lstate   lan.State
		bOK, pOK bool
		dOK, lOK bool
	)
	wg.Add(5)
	go func() { defer wg.Done(); view, viewOK = ask[ui.View](sys, ui.ServiceName, ui.GetView{}, timeout) }()
	go func() {
		defer wg.Done()
		bstate, bOK = ask[buddyactor.State](sys, buddyactor.ServiceName, buddyactor.GetState{}, timeout)
	}()
	go func() {
		defer wg.Done()
		pending, pOK = ask[approvals.Pending](sys, approvals.ServiceName, approvals.GetPending{}, timeout)
	}()
	go func() {
		defer wg.Done()
		dstate, dOK = ask[dock.State](sys, dock.ServiceName, dock.GetState{}, timeout)
	}()
	go func() { defer wg.Done(); lstate, lOK = ask[lan.State](sys, lan.ServiceName, lan.GetState{}, timeout) }()
	wg.Wait()

	if viewOK {
		st.Shows = string(view.Screen)
		if view.Forget != "" {
			f := view.Forgotten
			st.Forget = &webapi.Forget{Step: view.Forget, Removed: f.Removed, NoBonds: f.NoBonds, Err: f.Err}
		}
		if l := view.Link; l != nil {
			st.Link = &webapi.Link{Advertising: l.Advertising, AdvertiseErr: l.AdvertiseErr, Connected: l.Connected,
				Central: l.Central, Subscribed: l.Subscribed, Secured: l.Secured, MTU: l.MTU, Passkey: l.Passkey,
				CanPair: l.CanPair, Security: l.Security}
		}
	}
	if h := bstate.Snapshot; bOK && h != nil {
		entries := h.Entries
		if entries == nil {
			entries = []string{}
		}
		st.Snapshot = &webapi.Snapshot{Total: h.Total, Running: h.Running, Waiting: h.Waiting, Msg: h.Msg,
			Entries: entries, Tokens: h.Tokens, TokensToday: h.TokensToday}
	}
	if dOK {
		st.Dock = newDock(dstate)
	}
	if lOK {
		st.LAN = newLAN(lstate)
	}
	if pOK {
		now := time.Now()
		list := make([]webapi.Prompt, 0, len(pending.Prompts))
		var first *webapi.Prompt
		for _, v := range pending.Prompts {
			ap := newPrompt(v.Prompt, now)
			ap.Decided, ap.By, ap.Reconnecting = v.Decided, v.By, v.Reconnecting
			list = append(list, ap)
			if first == nil && !v.Decided && !v.Reconnecting {
				first = &list[len(list)-1]
			}
		}
		if first == nil && len(list) > 0 {
			first = &list[0]
		}
		st.Prompts = list
		if first != nil {
			p := *first
			st.Prompt = &p
		}
		if v := view; viewOK {
			// The buttons act on the prompt the ui's last frame showed,
			// which can be a frame behind approvals (ui.Config.FrameGap):
			// a script that presses when it sees "prompt" presses what a
			// person would see.
			st.Prompt = nil
			if v.Screen == ui.ScreenApproval {
				s := v.Shown
				ap := newPrompt(s, now)
				ap.Decided, ap.Reconnecting = v.Sent, v.Reconnecting
				for _, p := range list {
					if p.Source == s.Source && p.ID == s.ID {
						ap.By = p.By
					}
				}
				st.Prompt = &ap
			}
		}
	}
	return st
}
