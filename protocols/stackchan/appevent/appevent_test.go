package appevent

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestDecodeRejects(t *testing.T) {
	const v1 = `"schema":"stackchan.event.v1",`
	tests := []struct {
		name  string
		in    string
		want  error
		field string // for ErrInvalidField
	}{
		{"broken json", `{"schema":`, ErrNotJSON, ""},
		{"trailing garbage", `{} x`, ErrNotJSON, ""},
		{"array", `[1,2]`, ErrNotObject, ""},
		{"number", `42`, ErrNotObject, ""},
		{"null", `null`, ErrNotObject, ""},
		{"string", `"x"`, ErrNotObject, ""},
		{"invalid utf-8", "{\"schema\":\"\xff\"}", ErrInvalidUTF8, ""},
		{"no schema", `{"type":"task.status"}`, ErrNoSchema, ""},
		{"foreign schema", `{"schema":"stackchan.event.v2","type":"task.status"}`, ErrForeignSchema, ""},
		{"schema not a string", `{"schema":1}`, ErrInvalidField, "schema"},
		{"schema null", `{"schema":null}`, ErrInvalidField, "schema"},
		{"missing type", `{` + v1 + `"requestId":"a"}`, ErrInvalidField, "type"},
		{"type not a string", `{` + v1 + `"type":7,"requestId":"a"}`, ErrInvalidField, "type"},
		{"unknown type", `{` + v1 + `"type":"conversation.toggle","requestId":"a"}`, ErrUnknownType, ""},
		{"type case", `{` + v1 + `"type":"Task.Status","requestId":"a","state":"idle"}`, ErrUnknownType, ""},
		{"missing requestId", `{` + v1 + `"type":"approval.presented"}`, ErrInvalidField, "requestId"},
		{"empty requestId", `{` + v1 + `"type":"approval.presented","requestId":""}`, ErrInvalidField, "requestId"},
		{"numeric requestId", `{` + v1 + `"type":"approval.presented","requestId":42}`, ErrInvalidField, "requestId"},
		{"requestId key case", `{` + v1 + `"type":"approval.presented","RequestID":"a"}`, ErrInvalidField, "requestId"},
		{"start wrong gesture", `{` + v1 + `"type":"conversation.start","requestId":"a","source":"headTouch","gesture":"backwardSwipe"}`, ErrInvalidField, "gesture"},
		{"start missing source", `{` + v1 + `"type":"conversation.start","requestId":"a","gesture":"forwardSwipe"}`, ErrInvalidField, "source"},
		{"stop wrong source", `{` + v1 + `"type":"conversation.stop","requestId":"a","source":"button","gesture":"backwardSwipe"}`, ErrInvalidField, "source"},
		{"success as string", `{` + v1 + `"type":"conversation.result","requestId":"a","success":"yes","state":"listening"}`, ErrInvalidField, "success"},
		{"success missing", `{` + v1 + `"type":"conversation.result","requestId":"a","state":"listening"}`, ErrInvalidField, "success"},
		{"result bad state", `{` + v1 + `"type":"conversation.result","requestId":"a","success":true,"state":"idle"}`, ErrInvalidField, "state"},
		{"result error null", `{` + v1 + `"type":"conversation.result","requestId":"a","success":true,"state":"blocked","error":null}`, ErrInvalidField, "error"},
		{"request bad kind", `{` + v1 + `"type":"approval.request","requestId":"a","kind":"network","title":"","summary":"","detail":"","truncated":false}`, ErrInvalidField, "kind"},
		{"request missing detail", `{` + v1 + `"type":"approval.request","requestId":"a","kind":"command","title":"","summary":"","truncated":false}`, ErrInvalidField, "detail"},
		{"request numeric title", `{` + v1 + `"type":"approval.request","requestId":"a","kind":"command","title":1,"summary":"","detail":"","truncated":false}`, ErrInvalidField, "title"},
		{"request truncated as string", `{` + v1 + `"type":"approval.request","requestId":"a","kind":"command","title":"","summary":"","detail":"","truncated":"false"}`, ErrInvalidField, "truncated"},
		{"request detail too long", `{` + v1 + `"type":"approval.request","requestId":"a","kind":"command","title":"","summary":"","detail":"` + strings.Repeat("x", MaxDetail+1) + `","truncated":true}`, ErrInvalidField, "detail"},
		{"response bad decision", `{` + v1 + `"type":"approval.response","requestId":"a","decision":"once"}`, ErrInvalidField, "decision"},
		{"resolved message not string", `{` + v1 + `"type":"approval.resolved","requestId":"a","message":{}}`, ErrInvalidField, "message"},
		{"task active", `{` + v1 + `"type":"task.status","requestId":"a","state":"active"}`, ErrInvalidField, "state"},
		{"task speaking", `{` + v1 + `"type":"task.status","requestId":"a","state":"speaking"}`, ErrInvalidField, "state"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Decode([]byte(tt.in))
			if !errors.Is(err, tt.want) || e != nil {
				t.Fatalf("Decode = %#v, %v; want %v", e, err, tt.want)
			}
			if tt.field != "" {
				var fe *FieldError
				if !errors.As(err, &fe) || fe.Field != tt.field || !strings.Contains(err.Error(), `"`+tt.field+`"`) {
					t.Fatalf("error %q does not name field %q", err, tt.field)
				}
			}
			if r, rerr := Route([]byte(tt.in)); r.Kind == Application || (r.Kind == Drop) != (rerr != nil) {
				t.Fatalf("Route = %v, %v", r.Kind, rerr)
			}
		})
	}
}

