package appevent_test

import (
	"errors"
	"fmt"

	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
)

func ExampleRoute() {
	for _, msg := range []string{
		`{"schema":"stackchan.event.v1","type":"approval.response","requestId":"approval-1","decision":"approve"}`,
		`{"type":"session.update","event_id":"e1","session":{}}`,
		`{"schema":"stackchan.event.v1","type":"task.status","requestId":"t","state":"active"}`,
		`{"schema":"other.v1","type":"x"}`,
	} {
		r, err := appevent.Route([]byte(msg))
		switch r.Kind {
		case appevent.Application:
			fmt.Printf("application %T %+v\n", r.Event, r.Event)
		case appevent.Raw:
			fmt.Println("raw", r.Type)
		default:
			fmt.Println("drop:", err)
		}
	}
	// Output:
	// application appevent.ApprovalResponse {RequestID:approval-1 Decision:approve}
	// raw session.update
	// drop: stackchan.event.v1 task.status: field "state": "active" is not one of idle, running
	// drop: event schema is not stackchan.event.v1: "other.v1"
}

func ExampleMarshal() {
	b, err := appevent.Marshal(appevent.NewApprovalRequest("approval-1", appevent.KindCommand, "Run tests", "npm test", "npm test"))
	fmt.Println(string(b), err)
	// Output:
	// {"schema":"stackchan.event.v1","type":"approval.request","requestId":"approval-1","kind":"command","title":"Run tests","summary":"npm test","detail":"npm test","truncated":false} <nil>
}

func ExampleDecodeInbound() {
	in := []byte(`{"schema":"stackchan.event.v1","type":"conversation.start","requestId":"conversation-a1b2c3d4-42","source":"headTouch","gesture":"forwardSwipe"}`)
	e, err := appevent.DecodeInbound(in, appevent.FirmwareToHost)
	if errors.Is(err, appevent.ErrWrongDirection) {
		return // a valid event meant for the other side: ignore it
	}
	if err != nil {
		fmt.Println("ignored:", err) // logged, never answered (§14.3)
		return
	}
	if start, ok := e.(appevent.ConversationStart); ok {
		reply, _ := appevent.Marshal(appevent.NewConversationResult(start.RequestID, true, appevent.StateConnecting, ""))
		fmt.Println(string(reply))
	}
	// Output:
	// {"schema":"stackchan.event.v1","type":"conversation.result","requestId":"conversation-a1b2c3d4-42","success":true,"state":"connecting"}
}
