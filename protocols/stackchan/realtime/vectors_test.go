package realtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"testing"
	"time"
)

// The shared vectors; firmware/test/test_session.cpp runs the firmware half.
const vectorsPath = "../testdata/realtime-session-vectors.json"

type vectors struct {
	HostDecode []decodeVector `json:"hostDecode"`
	Host       []scenario     `json:"host"`
}

type decodeVector struct {
	Name string `json:"name"`
	JSON string `json:"json"`
	OK   bool   `json:"ok"`
	Type string `json:"type"`
}

type scenario struct {
	Name  string `json:"name"`
	Steps []step `json:"steps"`
}

type step struct {
	Do        string          `json:"do"`
	Event     json.RawMessage `json:"event"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	UpdateID  string          `json:"updateId"`
	Slot      string          `json:"slot"`
	ID        string          `json:"id"`
	MS        int             `json:"ms"`
	Refused   bool            `json:"refused"`
	Error     string          `json:"error"`
	CallID    string          `json:"callId"`
	Send      *[]any          `json:"send"`
	Results   *[]struct {
		CallID string `json:"callId"`
		Output string `json:"output"`
		Error  string `json:"error"`
	} `json:"results"`
	Catalog *struct {
		Generation uint64   `json:"generation"`
		UpdateID   string   `json:"updateId"`
		Tools      []string `json:"tools"`
		Acked      bool     `json:"acked"`
	} `json:"catalog"`
	Changed *bool `json:"changed"`
}

func loadVectors(t *testing.T) vectors {
	t.Helper()
	b, err := os.ReadFile(vectorsPath)
	if err != nil {
		t.Fatal(err)
	}
	var v vectors
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", vectorsPath, err)
	}
	if len(v.Host) == 0 || len(v.HostDecode) == 0 {
		t.Fatalf("%s has no host vectors", vectorsPath)
	}
	return v
}

var slotNames = map[string]SlotKind{"created": SlotCreated, "updated": SlotUpdated, "call": SlotCall}

func TestHostDecodeVectors(t *testing.T) {
	for _, v := range loadVectors(t).HostDecode {
		e, err := Decode([]byte(v.JSON))
		if (err == nil) != v.OK {
			t.Errorf("%s: Decode error %v, want ok=%v", v.Name, err, v.OK)
			continue
		}
		if v.OK && e.Type != v.Type {
			t.Errorf("%s: type %q, want %q", v.Name, e.Type, v.Type)
		}
	}
}

func TestHostVectors(t *testing.T) {
	for _, sc := range loadVectors(t).Host {
		t.Run(sc.Name, func(t *testing.T) {
			h := NewHost("h")
			now := time.Unix(1000, 0)
			for i, st := range sc.Steps {
				where := fmt.Sprintf("step %d (%s)", i, st.Do)
				var refusal error
				switch st.Do {
				case "ready":
					h.Ready(now)
				case "lost":
					h.Lost()
				case "receive":
					refusal = h.Receive(st.Event, now)
					if (refusal != nil) != st.Refused {
						t.Fatalf("%s: Receive error %v, want refused=%v", where, refusal, st.Refused)
					}
				case "call":
					id, err := h.Call(st.UpdateID, st.Tool, st.Arguments, now)
					if st.Error != "" {
						if want := CodeError(st.Error); want == nil || !errors.Is(err, want) {
							t.Fatalf("%s: Call error %v, want %s", where, err, st.Error)
						}
					} else if err != nil || id != st.CallID {
						t.Fatalf("%s: Call = %q, %v; want %q", where, id, err, st.CallID)
					}
				case "sendFailed":
					h.SendFailed(Slot{slotNames[st.Slot], st.ID}, now)
				case "advance":
					now = now.Add(time.Duration(st.MS) * time.Millisecond)
					h.Tick(now)
				default:
					t.Fatalf("%s: unknown step", where)
				}
				out := h.TakeOut()
				if st.Send != nil {
					matchSends(t, where, out, *st.Send)
				}
				res := h.TakeResults()
				if st.Results != nil {
					if len(res) != len(*st.Results) {
						t.Fatalf("%s: results %+v, want %+v", where, res, *st.Results)
					}
					for j, w := range *st.Results {
						r := res[j]
						if r.CallID != w.CallID || r.Output != w.Output {
							t.Fatalf("%s: result %+v, want %+v", where, r, w)
						}
						if w.Error == "" && r.Err != nil || w.Error != "" && !errors.Is(r.Err, CodeError(w.Error)) {
							t.Fatalf("%s: result error %v, want %q", where, r.Err, w.Error)
						}
					}
				}
				if c := st.Catalog; c != nil {
					got := h.Catalog()
					var names []string
					for _, tool := range got.Tools {
						names = append(names, tool.Name)
					}
					if got.Generation != c.Generation || got.UpdateID != c.UpdateID || got.Acked != c.Acked || !slices.Equal(names, c.Tools) {
						t.Fatalf("%s: catalog %+v, want %+v", where, got, *c)
					}
				}
				if changed := h.TakeChanged(); st.Changed != nil && changed != *st.Changed {
					t.Fatalf("%s: changed %v, want %v", where, changed, *st.Changed)
				}
			}
		})
	}
}

func matchSends(t *testing.T, where string, out []Out, want []any) {
	t.Helper()
	if len(out) != len(want) {
		t.Fatalf("%s: sent %d events %s, want %d", where, len(out), outs(out), len(want))
	}
	for i, w := range want {
		var got any
		if err := json.Unmarshal(out[i].JSON, &got); err != nil {
			t.Fatalf("%s: sent invalid JSON %s", where, out[i].JSON)
		}
		if !subset(w, got) {
			t.Fatalf("%s: event %d is %s, want it to contain %v", where, i, out[i].JSON, w)
		}
	}
}

func outs(out []Out) string {
	s := ""
	for _, o := range out {
		s += "\n  " + string(o.JSON)
	}
	return s
}

// subset: every key of want is in got with a matching value; arrays match
// element by element with equal lengths; scalars are equal.
func subset(want, got any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok || !subset(wv, gv) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !subset(w[i], g[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(want, got)
}
