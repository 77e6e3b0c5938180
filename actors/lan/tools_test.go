package lan

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/actors/dock/dockapi"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
	"github.com/claude-pi/claude-pi/protocols/stackchan/realtime"
	"github.com/claude-pi/claude-pi/supervisor"
)

// fakeDock answers the tool messages as the dock does: a catalog whose
// version moves on change(), held polls, and calls answered "did NAME".
type fakeDock struct {
	mu    sync.Mutex
	cat   dockapi.Catalog
	held  []*actor.PID
	calls []dockapi.CallTool
}

func (d *fakeDock) Receive(c actor.Context) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch m := c.Message().(type) {
	case dockapi.GetCatalog:
		if m.Wait && m.After == d.cat.Version {
			d.held = append(d.held, c.Sender())
			return
		}
		c.Respond(d.cat)
	case dockapi.CallTool:
		d.calls = append(d.calls, m)
		if m.UpdateID != d.cat.UpdateID {
			c.Respond(dockapi.ToolResult{Code: "stale_catalog", Error: realtime.ErrStaleCatalog.Error()})
			return
		}
		c.Respond(dockapi.ToolResult{Output: "did " + m.Name + " " + string(m.Arguments)})
	case changeCatalog:
		d.cat = m.cat
		for _, p := range d.held {
			c.Send(p, d.cat)
		}
		d.held = nil
	}
}

func (d *fakeDock) callCount() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.calls)
}

type changeCatalog struct{ cat dockapi.Catalog }

func (r *rig) get(t *testing.T, hc *http.Client, path string) (int, []byte) {
	t.Helper()
	resp, err := hc.Get("https://" + r.state(t).Addr + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func (r *rig) callTool(t *testing.T, hc *http.Client, body string) (int, []byte) {
	t.Helper()
	resp, err := hc.Post("https://"+r.state(t).Addr+hookbridge.PathToolCall, "application/json", bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func TestToolRoutes(t *testing.T) {
	d := &fakeDock{cat: dockapi.Catalog{Version: 4, Docked: true, Generation: 1, UpdateID: "u1",
		Tools: []realtime.Tool{{Name: "nod", Description: "Nod.", Parameters: json.RawMessage(`{"type":"object"}`)}}}}
	r := newRigWith(t, nil, supervisor.Service{Name: dockapi.Service, Policy: testPolicy, New: func(*supervisor.Handle) actor.Actor { return d }})
	hc := r.httpClient(t)

	code, b := r.get(t, hc, hookbridge.PathTools)
	cat, err := hookbridge.DecodeToolCatalog(b)
	if code != http.StatusOK || err != nil || cat.Version != 4 || !cat.Docked || cat.UpdateID != "u1" || len(cat.Tools) != 1 || string(cat.Tools[0].InputSchema) != `{"type":"object"}` {
		t.Fatalf("catalog: %d %s %v", code, b, err)
	}

	// A long poll returns on the change.
	got := make(chan hookbridge.ToolCatalog, 1)
	go func() {
		_, b := r.get(t, hc, hookbridge.PathTools+"?after=4")
		c, _ := hookbridge.DecodeToolCatalog(b)
		got <- c
	}()
	waitFor(t, "the poll held", func() bool { d.mu.Lock(); defer d.mu.Unlock(); return len(d.held) == 1 })
	r.system.Root.Send(supervisor.ServicePID(r.system, dockapi.Service), changeCatalog{dockapi.Catalog{Version: 5, Docked: false}})
	select {
	case c := <-got:
		if c.Version != 5 || c.Docked || len(c.Tools) != 0 {
			t.Fatalf("held poll: %+v", c)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("held poll not answered")
	}

	r.system.Root.Send(supervisor.ServicePID(r.system, dockapi.Service), changeCatalog{dockapi.Catalog{Version: 6, Docked: true, UpdateID: "u2"}})
	code, b = r.callTool(t, hc, `{"update_id":"u2","name":"nod","arguments":{"times":2}}`)
	res, err := hookbridge.DecodeToolCallResult(b)
	if code != http.StatusOK || err != nil || res.Output != `did nod {"times":2}` {
		t.Fatalf("call: %d %s %v", code, b, err)
	}
	_, b = r.callTool(t, hc, `{"update_id":"u1","name":"nod"}`)
	if res, _ := hookbridge.DecodeToolCallResult(b); res.Code != "stale_catalog" {
		t.Fatalf("stale call: %s", b)
	}
	if code, b := r.callTool(t, hc, `{"update_id":"u2","name":"nod","arguments":[1]}`); code != http.StatusBadRequest {
		t.Fatalf("bad arguments: %d %s", code, b)
	}
	if code, _ := r.get(t, hc, hookbridge.PathTools+"?after=x"); code != http.StatusBadRequest {
		t.Fatalf("bad after: %d", code)
	}

	// Strangers get nothing, and the dock never hears of them.
	before := d.callCount()
	for _, path := range []string{hookbridge.PathTools} {
		resp, err := stranger(t, "eve").Get("https://" + r.state(t).Addr + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("stranger GET %s: %d", path, resp.StatusCode)
		}
	}
	resp, err := stranger(t, "eve").Post("https://"+r.state(t).Addr+hookbridge.PathToolCall, "application/json", strings.NewReader(`{"name":"nod"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if n := d.callCount(); resp.StatusCode != http.StatusForbidden || n != before {
		t.Fatalf("stranger call: %d, dock calls %d → %d", resp.StatusCode, before, n)
	}
}

// TestToolRoutesWithoutDock: no dock service in the tree reads as no dock.
func TestToolRoutesWithoutDock(t *testing.T) {
	r := newRig(t)
	hc := r.httpClient(t)
	_, b := r.get(t, hc, hookbridge.PathTools)
	if cat, err := hookbridge.DecodeToolCatalog(b); err != nil || cat.Docked || len(cat.Tools) != 0 {
		t.Fatalf("catalog without dock: %s %v", b, err)
	}
	_, b = r.callTool(t, hc, `{"name":"nod"}`)
	if res, _ := hookbridge.DecodeToolCallResult(b); res.Code != "no_dock" {
		t.Fatalf("call without dock: %s", b)
	}
}
