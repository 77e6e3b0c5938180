package dock

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/actors/lan"
	"github.com/claude-pi/claude-pi/protocols/stackchan/event"
	"github.com/claude-pi/claude-pi/protocols/stackchan/realtime"
)

// The host side of the session layer (spec §18) lives in realtime.Host;
// this file carries its events over EVENT and its results to the actors
// that asked.

// toolResultOut is a finished call for the actor to answer.
type toolResultOut struct{ realtime.Result }

// pumpTools moves what the session layer produced into frames and
// effects. A raw event that cannot go out is reported back to it, so its
// retry rules apply.
func (h *host) pumpTools(now time.Time) {
	for _, o := range h.rt.TakeOut() {
		if !h.sendRaw(o.JSON) {
			h.rt.SendFailed(o.Slot, now)
		}
	}
	for _, r := range h.rt.TakeResults() {
		h.effects = append(h.effects, toolResultOut{r})
	}
	if h.rt.TakeChanged() {
		h.toolsVersion++
	}
	// SendFailed may have produced more (a failed call is a result).
	for _, r := range h.rt.TakeResults() {
		h.effects = append(h.effects, toolResultOut{r})
	}
}

// sendRaw appends one raw event's EVENT frames; false if it cannot go out.
func (h *host) sendRaw(b []byte) bool {
	if !h.eventReady() {
		return false
	}
	id := h.ids.Next()
	var err error
	h.frames, err = event.AppendChunks(h.frames[:0], id, b, int(h.neg.MaxPayload))
	if err != nil {
		h.cfg.Log.Warn("raw event not sent", "err", err, "bytes", len(b))
		return false
	}
	h.lastEvent = id
	for _, f := range h.frames {
		h.appendFrame(f)
	}
	return true
}

// rawEvent hands a Realtime-shaped event from the CoreS3 to the session.
func (h *host) rawEvent(msg []byte, now time.Time) {
	gen := h.rt.Catalog().Generation
	if err := h.rt.Receive(msg, now); err != nil {
		h.cfg.Log.Info("session event from the CoreS3 ignored", "err", err)
		return
	}
	if c := h.rt.Catalog(); c.Generation != gen && len(c.Refused) > 0 {
		h.cfg.Log.Warn("the CoreS3's catalog stands without these tools (their names cannot be offered to Claude)", "left_out", c.Refused)
	}
}

func (h *host) catalog() lan.Catalog {
	c := h.rt.Catalog()
	cat := lan.Catalog{Version: h.toolsVersion, Docked: h.rt.IsReady()}
	if c.Acked {
		cat.Generation, cat.UpdateID, cat.Instructions, cat.Tools = c.Generation, c.UpdateID, c.Instructions, c.Tools
	}
	return cat
}

// Actor side: who waits for what.

type catalogWaiter struct {
	pid   *actor.PID
	after uint64
}

// holdExpired answers the long polls held since before at.
type holdExpired struct{ at time.Time }

type heldPoll struct {
	catalogWaiter
	since time.Time
}

// maxHeld bounds held long polls (each is one paired computer's request).
const maxHeld = 64

func (a *Actor) getCatalog(c actor.Context, m lan.GetCatalog) {
	cat := a.host.catalog()
	if !m.Wait || m.After != cat.Version || c.Sender() == nil {
		c.Respond(cat)
		return
	}
	if len(a.held) >= maxHeld {
		c.Respond(cat) // the asker polls again; never an unbounded list
		return
	}
	now := a.opts.Now()
	a.held = append(a.held, heldPoll{catalogWaiter{c.Sender(), m.After}, now})
	system, self := a.system, a.self
	a.opts.AfterFunc(lan.CatalogHold, func() { system.Root.Send(self, holdExpired{at: now}) })
}

// answerHeld answers every held poll whose version is out of date, and
// (with expired) those held since before at.
func (a *Actor) answerHeld(c actor.Context, expiredBefore time.Time) {
	if len(a.held) == 0 {
		return
	}
	cat := a.host.catalog()
	kept := a.held[:0]
	for _, w := range a.held {
		if w.after != cat.Version || !w.since.After(expiredBefore) {
			c.Send(w.pid, cat)
			continue
		}
		kept = append(kept, w)
	}
	clear(a.held[len(kept):])
	a.held = kept
}

func (a *Actor) callTool(c actor.Context, m lan.CallTool, now time.Time) {
	if c.Sender() == nil {
		return
	}
	id, err := a.host.rt.Call(m.UpdateID, m.Name, m.Arguments, now)
	if err != nil {
		c.Respond(toolAnswer(realtime.Result{Err: err}))
		return
	}
	a.calls[id] = c.Sender()
	a.h.Logger().Info("Stack-chan tool called", "tool", m.Name, "call", id, "generation", a.host.rt.Catalog().Generation)
}

func (a *Actor) toolResult(c actor.Context, r realtime.Result) {
	pid, ok := a.calls[r.CallID]
	if !ok {
		return
	}
	delete(a.calls, r.CallID)
	if r.Err != nil {
		a.h.Logger().Info("Stack-chan tool call failed", "call", r.CallID, "err", r.Err)
	}
	c.Send(pid, toolAnswer(r))
}

func toolAnswer(r realtime.Result) lan.ToolResult {
	if r.Err == nil {
		return lan.ToolResult{Output: r.Output}
	}
	return lan.ToolResult{Code: realtime.ErrorCode(r.Err), Error: r.Err.Error()}
}
