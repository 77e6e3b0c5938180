package realtime

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestDecodeLimits(t *testing.T) {
	tool := func(name, desc string) string {
		return fmt.Sprintf(`{"type":"function","name":%q,"description":%q}`, name, desc)
	}
	var many []string
	for i := range MaxTools + 1 {
		many = append(many, tool(fmt.Sprintf("t%d", i), ""))
	}
	for _, tc := range []struct {
		name, json string
		want       error
	}{
		{"too many tools", `{"type":"session.update","event_id":"u","session":{"tools":[` + strings.Join(many, ",") + `]}}`, ErrCatalogLimit},
		{"long description", `{"type":"session.update","event_id":"u","session":{"tools":[` + tool("a", strings.Repeat("x", MaxDescription+1)) + `]}}`, ErrCatalogLimit},
		{"long instructions", `{"type":"session.update","event_id":"u","session":{"instructions":"` + strings.Repeat("x", MaxInstructions+1) + `"}}`, ErrCatalogLimit},
		{"long output", `{"type":"conversation.item.create","event_id":"e","item":{"type":"function_call_output","call_id":"c","output":"` + strings.Repeat("x", MaxOutput+1) + `"}}`, ErrCatalogLimit},
		{"long event id", `{"type":"response.create","event_id":"` + strings.Repeat("x", MaxEventID+1) + `"}`, ErrBadEvent},
		{"invalid utf-8", "{\"type\":\"response.create\",\"event_id\":\"\xff\"}", ErrBadEvent},
		{"other raw type", `{"type":"input_audio_buffer.append"}`, ErrUnknownType},
		{"name 65 long", `{"type":"session.update","event_id":"u","session":{"tools":[` + tool(strings.Repeat("a", 65), "") + `]}}`, ErrBadEvent},
	} {
		if _, err := Decode([]byte(tc.json)); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	exact := `{"type":"session.update","event_id":"u","session":{"tools":[` + strings.Join(many[:MaxTools], ",") + `]}}`
	if e, err := Decode([]byte(exact)); err != nil || len(e.Session.Tools) != MaxTools {
		t.Errorf("%d tools refused: %v", MaxTools, err)
	}
}

// TestWake: the host asks to be ticked for exactly the next deadline.
func TestWake(t *testing.T) {
	h := NewHost("h")
	t0 := time.Unix(0, 0)
	if _, ok := h.Wake(); ok {
		t.Fatal("idle host wants a tick")
	}
	h.Ready(t0)
	if err := h.Receive([]byte(`{"type":"session.update","event_id":"u","session":{"tools":[{"type":"function","name":"nod"}]}}`), t0); err != nil {
		t.Fatal(err)
	}
	h.SendFailed(Slot{SlotUpdated, "u"}, t0)
	if at, ok := h.Wake(); !ok || !at.Equal(t0.Add(AckRetry)) {
		t.Fatalf("wake %v %v, want the ack retry", at, ok)
	}
	h.Tick(t0.Add(AckRetry))
	if _, err := h.Call("", "nod", nil, t0.Add(AckRetry)); err != nil {
		t.Fatal(err)
	}
	if at, ok := h.Wake(); !ok || !at.Equal(t0.Add(AckRetry+CallTimeout)) {
		t.Fatalf("wake %v %v, want the call timeout", at, ok)
	}
}

// TestTooManyCalls: calls in flight are bounded.
func TestTooManyCalls(t *testing.T) {
	h := NewHost("h")
	t0 := time.Unix(0, 0)
	h.Ready(t0)
	_ = h.Receive([]byte(`{"type":"session.update","event_id":"u","session":{"tools":[{"type":"function","name":"nod"}]}}`), t0)
	for range maxCalls {
		if _, err := h.Call("", "nod", nil, t0); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.Call("", "nod", nil, t0); !errors.Is(err, ErrTooManyCalls) {
		t.Fatalf("call %d: %v", maxCalls+1, err)
	}
}

func BenchmarkDecodeSessionUpdate(b *testing.B) {
	in := []byte(`{"type":"session.update","event_id":"u1","session":{"instructions":"I am Stack-chan.","tools":[{"type":"function","name":"set_expression","description":"Set the face.","parameters":{"type":"object","properties":{"expression":{"type":"string","enum":["happy","sad","angry","sleepy","surprised","neutral"]}}}},{"type":"function","name":"nod","description":"Nod.","parameters":{"type":"object"}}]}}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := Decode(in); err != nil {
			b.Fatal(err)
		}
	}
}

// TestOddToolNamesCostOnlyThemselves is issue 33 item 4e: "stackchan.say"
// beside "set_led" cost the whole catalog. Now separators map to '_', a
// name that cannot be mapped or would collide is left out alone, and the
// device is told which.
func TestOddToolNamesCostOnlyThemselves(t *testing.T) {
	h := NewHost("h")
	t0 := time.Unix(0, 0)
	h.Ready(t0)
	h.TakeOut()
	in := `{"type":"session.update","event_id":"u1","session":{"tools":[` +
		`{"type":"function","name":"stackchan.say"},{"type":"function","name":"set_led"},` +
		`{"type":"function","name":"stackchan_say"},{"type":"function","name":"rm -rf"},{"type":"function","name":"say\u200b"}]}}`
	if err := h.Receive([]byte(in), t0); err != nil {
		t.Fatalf("catalog with odd names refused whole: %v", err)
	}
	c := h.Catalog()
	var got []string
	for _, tool := range c.Tools {
		got = append(got, tool.Name+"="+tool.MCPName)
	}
	if strings.Join(got, ",") != "stackchan.say=stackchan_say,set_led=set_led" {
		t.Fatalf("tools %v", got)
	}
	if len(c.Refused) != 3 || !strings.Contains(c.Refused[0], `"stackchan_say" would be "stackchan_say", as "stackchan.say"`) ||
		!strings.Contains(c.Refused[1], `"rm -rf"`) || !strings.Contains(c.Refused[2], `say\u200b`) {
		t.Fatalf("refused %q", c.Refused)
	}
	var told bool
	for _, o := range h.TakeOut() {
		if s := string(o.JSON); strings.Contains(s, `"code":"tool_refused"`) && strings.Contains(s, "rm -rf") {
			told = true
		}
	}
	if !told {
		t.Fatal("the device was not told which tools were left out")
	}
	// The Pi calls the device by its own name.
	if _, err := h.Call("u1", "stackchan.say", []byte(`{}`), t0); err != nil {
		t.Fatal(err)
	}
	if m, err := MCPName("a/b:c.d"); err != nil || m != "a_b_c_d" {
		t.Fatalf("MCPName: %q %v", m, err)
	}
}
