package appevent

import (
	"bytes"
	"testing"
)

var seeds = []string{
	`{"schema":"stackchan.event.v1","type":"conversation.start","requestId":"start-fixture-1","source":"headTouch","gesture":"forwardSwipe"}`,
	`{"schema":"stackchan.event.v1","type":"conversation.result","requestId":"stop-fixture-1","success":false,"state":"blocked","error":"not ready"}`,
	`{"schema":"stackchan.event.v1","type":"approval.request","requestId":"approval-1","kind":"command","title":"Run tests","summary":"npm test","detail":"npm test","truncated":false}`,
	`{"schema":"stackchan.event.v1","type":"approval.response","requestId":"approval-1","decision":"approve"}`,
	`{"schema":"stackchan.event.v1","type":"approval.resolved","requestId":"approval-1","message":"d\u00f6ne\n"}`,
	`{"schema":"stackchan.event.v1","type":"task.status","requestId":"task-1","state":"running"}`,
	`{"type":"session.update","event_id":"raw-fixture-1","session":{"instructions":"","tools":[]}}`,
	`{"schema":"stackchan.event.v2","type":"session.update"}`,
	`[1]`,
	`null`,
}

// FuzzDecode: no panic, Route agrees with Decode, and every accepted event
// re-encodes to bytes that decode to the same value and encode identically.
func FuzzDecode(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := Decode(b)
		r, rerr := Route(b)
		if r.Kind == Application && (err != nil || r.Event != e) {
			t.Fatalf("Route says application (%#v) but Decode: %#v, %v", r.Event, e, err)
		}
		if (r.Kind == Drop) != (rerr != nil) {
			t.Fatalf("Route kind %v with error %v", r.Kind, rerr)
		}
		if err != nil {
			if e != nil {
				t.Fatalf("Decode returned %#v with error %v", e, err)
			}
			return
		}
		if r.Kind != Application {
			t.Fatalf("Decode accepted what Route calls %v", r.Kind)
		}
		out, err := Marshal(e)
		if err != nil {
			t.Fatalf("accepted %#v does not encode: %v", e, err)
		}
		e2, err := Decode(out)
		if err != nil || e2 != e {
			t.Fatalf("round trip: %#v, %v; want %#v\ninput %q\nencoded %q", e2, err, e, b, out)
		}
		if out2, _ := Marshal(e2); !bytes.Equal(out, out2) {
			t.Fatalf("encoding not stable: %q then %q", out, out2)
		}
	})
}

func BenchmarkDecodeApprovalRequest(b *testing.B) {
	in := []byte(seeds[2])
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := Decode(in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarshalApprovalRequest(b *testing.B) {
	var e Event = NewApprovalRequest("approval-1", KindCommand, "Run tests", "npm test", "npm test --workspace=packages/app\n")
	dst := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if dst, err = AppendMarshal(dst[:0], e); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(dst)))
}

func BenchmarkRouteRaw(b *testing.B) {
	in := []byte(seeds[6])
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := Route(in); err != nil {
			b.Fatal(err)
		}
	}
}
