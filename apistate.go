package main

import (
	"sync"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
	buddyactor "github.com/claude-pi/claude-pi/actors/buddy"
	"github.com/claude-pi/claude-pi/actors/dock"
	"github.com/claude-pi/claude-pi/actors/lan"
	"github.com/claude-pi/claude-pi/actors/ui"
	"github.com/claude-pi/claude-pi/boards/sim"
	"github.com/claude-pi/claude-pi/supervisor"
)

// stateTimeout bounds each question /api/state asks a service: a service
// in BACKOFF answers nothing, and the page must not hang on it.
const stateTimeout = 200 * time.Millisecond

// apiLink is the BLE link in /api/state.
type apiLink struct {
	Advertising  bool   `json:"advertising"`
	AdvertiseErr string `json:"advertiseErr,omitempty"`
	Connected    bool   `json:"connected"`
	Central      string `json:"central"`
	Subscribed   bool   `json:"subscribed"`
	Secured      bool   `json:"secured"`
	MTU          int    `json:"mtu"`
	Passkey      string `json:"passkey"`
	CanPair      bool   `json:"canPair"`
	Security     string `json:"security"`
}

// apiSnapshot is the latest heartbeat in /api/state.
type apiSnapshot struct {
	Total       uint32   `json:"total"`
	Running     uint32   `json:"running"`
	Waiting     uint32   `json:"waiting"`
	Msg         string   `json:"msg"`
	Entries     []string `json:"entries"`
	Tokens      uint64   `json:"tokens"`
	TokensToday uint64   `json:"tokens_today"`
}

// apiPrompt is one pending prompt in /api/state.
type apiPrompt struct {
	Source  string `json:"source"`
	ID      string `json:"id"`
	Tool    string `json:"tool"`
	Hint    string `json:"hint"`
	AgeMs   int64  `json:"ageMs"`
	Decided bool   `json:"decided"`
	By      string `json:"by,omitempty"`
	// Reconnecting: the link dropped; the prompt is shown but cannot be
	// answered until a heartbeat after the reconnect lists it again.
	Reconnecting bool `json:"reconnecting"`
}

// apiForget is the forget-pairing flow in /api/state, while it is on:
// Step is "asking", "sending" or "done", and the rest is the answer the
// screen shows when done.
type apiForget struct {
	Step    string `json:"step"`
	Removed int    `json:"removed"`
	NoBonds bool   `json:"noBonds"`
	Err     string `json:"err,omitempty"`
}

// apiDock is the CoreS3 dock in /api/state.
type apiDock struct {
	Connected     bool   `json:"connected"`
	Path          string `json:"path"`
	Serial        string `json:"serial"`
	Ready         bool   `json:"ready"`
	Event         bool   `json:"event"`
	Description   string `json:"description"`
	Pending       int    `json:"pending"`
	MaxCreditWait int64  `json:"maxCreditWaitMs"`
}

// apiLAN is the CLI-hook bridge in /api/state. Code is the pairing code
// waiting for the approve button ("" when none): scripts and tests pair by
// reading it here, as a user reads it off the screen.
type apiLAN struct {
	Listen   string          `json:"listen"`
	Clients  []lan.Client    `json:"clients"`
	Pairing  *apiLANPairing  `json:"pairing"`
	Sessions []apiLANSession `json:"sessions"`
	Pending  int             `json:"pending"`
}

type apiLANPairing struct {
	Name     string `json:"name"`
	Code     string `json:"code"`
	Accepted bool   `json:"accepted"`
}

type apiLANSession struct {
	ID       string `json:"id"`
	Client   string `json:"client"`
	Project  string `json:"project"`
	State    string `json:"state"`
	Activity string `json:"activity"`
	Pending  int    `json:"pending"`
}

func newAPILAN(l lan.State) apiLAN {
	a := apiLAN{Listen: l.Addr, Clients: l.Clients, Pending: l.Pending, Sessions: []apiLANSession{}}
	if a.Clients == nil {
		a.Clients = []lan.Client{}
	}
	if p := l.Pairing; p != nil {
		a.Pairing = &apiLANPairing{Name: p.Name, Code: p.Code, Accepted: p.Accepted}
	}
	for _, s := range l.Sessions {
		a.Sessions = append(a.Sessions, apiLANSession{ID: s.ID, Client: s.Client, Project: s.Project,
			State: s.State, Activity: s.Activity, Pending: s.Pending})
	}
	return a
}

