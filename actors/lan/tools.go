package lan

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/protocols/hookbridge"
	"github.com/claude-pi/claude-pi/protocols/stackchan/realtime"
	"github.com/claude-pi/claude-pi/supervisor"
)

// Stack-chan's tools for paired computers (`claude-pi mcp`): the dock's
// catalog and calls, asked of the dock service directly from the HTTP
// goroutine. The Pi, not the dock, decides what Claude reads about a tool
// (toolinfo.go) and which calls need the person's yes on the Pi
// (needsApproval): a computer that skips Claude Code's own dialog (an
// allow rule, bypass mode, a direct POST) still cannot make Stack-chan say
// anything unseen.

// askFunc sends m to the dock service and waits up to d for its answer.
type askFunc func(m any, d time.Duration) (any, error)

// errNoTools: Options.Tools names no service; the routes answer as for a
// dock service that is not running.
var errNoTools = errors.New("lan: no tools service configured (Options.Tools)")

// askDock asks the service named tools (the dock) of system.
func askDock(system *actor.ActorSystem, tools string) askFunc {
	return func(m any, d time.Duration) (any, error) {
		if tools == "" {
			return nil, errNoTools
		}
		return system.Root.RequestFuture(supervisor.ServicePID(system, tools), m, d).Result()
	}
}

// DefaultApprovalWait is Options.ToolApprovalWait when zero.
const DefaultApprovalWait = 2 * time.Minute

func (s *server) toolRoutes(mux *http.ServeMux) {
	if s.ask == nil {
		return
	}
	mux.HandleFunc("GET "+hookbridge.PathTools, s.toolCatalog)
	mux.HandleFunc("POST "+hookbridge.PathToolCall, s.toolCall)
}

func (s *server) toolCatalog(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.authed(w, r); !ok {
		return
	}
	m := GetCatalog{}
	if v := r.URL.Query().Get("after"); v != "" {
		after, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			http.Error(w, "after must be a catalog version", http.StatusBadRequest)
			return
		}
		m.After, m.Wait = after, true
		s.extend(w, CatalogHold+5*time.Second)
	}
	v, err := s.ask(m, CatalogHold+3*time.Second)
	cat, ok := v.(Catalog)
	if err != nil || !ok {
		// No dock service (not configured, restarting): nothing docked.
		writeAnswer(w, answer{http.StatusOK, hookbridge.ToolCatalog{Tools: []hookbridge.ToolInfo{}}})
		return
	}
	out := hookbridge.ToolCatalog{Version: cat.Version, Docked: cat.Docked, UpdateID: cat.UpdateID, Tools: []hookbridge.ToolInfo{}}
	for _, t := range cat.Tools {
		name, ok := mcpName(t)
		if !ok {
			continue
		}
		out.Tools = append(out.Tools, hookbridge.ToolInfo{Name: name, Description: toolDescription(name, t.Name), InputSchema: stripSchema(t.Parameters)})
	}
	writeAnswer(w, answer{http.StatusOK, out})
}

// mcpName is the name Claude calls t by (realtime.MCPName; the decoder
// sets it, a catalog from elsewhere may not).
func mcpName(t realtime.Tool) (string, bool) {
	if t.MCPName != "" {
		return t.MCPName, true
	}
	n, err := realtime.MCPName(t.Name)
	return n, err == nil
}

func (s *server) toolCall(w http.ResponseWriter, r *http.Request) {
	fp, ok := s.authed(w, r)
	if !ok {
		return
	}
	c, ok := decodeBody(w, r, hookbridge.DecodeToolCall)
	if !ok {
		return
	}
	s.extend(w, s.approvalWait+ToolCallWait)
	writeAnswer(w, answer{http.StatusOK, s.runTool(r, fp, c)})
}

