package dock

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/dock/docktest"
	"github.com/claude-pi/claude-pi/actors/lan"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// toolFirmware plays our firmware's session layer on the fake CoreS3: it
// offers its catalog on session.created, runs calls tagged with its
// current update id once session.updated came, and records every call.
type toolFirmware struct {
	mu       sync.Mutex
	n        int
	updateID string
	acked    bool
	silent   bool // take calls but never answer them
	calls    []map[string]any
}

func (tf *toolFirmware) raw(fw docktest.Firmware, msg []byte) {
	var m map[string]any
	if json.Unmarshal(msg, &m) != nil {
		return
	}
	tf.mu.Lock()
	defer tf.mu.Unlock()
	switch m["type"] {
	case "session.created":
		tf.n++
		tf.updateID, tf.acked = "fw-update-"+string(rune('0'+tf.n)), false
		fw.SendRawEvent(tf.update(tf.updateID, "nod"))
	case "session.updated":
		if m["event_id"] == tf.updateID {
			tf.acked = true
		}
	case "response.function_call_arguments.done":
		if !tf.acked || m["stackchan_session_update_id"] != tf.updateID {
			return
		}
		tf.calls = append(tf.calls, m)
		if tf.silent {
			return
		}
		out, _ := json.Marshal(map[string]any{"type": "conversation.item.create", "event_id": "fw-item",
			"item": map[string]any{"type": "function_call_output", "call_id": m["call_id"], "output": "nodded " + m["arguments"].(string)}})
		fw.SendRawEvent(out)
		fw.SendRawEvent([]byte(`{"type":"response.create","event_id":"fw-resp"}`))
	}
}

func (tf *toolFirmware) update(id string, tools ...string) []byte {
	var list []map[string]any
	for _, t := range tools {
		list = append(list, map[string]any{"type": "function", "name": t, "description": "Do " + t, "parameters": map[string]any{"type": "object"}})
	}
	b, _ := json.Marshal(map[string]any{"type": "session.update", "event_id": id, "session": map[string]any{"instructions": "", "tools": list}})
	return b
}

func (tf *toolFirmware) snapshot() (calls []map[string]any, updateID string) {
	tf.mu.Lock()
	defer tf.mu.Unlock()
	return append([]map[string]any(nil), tf.calls...), tf.updateID
}

func toolsRig(t *testing.T) (*rig, *toolFirmware) {
	tf := &toolFirmware{}
	r := newRig(t, wire.FirmwareCaps, func(f *fakeCore) { f.raw = tf.raw }, Options{})
	r.core.plug()
	return r, tf
}

func (r *rig) catalog(m lan.GetCatalog, wait time.Duration) lan.Catalog {
	r.t.Helper()
	v, err := r.tree.System().Root.RequestFuture(r.dockPID, m, wait).Result()
	if err != nil {
		r.t.Fatal(err)
	}
	return v.(lan.Catalog)
}

func (r *rig) waitCatalog(ok func(lan.Catalog) bool) lan.Catalog {
	r.t.Helper()
	var c lan.Catalog
	waitFor(r.t, "catalog", func() bool {
		c = r.catalog(lan.GetCatalog{}, 2*time.Second)
		return ok(c)
	})
	return c
}

func (r *rig) call(m lan.CallTool) chan lan.ToolResult {
	ch := make(chan lan.ToolResult, 1)
	f := r.tree.System().Root.RequestFuture(r.dockPID, m, lan.ToolCallWait)
	go func() {
		v, err := f.Result()
		if err != nil {
			ch <- lan.ToolResult{Code: "future", Error: err.Error()}
			return
		}
		ch <- v.(lan.ToolResult)
	}()
	return ch
}

func result(t *testing.T, ch chan lan.ToolResult) lan.ToolResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("no ToolResult")
	}
	return lan.ToolResult{}
}

