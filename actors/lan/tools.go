package lan

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/actors/dock/dockapi"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
	"github.com/claude-pi/claude-pi/supervisor"
)

// Stack-chan's tools for paired computers (`claude-pi mcp`): the dock's
// catalog and calls, asked of the dock service directly from the HTTP
// goroutine (no lan state is involved; the paired check is the guard's
// and authed's, as for every other route).

// askFunc sends m to the dock service and waits up to d for its answer.
type askFunc func(m any, d time.Duration) (any, error)

// askDock asks the dock service of system.
func askDock(system *actor.ActorSystem) askFunc {
	return func(m any, d time.Duration) (any, error) {
		return system.Root.RequestFuture(supervisor.ServicePID(system, dockapi.Service), m, d).Result()
	}
}

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
	m := dockapi.GetCatalog{}
	if v := r.URL.Query().Get("after"); v != "" {
		after, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			http.Error(w, "after must be a catalog version", http.StatusBadRequest)
			return
		}
		m.After, m.Wait = after, true
		s.extend(w, dockapi.Hold+5*time.Second)
	}
	v, err := s.ask(m, dockapi.Hold+3*time.Second)
	cat, ok := v.(dockapi.Catalog)
	if err != nil || !ok {
		// No dock service (not configured, restarting): nothing docked.
		writeAnswer(w, answer{http.StatusOK, hookbridge.ToolCatalog{Tools: []hookbridge.ToolInfo{}}})
		return
	}
	out := hookbridge.ToolCatalog{Version: cat.Version, Docked: cat.Docked, UpdateID: cat.UpdateID, Tools: []hookbridge.ToolInfo{}}
	for _, t := range cat.Tools {
		out.Tools = append(out.Tools, hookbridge.ToolInfo{Name: t.Name, Description: t.Description, InputSchema: t.Parameters})
	}
	writeAnswer(w, answer{http.StatusOK, out})
}

func (s *server) toolCall(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.authed(w, r); !ok {
		return
	}
	c, ok := decodeBody(w, r, hookbridge.DecodeToolCall)
	if !ok {
		return
	}
	s.extend(w, dockapi.CallWait)
	v, err := s.ask(dockapi.CallTool{UpdateID: c.UpdateID, Name: c.Name, Arguments: c.Arguments}, dockapi.CallWait)
	res, ok := v.(dockapi.ToolResult)
	switch {
	case errors.Is(err, actor.ErrTimeout):
		res = dockapi.ToolResult{Code: "timeout", Error: "the dock service did not answer the call"}
	case err != nil || !ok:
		res = dockapi.ToolResult{Code: "no_dock", Error: "the dock service is not running on the Pi (is a CoreS3 configured?)"}
	}
	writeAnswer(w, answer{http.StatusOK, hookbridge.ToolCallResult{Output: res.Output, Code: res.Code, Error: res.Error}})
}
