package realtime

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzDecode: no panic; an accepted event keeps the limits, and an
// accepted catalog survives session.updated's encoding unchanged.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"type":"session.update","event_id":"u1","session":{"instructions":"hi","tools":[{"type":"function","name":"nod","description":"Nod.","parameters":{"type":"object"}}]}}`))
	f.Add([]byte(`{"type":"conversation.item.create","event_id":"e","item":{"type":"function_call_output","call_id":"c","output":"ok"}}`))
	f.Add([]byte(`{"type":"response.create","event_id":"r"}`))
	f.Add([]byte(`{"type":"error","error":{"code":"x","message":"y"}}`))
	f.Add([]byte(`{"type":"session.update","event_id":"u","session":{"tools":[{"type":"mcp","server_label":"s"}]}}`))
	f.Add([]byte(`{"type":"session.update","event_id":"u","session":{"tools":[{"type":"function","name":"stackchan.say"},{"type":"function","name":"stackchan_say"},{"type":"function","name":"rm -rf"}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := Decode(b)
		if err != nil {
			return
		}
		if !utf8.ValidString(e.EventID) || len(e.EventID) > MaxEventID || len(e.Output) > MaxOutput {
			t.Fatalf("limits broken: %+v", e)
		}
		if e.Type != TypeSessionUpdate {
			return
		}
		if len(e.Session.Tools) > MaxTools {
			t.Fatalf("%d tools", len(e.Session.Tools))
		}
		names := map[string]bool{}
		for _, tool := range e.Session.Tools {
			if !mcpName.MatchString(tool.MCPName) || names[tool.MCPName] {
				t.Fatalf("tool %q offered to Claude as %q (taken: %v)", tool.Name, tool.MCPName, names[tool.MCPName])
			}
			names[tool.MCPName] = true
		}
		ack := SessionUpdated(e.EventID, e.Session)
		var back struct {
			Session json.RawMessage `json:"session"`
		}
		if err := json.Unmarshal(ack, &back); err != nil {
			t.Fatal(err)
		}
		again, err := decodeSession(back.Session)
		if err != nil || again.canonical() != e.Session.canonical() {
			t.Fatalf("catalog does not round-trip: %v\n%s", err, ack)
		}
	})
}

// FuzzHost: any sequence of device events keeps the host consistent: no
// panic, every event it sends is valid JSON, and a call, if accepted, is
// tagged with the current update id.
func FuzzHost(f *testing.F) {
	f.Add([]byte(`{"type":"session.update","event_id":"u1","session":{"tools":[{"type":"function","name":"nod"}]}}`+"\n"+`{"type":"conversation.item.create","event_id":"e","item":{"type":"function_call_output","call_id":"h-call-2","output":"ok"}}`), uint8(3))
	f.Fuzz(func(t *testing.T, script []byte, tick uint8) {
		h := NewHost("h")
		now := time.Unix(0, 0)
		h.Ready(now)
		for i, line := range strings.Split(string(script), "\n") {
			_ = h.Receive([]byte(line), now)
			if c := h.Catalog(); c.Acked && len(c.Tools) > 0 {
				if _, err := h.Call("", c.Tools[0].Name, nil, now); err == nil {
					for _, o := range h.TakeOut() {
						var m map[string]any
						if json.Unmarshal(o.JSON, &m) != nil {
							t.Fatalf("invalid JSON sent: %s", o.JSON)
						}
						if o.Slot.Kind == SlotCall && m["stackchan_session_update_id"] != c.UpdateID {
							t.Fatalf("call tagged %v, current %q", m["stackchan_session_update_id"], c.UpdateID)
						}
					}
				}
			}
			if i%int(tick|1) == 0 {
				now = now.Add(AckRetry)
				h.Tick(now)
			}
			for _, o := range h.TakeOut() {
				if !json.Valid(o.JSON) {
					t.Fatalf("invalid JSON sent: %s", o.JSON)
				}
			}
			h.TakeResults()
		}
	})
}