func TestDecodeAcceptsEveryType(t *testing.T) {
	tests := []struct {
		in   string
		want Event
	}{
		{`{"schema":"stackchan.event.v1","type":"conversation.start","requestId":"c","source":"headTouch","gesture":"forwardSwipe"}`, ConversationStart{"c"}},
		{`{"schema":"stackchan.event.v1","type":"conversation.stop","requestId":"c","source":"headTouch","gesture":"backwardSwipe"}`, ConversationStop{"c"}},
		{`{"schema":"stackchan.event.v1","type":"conversation.result","requestId":"c","success":false,"state":"blocked","error":"not ready"}`, ConversationResult{"c", false, StateBlocked, "not ready"}},
		{`{"schema":"stackchan.event.v1","type":"approval.request","requestId":"a","kind":"fileChange","title":"t","summary":"s","detail":"d","truncated":true}`, ApprovalRequest{"a", KindFileChange, "t", "s", "d", true}},
		{`{"schema":"stackchan.event.v1","type":"approval.presented","requestId":"a"}`, ApprovalPresented{"a"}},
		{`{"schema":"stackchan.event.v1","type":"approval.response","requestId":"a","decision":"decline"}`, ApprovalResponse{"a", Decline}},
		{`{"schema":"stackchan.event.v1","type":"approval.resolved","requestId":"a"}`, ApprovalResolved{"a", ""}},
		{`{"schema":"stackchan.event.v1","type":"approval.suspended","requestId":"a"}`, ApprovalSuspended{"a"}},
		{`{"schema":"stackchan.event.v1","type":"task.status","requestId":"t","state":"idle"}`, TaskStatus{"t", TaskIdle}},
	}
	for _, tt := range tests {
		t.Run(string(tt.want.Type()), func(t *testing.T) {
			e, err := Decode([]byte(tt.in))
			if err != nil || e != tt.want {
				t.Fatalf("Decode = %#v, %v; want %#v", e, err, tt.want)
			}
			out, err := Marshal(e)
			if err != nil || string(out) != tt.in {
				t.Fatalf("Marshal = %s, %v; want %s", out, err, tt.in)
			}
			// Unknown keys and whitespace are tolerated (§14.2).
			loose := strings.Replace(tt.in, "{", `{ "extra" : [1, {"x": null}] , `, 1)
			if e, err := Decode([]byte(loose)); err != nil || e != tt.want {
				t.Fatalf("with an unknown key: %#v, %v", e, err)
			}
		})
	}
}

func TestDecodeInboundDirection(t *testing.T) {
	in := []byte(`{"schema":"stackchan.event.v1","type":"task.status","requestId":"t","state":"running"}`)
	if _, err := DecodeInbound(in, HostToFirmware); err != nil {
		t.Fatalf("firmware inbound: %v", err)
	}
	e, err := DecodeInbound(in, FirmwareToHost)
	if !errors.Is(err, ErrWrongDirection) || e != (TaskStatus{"t", TaskRunning}) {
		t.Fatalf("host inbound = %#v, %v; want the event and ErrWrongDirection", e, err)
	}
}

