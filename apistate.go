package main

import (
	"sync"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
	buddyactor "github.com/claude-pi/claude-pi/actors/buddy"
	"github.com/claude-pi/claude-pi/actors/dock"
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
		dstate                any
	)
	wg.Add(4)
	go func() { defer wg.Done(); view = ask("ui", ui.GetView{}) }()
	go func() { defer wg.Done(); bstate = ask("buddy", buddyactor.GetState{}) }()
	go func() { defer wg.Done(); pending = ask("approvals", approvals.GetPending{}) }()
	go func() { defer wg.Done(); dstate = ask("dock", dock.GetState{}) }()
	wg.Wait()

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
	if p, ok := pending.(approvals.Pending); ok {
		now := time.Now()
		list := make([]apiPrompt, 0, len(p.Prompts))
		var first *apiPrompt
		for _, v := range p.Prompts {
			ap := apiPrompt{Source: v.Source, ID: v.ID, Tool: v.Tool, Hint: v.Hint, Decided: v.Decided, By: v.By}
			if !v.Arrived.IsZero() {
				ap.AgeMs = now.Sub(v.Arrived).Milliseconds()
			}
			list = append(list, ap)
			if first == nil && !v.Decided {
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
	}
	return st
}
