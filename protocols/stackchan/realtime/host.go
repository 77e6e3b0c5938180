package realtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Timing of the session layer (spec §18, §25).
const (
	// AckRetry: a session.updated (or session.created) that could not be
	// queued is sent again this often while its generation is current.
	AckRetry = 100 * time.Millisecond
	// CallTimeout: a call without function output fails this long after it
	// was sent.
	CallTimeout = 30 * time.Second
	// AnsweredRetention: an answered call is remembered this long, so a
	// repeated conversation.item.create is acknowledged again and not
	// delivered twice.
	AnsweredRetention = 10 * time.Second
	// maxCalls bounds calls in flight.
	maxCalls = 8
	// seenUpdates: this many past session.update ids are remembered to
	// tell a reused event_id.
	seenUpdates = 32
)

// Why a call is refused or fails.
var (
	ErrNoDock         = errors.New("no Stack-chan is docked with EVENT ready: plug in the CoreS3 and wait for its handshake")
	ErrNoCatalog      = errors.New("the docked Stack-chan has not offered tools yet: wait for its session.update")
	ErrStaleCatalog   = errors.New("the Stack-chan's tool catalog changed: list the tools again and retry")
	ErrUnknownTool    = errors.New("the Stack-chan's current catalog has no such tool: list the tools again")
	ErrBadArguments   = errors.New("tool arguments must be a JSON object")
	ErrTimeout        = errors.New("the Stack-chan did not answer the call within 30s")
	ErrDockGone       = errors.New("the Stack-chan went away during the call (unplugged, reset or EVENT lost)")
	ErrSendFailed     = errors.New("the call could not be sent to the Stack-chan")
	ErrTooManyCalls   = errors.New("too many Stack-chan calls in flight: wait for one to finish")
	ErrOutputTooLarge = fmt.Errorf("function output over %d bytes", MaxOutput)
)

// SlotKind says what an outgoing message is, so a failed send can be
// reported back for the right one.
type SlotKind uint8

// Slot kinds.
const (
	SlotCreated SlotKind = iota + 1 // session.created
	SlotUpdated                     // session.updated for generation ID
	SlotCall                        // the three events of call ID
	SlotReply                       // conversation.item.created or error: not retried
)

// Slot names one outgoing message.
type Slot struct {
	Kind SlotKind
	ID   string
}

// Out is one raw event to send in an EVENT message.
type Out struct {
	Slot Slot
	JSON []byte
}

// Catalog is the device's current tool catalog.
type Catalog struct {
	// Generation counts catalogs since the Host was made (it keeps counting
	// across link losses); 0 means none.
	Generation uint64
	// UpdateID is the event_id of the session.update it came from: calls
	// carry it as stackchan_session_update_id.
	UpdateID     string
	Instructions string
	Tools        []Tool
	// Refused is Session.Refused: the device's tools left out, and why.
	Refused []string
	// Acked: its session.updated was queued, so calls may use it.
	Acked bool
}