func TestRouteRaw(t *testing.T) {
	tests := []struct{ in, typ string }{
		{`{"type":"session.created","session":{}}`, "session.created"},
		{`{}`, ""},
		{`{"type":3}`, ""},
	}
	for _, tt := range tests {
		r, err := Route([]byte(tt.in))
		if err != nil || r.Kind != Raw || r.Type != tt.typ || r.Event != nil {
			t.Fatalf("Route(%s) = %+v, %v; want raw %q", tt.in, r, err, tt.typ)
		}
	}
}

func TestMarshalEscapesLikeJSONStringify(t *testing.T) {
	e := NewApprovalResolved("id", "q\"b\\s\n\r\t\b\f\x01\x1f<>&\u2028é😀/")
	out, err := Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"schema":"stackchan.event.v1","type":"approval.resolved","requestId":"id","message":"q\"b\\s\n\r\t\b\f\u0001\u001f<>&` + "\u2028é😀/" + `"}`
	if string(out) != want {
		t.Fatalf("got  %s\nwant %s", out, want)
	}
	var back struct{ Message string }
	if err := json.Unmarshal(out, &back); err != nil || back.Message != e.Message {
		t.Fatalf("encoding/json reads back %q, %v", back.Message, err)
	}
}

func TestMarshalRejectsInvalid(t *testing.T) {
	tests := []struct {
		e     Event
		field string
	}{
		{ConversationStart{}, "requestId"},
		{ConversationResult{RequestID: "a", State: "idle"}, "state"},
		{ApprovalRequest{RequestID: "a", Kind: "x"}, "kind"},
		{ApprovalRequest{RequestID: "a", Kind: KindCommand, Detail: strings.Repeat("x", MaxDetail+1)}, "detail"},
		{ApprovalRequest{RequestID: "a", Kind: KindCommand, Title: "\xff"}, "title"},
		{ApprovalResponse{RequestID: "a", Decision: "once"}, "decision"},
		{TaskStatus{RequestID: "a", State: "active"}, "state"},
		{ApprovalSuspended{RequestID: "\xc3"}, "requestId"},
		{nil, "type"},
	}
	for _, tt := range tests {
		dst := []byte("keep")
		out, err := AppendMarshal(dst, tt.e)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tt.field || string(out) != "keep" {
			t.Fatalf("AppendMarshal(%#v) = %q, %v; want error on %q and dst unchanged", tt.e, out, err, tt.field)
		}
	}
}

func TestNewApprovalRequestTruncates(t *testing.T) {
	long := strings.Repeat("a", MaxDetail-1) + "あ" + "tail" // あ straddles the limit
	r := NewApprovalRequest("a", KindCommand, "t", "s", long)
	if !r.Truncated || r.Detail != strings.Repeat("a", MaxDetail-1) {
		t.Fatalf("detail %d bytes, truncated %v; want %d bytes cut before the rune", len(r.Detail), r.Truncated, MaxDetail-1)
	}
	if _, err := Marshal(r); err != nil {
		t.Fatal(err)
	}
	exact := strings.Repeat("b", MaxDetail)
	if r := NewApprovalRequest("a", KindCommand, "t", "s", exact); r.Truncated || r.Detail != exact {
		t.Fatal("a detail of exactly MaxDetail bytes was cut")
	}
}

func TestTypeDirection(t *testing.T) {
	for typ, want := range map[Type]Direction{
		TypeConversationStart: FirmwareToHost, TypeConversationStop: FirmwareToHost,
		TypeApprovalPresented: FirmwareToHost, TypeApprovalResponse: FirmwareToHost,
		TypeConversationResult: HostToFirmware, TypeApprovalRequest: HostToFirmware,
		TypeApprovalResolved: HostToFirmware, TypeApprovalSuspended: HostToFirmware,
		TypeTaskStatus: HostToFirmware,
	} {
		if d, ok := typ.Direction(); !ok || d != want {
			t.Fatalf("%s: %v, %v; want %v", typ, d, ok, want)
		}
	}
	if _, ok := Type("unknown").Direction(); ok {
		t.Fatal("unknown type has a direction")
	}
}