// apiState asks the services what they know, all at once, each with its
// own timeout; a service that does not answer in time leaves its fields
// null rather than holding up the page.
func apiState(tree *supervisor.Tree, board string, timeout time.Duration) sim.State {
	st := sim.State{Board: board, Services: simServices(tree.Processes())}
	sys := tree.System()
	ask := func(svc string, msg any) any {
		r, err := sys.Root.RequestFuture(supervisor.ServicePID(sys, svc), msg, timeout).Result()
		if err != nil {
			return nil
		}
		return r
	}
	var (
		wg                    sync.WaitGroup
		view, bstate, pending any
		dstate, lstate        any
	)
	wg.Add(5)
	go func() { defer wg.Done(); view = ask(ui.ServiceName, ui.GetView{}) }()
	go func() { defer wg.Done(); bstate = ask(buddyactor.ServiceName, buddyactor.GetState{}) }()
	go func() { defer wg.Done(); pending = ask(approvals.ServiceName, approvals.GetPending{}) }()
	go func() { defer wg.Done(); dstate = ask(dock.ServiceName, dock.GetState{}) }()
	go func() { defer wg.Done(); lstate = ask(lan.ServiceName, lan.GetState{}) }()
	wg.Wait()

	if v, ok := view.(ui.View); ok {
		st.Shows = string(v.Screen)
		if v.Forget != "" {
			f := v.Forgotten
			st.Forget = apiForget{Step: v.Forget, Removed: f.Removed, NoBonds: f.NoBonds, Err: f.Err}
		}
	}
	if v, ok := view.(ui.View); ok && v.Link != nil {
		l := v.Link
		st.Link = apiLink{Advertising: l.Advertising, AdvertiseErr: l.AdvertiseErr, Connected: l.Connected,
			Central: l.Central, Subscribed: l.Subscribed, Secured: l.Secured, MTU: l.MTU, Passkey: l.Passkey,
			CanPair: l.CanPair, Security: l.Security}
	}
	if b, ok := bstate.(buddyactor.State); ok && b.Snapshot != nil {
		h := b.Snapshot
		entries := h.Entries
		if entries == nil {
			entries = []string{}
		}
		st.Snapshot = apiSnapshot{Total: h.Total, Running: h.Running, Waiting: h.Waiting, Msg: h.Msg,
			Entries: entries, Tokens: h.Tokens, TokensToday: h.TokensToday}
	}
	if d, ok := dstate.(dock.State); ok {
		st.Dock = apiDock{Connected: d.Connected, Path: d.Path, Serial: d.Serial, Ready: d.Ready, Event: d.Event,
			Description: d.Description, Pending: d.Pending, MaxCreditWait: d.MaxCreditWait.Milliseconds()}
	}
	if l, ok := lstate.(lan.State); ok {
		st.LAN = newAPILAN(l)
	}
	if p, ok := pending.(approvals.Pending); ok {
		now := time.Now()
		list := make([]apiPrompt, 0, len(p.Prompts))
		var first *apiPrompt
		for _, v := range p.Prompts {
			ap := apiPrompt{Source: v.Source, ID: v.ID, Tool: v.Tool, Hint: v.Hint, Decided: v.Decided, By: v.By, Reconnecting: v.Reconnecting}
			if !v.Arrived.IsZero() {
				ap.AgeMs = now.Sub(v.Arrived).Milliseconds()
			}
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
			st.Prompt = *first
		}
		if v, ok := view.(ui.View); ok {
			// The buttons act on the prompt the ui's last frame showed,
			// which can be a frame behind approvals (ui.Config.FrameGap):
			// a script that presses when it sees "prompt" presses what a
			// person would see.
			st.Prompt = nil
			if v.Screen == ui.ScreenApproval {
				s := v.Shown
				ap := apiPrompt{Source: s.Source, ID: s.ID, Tool: s.Tool, Hint: s.Hint, Decided: v.Sent, Reconnecting: v.Reconnecting}
				if !s.Arrived.IsZero() {
					ap.AgeMs = now.Sub(s.Arrived).Milliseconds()
				}
				for _, p := range list {
					if p.Source == s.Source && p.ID == s.ID {
						ap.By = p.By
					}
				}
				st.Prompt = ap
			}
		}
	}
	return st
}