// Tool returns the tool named name.
func (c Catalog) Tool(name string) (Tool, bool) {
	for _, t := range c.Tools {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// Result is a finished call: Output when Err is nil.
type Result struct {
	CallID string
	Output string
	Err    error
}

type call struct {
	id       string
	gen      uint64
	sentAt   time.Time
	answered bool
	output   string
}

type seenUpdate struct{ id, canon string }

// Host is the host side of the session layer. Its methods record outgoing
// events (TakeOut), finished calls (TakeResults) and whether the catalog
// changed (TakeChanged); time is an argument.
type Host struct {
	prefix string
	n      uint64

	ready       bool
	created     bool // session.created queued since ready
	createdID   string
	createdNext time.Time // retry time while !created

	cat       Catalog
	canon     string
	gen       uint64
	ackNeeded bool // session.updated not queued yet
	ackNext   time.Time
	seen      []seenUpdate

	calls   []*call
	out     []Out
	results []Result
	changed bool
}

// NewHost returns a host whose event ids start with prefix (a boot token
// makes ids unique across restarts).
func NewHost(prefix string) *Host { return &Host{prefix: prefix} }

func (h *Host) nextID(kind string) string {
	h.n++
	return h.prefix + "-" + kind + "-" + strconv.FormatUint(h.n, 10)
}

// Ready is called when EVENT becomes usable (after a handshake with both
// sides advertising it): the host opens the session with session.created.
func (h *Host) Ready(now time.Time) {
	h.Lost()
	h.ready = true
	h.createdID = h.nextID("created")
	h.sendCreated(now)
}

func (h *Host) sendCreated(now time.Time) {
	h.created = true
	h.out = append(h.out, Out{Slot{SlotCreated, h.createdID}, SessionCreated(h.createdID)})
}

// Lost is called when the link drops or EVENT is no longer negotiated:
// both sides forget the session. Calls in flight fail with ErrDockGone.
func (h *Host) Lost() {
	for _, c := range h.calls {
		if !c.answered {
			h.results = append(h.results, Result{CallID: c.id, Err: ErrDockGone})
		}
	}
	h.calls = nil
	if h.cat.Generation != 0 {
		h.changed = true
	}
	h.ready, h.created, h.ackNeeded = false, false, false
	h.cat, h.canon, h.seen = Catalog{}, "", nil
}

// Catalog returns the current catalog (Generation 0 when there is none).
func (h *Host) Catalog() Catalog { return h.cat }

// IsReady reports whether the session is open (session.created sent).
func (h *Host) IsReady() bool { return h.ready }

// SendFailed reports that the message of slot s could not be queued.
func (h *Host) SendFailed(s Slot, now time.Time) {
	switch s.Kind {
	case SlotCreated:
		if h.ready && s.ID == h.createdID {
			h.created, h.createdNext = false, now.Add(AckRetry)
		}
	case SlotUpdated:
		if h.cat.UpdateID == s.ID && h.cat.Generation != 0 {
			if h.cat.Acked {
				h.changed = true
			}
			h.cat.Acked, h.ackNeeded, h.ackNext = false, true, now.Add(AckRetry)
		}
	case SlotCall:
		for i, c := range h.calls {
			if c.id == s.ID && !c.answered {
				h.calls = append(h.calls[:i], h.calls[i+1:]...)
				h.results = append(h.results, Result{CallID: c.id, Err: ErrSendFailed})
				return
			}
		}
	}
}

// Receive handles one raw event from the device. The error says why an
// event was ignored (for logs); the state is unchanged then.
func (h *Host) Receive(b []byte, now time.Time) error {
	if !h.ready {
		return fmt.Errorf("realtime: %w before session.created", ErrBadEvent)
	}
	e, err := Decode(b)
	if err != nil {
		if e.Type == TypeSessionUpdate && e.EventID != "" {
			h.reply(ErrorEvent(e.EventID, CodeInvalidEvent, err.Error()))
		}
		return err
	}
	switch e.Type {
	case TypeSessionUpdate:
		return h.update(e, now)
	case TypeItemCreate:
		return h.output(e, now)
	case TypeResponseCreate, TypeError:
		// response.create asks the host's model to go on; Claude goes on by
		// itself once the tool result is back. Errors are only logged.
		return nil
	}
	return nil
}

func (h *Host) reply(b []byte) { h.out = append(h.out, Out{Slot{SlotReply, ""}, b}) }

func (h *Host) update(e Event, now time.Time) error {
	canon := e.Session.canonical()
	if e.EventID == h.cat.UpdateID && h.cat.Generation != 0 {
		if canon != h.canon {
			h.reply(ErrorEvent(e.EventID, CodeEventIDReused, "session.update event_id reused with a different session"))
			return fmt.Errorf("%w: session.update %q reused with different content", ErrBadEvent, e.EventID)
		}
		h.sendUpdated(now) // an identical repeat: acknowledge again only
		return nil
	}
	for _, s := range h.seen {
		if s.id == e.EventID {
			if s.canon != canon {
				h.reply(ErrorEvent(e.EventID, CodeEventIDReused, "session.update event_id reused with a different session"))
				return fmt.Errorf("%w: session.update %q reused with different content", ErrBadEvent, e.EventID)
			}
			return fmt.Errorf("%w: session.update %q is an old generation", ErrBadEvent, e.EventID)
		}
	}
	// A new generation: calls of the old one are cancelled.
	for _, c := range h.calls {
		if !c.answered {
			h.results = append(h.results, Result{CallID: c.id, Err: ErrStaleCatalog})
		}
	}
	h.calls = nil
	h.seen = append(h.seen, seenUpdate{e.EventID, canon})
	if len(h.seen) > seenUpdates {
		h.seen = h.seen[1:]
	}
	h.gen++
	h.cat = Catalog{Generation: h.gen, UpdateID: e.EventID, Instructions: e.Session.Instructions, Tools: e.Session.Tools, Refused: e.Session.Refused}
	h.canon = canon
	h.changed = true
	h.sendUpdated(now)
	if len(e.Session.Refused) > 0 {
		// The rest of the catalog stands; the device hears which tools
		// were left out (session.updated lists the ones kept).
		h.reply(ErrorEvent(e.EventID, CodeToolRefused, "tools left out: "+strings.Join(e.Session.Refused, "; ")))
	}
	return nil
}

func (h *Host) sendUpdated(now time.Time) {
	if !h.cat.Acked {
		h.changed = true
	}
	h.cat.Acked, h.ackNeeded = true, false
	h.out = append(h.out, Out{Slot{SlotUpdated, h.cat.UpdateID}, SessionUpdated(h.cat.UpdateID, Session{Instructions: h.cat.Instructions, Tools: h.cat.Tools})})
}

func (h *Host) output(e Event, now time.Time) error {
	for _, c := range h.calls {
		if c.id != e.CallID {
			continue
		}
		h.reply(ItemCreated(h.nextID("item"), c.id, e.Output))
		if !c.answered {
			c.answered, c.output, c.sentAt = true, e.Output, now
			h.results = append(h.results, Result{CallID: c.id, Output: e.Output})
		}
		return nil
	}
	h.reply(ErrorEvent(e.EventID, CodeUnknownCallID, "no call "+strconv.Quote(e.CallID)+" is in flight"))
	return fmt.Errorf("%w: function output for unknown call %q", ErrBadEvent, e.CallID)
}

// Call sends a call of tool name with JSON-object arguments against the
// catalog whose update id is updateID (the one the caller listed; "" takes
// the current one). It returns the call id; the output comes as a Result.
func (h *Host) Call(updateID, name string, args json.RawMessage, now time.Time) (string, error) {
	if !h.ready {
		return "", ErrNoDock
	}
	if h.cat.Generation == 0 || !h.cat.Acked {
		return "", ErrNoCatalog
	}
	if updateID != "" && updateID != h.cat.UpdateID {
		return "", ErrStaleCatalog
	}
	if _, ok := h.cat.Tool(name); !ok {
		return "", fmt.Errorf("%w (%q)", ErrUnknownTool, name)
	}
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil || obj == nil {
		return "", ErrBadArguments
	}
	pending := 0
	for _, c := range h.calls {
		if !c.answered {
			pending++
		}
	}
	if pending >= maxCalls {
		return "", ErrTooManyCalls
	}
	compact, _ := json.Marshal(obj)
	id := h.nextID("call")
	fc := FunctionCall{UpdateID: h.cat.UpdateID, ResponseID: id + "-resp", ItemID: id + "-item",
		CallID: id, Name: name, Arguments: string(compact)}
	evs := fc.Events([3]string{h.nextID("ev"), h.nextID("ev"), h.nextID("ev")})
	for _, b := range evs {
		h.out = append(h.out, Out{Slot{SlotCall, id}, b})
	}
	h.calls = append(h.calls, &call{id: id, gen: h.cat.Generation, sentAt: now})
	return id, nil
}

// Tick retries unqueued acknowledgements, times out calls and forgets
// answered ones.
func (h *Host) Tick(now time.Time) {
	if !h.ready {
		return
	}
	if !h.created && !now.Before(h.createdNext) {
		h.sendCreated(now)
	}
	if h.ackNeeded && !now.Before(h.ackNext) {
		h.sendUpdated(now)
	}
	kept := h.calls[:0]
	for _, c := range h.calls {
		switch {
		case c.answered && now.Sub(c.sentAt) >= AnsweredRetention:
		case !c.answered && now.Sub(c.sentAt) >= CallTimeout:
			h.results = append(h.results, Result{CallID: c.id, Err: ErrTimeout})
		default:
			kept = append(kept, c)
		}
	}
	clear(h.calls[len(kept):])
	h.calls = kept
}

// Wake returns when Tick must run next.
func (h *Host) Wake() (time.Time, bool) {
	var at time.Time
	consider := func(t time.Time) {
		if at.IsZero() || t.Before(at) {
			at = t
		}
	}
	if !h.ready {
		return at, false
	}
	if !h.created {
		consider(h.createdNext)
	}
	if h.ackNeeded {
		consider(h.ackNext)
	}
	for _, c := range h.calls {
		if c.answered {
			consider(c.sentAt.Add(AnsweredRetention))
		} else {
			consider(c.sentAt.Add(CallTimeout))
		}
	}
	return at, !at.IsZero()
}

// TakeOut returns and clears the events to send, in order.
func (h *Host) TakeOut() []Out {
	o := h.out
	h.out = nil
	return o
}

// TakeResults returns and clears the finished calls.
func (h *Host) TakeResults() []Result {
	r := h.results
	h.results = nil
	return r
}

// TakeChanged reports (and clears) whether the usable catalog changed:
// a new generation, acknowledged or not, or none any more.
func (h *Host) TakeChanged() bool {
	c := h.changed
	h.changed = false
	return c
}

// Error codes for callers across a process boundary (the LAN bridge and
// the MCP server), one per error above.
var errorCodes = []struct {
	code string
	err  error
}{
	{"no_dock", ErrNoDock}, {"no_catalog", ErrNoCatalog}, {"stale_catalog", ErrStaleCatalog},
	{"unknown_tool", ErrUnknownTool}, {"bad_arguments", ErrBadArguments}, {"timeout", ErrTimeout},
	{"dock_gone", ErrDockGone}, {"send_failed", ErrSendFailed}, {"busy", ErrTooManyCalls},
}

// ErrorCode names err ("error" when it is none of the package's errors).
func ErrorCode(err error) string {
	for _, c := range errorCodes {
		if errors.Is(err, c.err) {
			return c.code
		}
	}
	return "error"
}

// CodeError returns the error a code names (nil for an unknown code).
func CodeError(code string) error {
	for _, c := range errorCodes {
		if c.code == code {
			return c.err
		}
	}
	return nil
}