func TestToolCallRoundTrip(t *testing.T) {
	r, tf := toolsRig(t)
	cat := r.waitCatalog(func(c lan.Catalog) bool { return c.Generation == 1 })
	if !cat.Docked || cat.UpdateID != "fw-update-1" || len(cat.Tools) != 1 || cat.Tools[0].Name != "nod" {
		t.Fatalf("catalog %+v", cat)
	}
	// The dock acknowledges before it takes calls; the firmware must have it.
	waitFor(t, "ack at the firmware", func() bool { tf.mu.Lock(); defer tf.mu.Unlock(); return tf.acked })
	res := result(t, r.call(lan.CallTool{UpdateID: cat.UpdateID, Name: "nod", Arguments: json.RawMessage(`{"times":2}`)}))
	if res.Code != "" || res.Output != `nodded {"times":2}` {
		t.Fatalf("result %+v", res)
	}
	calls, _ := tf.snapshot()
	if len(calls) != 1 || calls[0]["stackchan_session_update_id"] != "fw-update-1" || calls[0]["name"] != "nod" {
		t.Fatalf("firmware saw %v", calls)
	}
	for _, tc := range []struct {
		m    lan.CallTool
		code string
	}{
		{lan.CallTool{UpdateID: "fw-update-0", Name: "nod"}, "stale_catalog"},
		{lan.CallTool{Name: "fly"}, "unknown_tool"},
		{lan.CallTool{Name: "nod", Arguments: json.RawMessage(`"x"`)}, "bad_arguments"},
	} {
		if res := result(t, r.call(tc.m)); res.Code != tc.code {
			t.Errorf("%+v: %+v, want %s", tc.m, res, tc.code)
		}
	}
	noViolations(t, r.core)
}

func TestToolCatalogReplacedMidCall(t *testing.T) {
	r, tf := toolsRig(t)
	tf.silent = true
	cat := r.waitCatalog(func(c lan.Catalog) bool { return c.Generation == 1 })
	waitFor(t, "ack at the firmware", func() bool { tf.mu.Lock(); defer tf.mu.Unlock(); return tf.acked })
	held := make(chan lan.Catalog, 1)
	go func() {
		v, err := r.tree.System().Root.RequestFuture(r.dockPID, lan.GetCatalog{After: cat.Version, Wait: true}, lan.CatalogHold+5*time.Second).Result()
		if err == nil {
			held <- v.(lan.Catalog)
		}
	}()
	ch := r.call(lan.CallTool{UpdateID: cat.UpdateID, Name: "nod"})
	waitFor(t, "the call at the firmware", func() bool { c, _ := tf.snapshot(); return len(c) == 1 })
	r.core.SendRawEvent(tf.update("fw-update-9", "nod", "shake"))
	if res := result(t, ch); res.Code != "stale_catalog" {
		t.Fatalf("mid-call replacement: %+v", res)
	}
	select {
	case c := <-held:
		if c.UpdateID != "fw-update-9" || len(c.Tools) != 2 || c.Version == cat.Version {
			t.Fatalf("held poll answered with %+v", c)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the held catalog poll was not answered on the change")
	}
}

func TestToolDockUnpluggedDuringCall(t *testing.T) {
	r, tf := toolsRig(t)
	tf.silent = true
	cat := r.waitCatalog(func(c lan.Catalog) bool { return c.Generation == 1 })
	waitFor(t, "ack at the firmware", func() bool { tf.mu.Lock(); defer tf.mu.Unlock(); return tf.acked })
	ch := r.call(lan.CallTool{UpdateID: cat.UpdateID, Name: "nod"})
	waitFor(t, "the call at the firmware", func() bool { c, _ := tf.snapshot(); return len(c) == 1 })
	r.core.unplug()
	if res := result(t, ch); res.Code != "dock_gone" {
		t.Fatalf("unplugged mid-call: %+v", res)
	}
	gone := r.waitCatalog(func(c lan.Catalog) bool { return !c.Docked })
	if gone.Generation != 0 || len(gone.Tools) != 0 {
		t.Fatalf("catalog after unplug %+v", gone)
	}
	if res := result(t, r.call(lan.CallTool{Name: "nod"})); res.Code != "no_dock" {
		t.Fatalf("call without a dock: %+v", res)
	}
	// Plugged again: a fresh session.created, a fresh catalog.
	r.core.plug()
	back := r.waitCatalog(func(c lan.Catalog) bool { return c.Generation != 0 })
	if back.UpdateID != "fw-update-2" || back.Generation != 2 {
		t.Fatalf("catalog after replug %+v", back)
	}
}