// runTool finds the tool Claude named in the current catalog, asks the
// person on the Pi if the tool needs it, calls the dock by the tool's own
// name, and reads a CoreS3 refusal as an error.
func (s *server) runTool(r *http.Request, fp string, c hookbridge.ToolCall) hookbridge.ToolCallResult {
	v, err := s.ask(GetCatalog{}, 5*time.Second)
	cat, ok := v.(Catalog)
	if err != nil || !ok {
		return hookbridge.ToolCallResult{Code: "no_dock", Error: "the dock service is not running on the Pi (is a CoreS3 configured?)"}
	}
	if !cat.Docked {
		return hookbridge.ToolCallResult{Code: "no_dock", Error: realtime.ErrNoDock.Error()}
	}
	if c.UpdateID != "" && c.UpdateID != cat.UpdateID {
		return hookbridge.ToolCallResult{Code: "stale_catalog", Error: realtime.ErrStaleCatalog.Error()}
	}
	var tool realtime.Tool
	found := false
	for _, t := range cat.Tools {
		if n, ok := mcpName(t); ok && n == c.Name {
			tool, found = t, true
			break
		}
	}
	if !found {
		return hookbridge.ToolCallResult{Code: "unknown_tool", Error: realtime.ErrUnknownTool.Error()}
	}
	if needsApproval(c.Name) {
		if res, ok := s.approve(r, fp, c); !ok {
			return res
		}
	}
	v, err = s.ask(CallTool{UpdateID: cat.UpdateID, Name: tool.Name, Arguments: c.Arguments}, ToolCallWait)
	res, ok := v.(ToolResult)
	switch {
	case errors.Is(err, actor.ErrTimeout):
		res = ToolResult{Code: "timeout", Error: "the dock service did not answer the call"}
	case err != nil || !ok:
		res = ToolResult{Code: "no_dock", Error: "the dock service is not running on the Pi (is a CoreS3 configured?)"}
	}
	if res.Code == "" {
		// Our firmware says a refusal as "error: why" (firmware/core/tools.cpp).
		if why, refused := strings.CutPrefix(res.Output, "error:"); refused {
			return hookbridge.ToolCallResult{Code: "refused", Error: strings.TrimSpace(why)}
		}
	}
	return hookbridge.ToolCallResult{Output: res.Output, Code: res.Code, Error: res.Error}
}

// approve shows the call on the Pi as a prompt of its own one-call
// session (through the lan actor and approvals, as a hook's), waits for
// the decision, and ends the session. ok is false with the error result
// for anything but allow.
func (s *server) approve(r *http.Request, fp string, c hookbridge.ToolCall) (hookbridge.ToolCallResult, bool) {
	var b [8]byte
	rand.Read(b[:])
	id := "mcp-" + hex.EncodeToString(b[:])
	tool := "mcp__claude-pi__" + c.Name
	d := hookbridge.Describe(tool, c.Arguments)
	req := hookbridge.PermissionRequest{ID: id, Session: id, Project: "Stack-chan", Tool: tool,
		Hint: d.Hint, Detail: d.Detail, Warnings: strings.Join(d.Warnings, "\n"), Truncated: d.Truncated}
	reply := make(chan answer, 2)
	s.send(permIn{fp: fp, req: req, reply: reply})
	defer s.send(eventIn{fp: fp, ev: hookbridge.Event{Session: id, Event: hookbridge.EventSessionEnd, Project: "Stack-chan"}, reply: make(chan answer, 1)})
	wait := time.NewTimer(s.approvalWait)
	defer wait.Stop()
	k := key{id, id}
	for {
		select {
		case a := <-reply:
			if a.status == 0 {
				continue // shown
			}
			dec, isDecision := a.body.(hookbridge.Decision)
			switch {
			case !isDecision:
				msg, _ := a.body.(string)
				return hookbridge.ToolCallResult{Code: "not_approved", Error: "the Pi could not show the call for approval: " + msg}, false
			case dec.Behavior == hookbridge.BehaviorAllow:
				return hookbridge.ToolCallResult{}, true
			case dec.Behavior == hookbridge.BehaviorDeny:
				return hookbridge.ToolCallResult{Code: "denied", Error: "the person at " + s.device + " denied the call"}, false
			}
			return hookbridge.ToolCallResult{Code: "not_approved", Error: "not approved on " + s.device + ": " + dec.Reason}, false
		case <-r.Context().Done():
			s.send(withdraw{k})
			return hookbridge.ToolCallResult{Code: "not_approved", Error: "the call was abandoned"}, false
		case <-wait.C:
			s.send(withdraw{k})
			return hookbridge.ToolCallResult{Code: "not_approved", Error: "nobody answered on " + s.device + " within " + s.approvalWait.String()}, false
		}
	}
}
