package appevent

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"github.com/claude-pi/claude-pi/protocols/stackchan/contracttest"
	"testing"
	"time"
)

// contract reads a shared contract file (see package contracttest).
func contract(t testing.TB, name string) []byte { return contracttest.Read(t, name) }

// compact gives the vector's object as one line, keys in file order: the
// exact bytes our encoder must produce.
func compact(t testing.TB, raw json.RawMessage) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestContractApplicationEventVectors(t *testing.T) {
	var doc struct {
		ApplicationSchema string `json:"applicationSchema"`
		Retry             struct {
			Interval  int64 `json:"intervalMilliseconds"`
			Timeout   int64 `json:"timeoutMilliseconds"`
			Retention int64 `json:"minimumResultRetentionMilliseconds"`
		} `json:"conversationRequestRetry"`
		Vectors []struct {
			Name     string          `json:"name"`
			Accepted bool            `json:"codexParserAccepted"`
			Value    json.RawMessage `json:"value"`
		} `json:"vectors"`
	}
	if err := json.Unmarshal(contract(t, "application-event-vectors.json"), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.ApplicationSchema != Schema {
		t.Fatalf("applicationSchema %q; want %q", doc.ApplicationSchema, Schema)
	}
	ms := func(n int64) time.Duration { return time.Duration(n) * time.Millisecond }
	if ms(doc.Retry.Interval) != ConversationRetryInterval || ms(doc.Retry.Timeout) != ConversationTimeout || ms(doc.Retry.Retention) != ConversationResultRetention {
		t.Fatalf("conversationRequestRetry %+v differs from our constants", doc.Retry)
	}
	if len(doc.Vectors) != 14 {
		t.Fatalf("%d vectors; the spec lists 14", len(doc.Vectors))
	}
	for _, v := range doc.Vectors {
		t.Run(v.Name, func(t *testing.T) {
			var obj map[string]any
			if err := json.Unmarshal(v.Value, &obj); err != nil {
				t.Fatal(err)
			}
			_, hasSchema := obj["schema"]
			want := Drop
			switch {
			case !hasSchema:
				want = Raw
			case v.Accepted:
				want = Application
			}
			r, err := Route(v.Value)
			if r.Kind != want || (err != nil) != (want == Drop) {
				t.Fatalf("Route = %v, %v; want %v", r.Kind, err, want)
			}
			if typ, _ := obj["type"].(string); r.Type != typ {
				t.Fatalf("Route type %q; want %q", r.Type, typ)
			}
			e, err := Decode(v.Value)
			if (err == nil) != v.Accepted {
				t.Fatalf("Decode err = %v; codexParserAccepted = %v", err, v.Accepted)
			}
			if err != nil {
				return
			}
			if r.Event != e {
				t.Fatalf("Route event %#v != Decode event %#v", r.Event, e)
			}
			out, err := Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			if want := compact(t, v.Value); !bytes.Equal(out, want) {
				t.Fatalf("re-encoded\n%s\nwant\n%s", out, want)
			}
		})
	}
	// The firmware's builders reproduce the first two values.
	for i, build := range []func(string) Event{
		func(id string) Event { return NewConversationStart(id) },
		func(id string) Event { return NewConversationStop(id) },
	} {
		var v struct {
			RequestID string `json:"requestId"`
		}
		if err := json.Unmarshal(doc.Vectors[i].Value, &v); err != nil {
			t.Fatal(err)
		}
		out, err := Marshal(build(v.RequestID))
		if err != nil {
			t.Fatal(err)
		}
		if want := compact(t, doc.Vectors[i].Value); !bytes.Equal(out, want) {
			t.Fatalf("builder %d: %s; want %s", i, out, want)
		}
	}
}

func TestContractApplicationEventV1(t *testing.T) {
	var doc struct {
		SchemaVersion     int               `json:"schemaVersion"`
		ApplicationSchema string            `json:"applicationSchema"`
		AcceptedInbound   []json.RawMessage `json:"acceptedInbound"`
		RejectedInbound   []json.RawMessage `json:"rejectedInbound"`
		Outbound          []struct {
			Builder   string          `json:"builder"`
			RequestID string          `json:"requestId"`
			Expected  json.RawMessage `json:"expected"`
		} `json:"outbound"`
	}
	if err := json.Unmarshal(contract(t, "application-event-v1.json"), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.SchemaVersion != 1 || doc.ApplicationSchema != Schema {
		t.Fatalf("schemaVersion %d, applicationSchema %q", doc.SchemaVersion, doc.ApplicationSchema)
	}
	if len(doc.AcceptedInbound) != 6 || len(doc.RejectedInbound) != 5 || len(doc.Outbound) != 4 {
		t.Fatalf("vector counts %d/%d/%d; the spec lists 6/5/4", len(doc.AcceptedInbound), len(doc.RejectedInbound), len(doc.Outbound))
	}
	for i, in := range doc.AcceptedInbound {
		e, err := DecodeInbound(in, HostToFirmware)
		if err != nil {
			t.Fatalf("acceptedInbound[%d]: %v", i, err)
		}
		out, err := Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if want := compact(t, in); !bytes.Equal(out, want) {
			t.Fatalf("acceptedInbound[%d]: value %s; want %s", i, out, want)
		}
	}
	for i, in := range doc.RejectedInbound {
		if e, err := Decode(in); err == nil {
			t.Fatalf("rejectedInbound[%d] accepted as %#v", i, e)
		}
		if r, err := Route(in); r.Kind != Drop || err == nil {
			t.Fatalf("rejectedInbound[%d] routed %v", i, r.Kind)
		}
	}
	builders := map[string]func(string) Event{
		"conversation.start":        func(id string) Event { return NewConversationStart(id) },
		"conversation.stop":         func(id string) Event { return NewConversationStop(id) },
		"approval.presented":        func(id string) Event { return NewApprovalPresented(id) },
		"approval.response.approve": func(id string) Event { return NewApprovalResponse(id, Approve) },
	}
	for _, o := range doc.Outbound {
		build, ok := builders[o.Builder]
		if !ok {
			t.Fatalf("no builder for %q", o.Builder)
		}
		out, err := Marshal(build(o.RequestID))
		if err != nil {
			t.Fatal(err)
		}
		want := compact(t, o.Expected)
		if !bytes.Equal(out, want) {
			t.Fatalf("%s: %s; want %s", o.Builder, out, want)
		}
		// The host parses the same objects.
		e, err := DecodeInbound(want, FirmwareToHost)
		if err != nil || e != build(o.RequestID) {
			t.Fatalf("%s: host decode = %#v, %v", o.Builder, e, err)
		}
	}
}

// TestContractWireEventPayload pins the encoder to the bytes of the golden
// EVENT frame in test-vectors.json, key order included.
func TestContractWireEventPayload(t *testing.T) {
	var doc struct {
		ValidFrames []struct {
			Name  string `json:"name"`
			Frame struct {
				Type       int    `json:"type"`
				PayloadHex string `json:"payloadHex"`
			} `json:"frame"`
		} `json:"validFrames"`
	}
	if err := json.Unmarshal(contract(t, "test-vectors.json"), &doc); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, v := range doc.ValidFrames {
		if v.Frame.Type != 6 {
			continue
		}
		found = true
		want, err := hex.DecodeString(v.Frame.PayloadHex)
		if err != nil {
			t.Fatal(err)
		}
		e, err := Decode(want)
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		got, err := Marshal(e)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: %s, %v; want %s", v.Name, got, err, want)
		}
	}
	if !found {
		t.Fatal("no EVENT frame in test-vectors.json")
	}
}
