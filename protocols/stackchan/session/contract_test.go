package session

import (
	"encoding/json"
	"github.com/claude-pi/claude-pi/protocols/stackchan/contracttest"
	"testing"

	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// mediaContract mirrors the vendored media-session-v2.json.
type mediaContract struct {
	SchemaVersion      int             `json:"schemaVersion"`
	ProtocolVersion    int             `json:"protocolVersion"`
	MicrophoneScenario []contractScene `json:"microphoneScenarios"`
	SpeakerScenario    []contractScene `json:"speakerScenarios"`
	CreditBoundaries   []struct {
		PayloadBytes int  `json:"payloadBytes"`
		Outstanding  int  `json:"outstandingCreditBytes"`
		Accepted     bool `json:"accepted"`
	} `json:"creditBoundaries"`
}

type contractScene struct {
	Name  string         `json:"name"`
	Steps []contractStep `json:"steps"`
}

type contractStep struct {
	Operation          string          `json:"operation"`
	StreamID           uint16          `json:"streamId"`
	SampleRate         uint32          `json:"sampleRate"`
	PayloadBytes       int             `json:"payloadBytes"`
	Expected           json.RawMessage `json:"expected"`
	ExpectedStreamID   *uint16         `json:"expectedStreamId"`
	ExpectedSampleRate *uint32         `json:"expectedSampleRate"`
}

func loadMediaContract(t testing.TB) mediaContract {
	t.Helper()
	var c mediaContract
	if err := json.Unmarshal(contracttest.Read(t, "media-session-v2.json"), &c); err != nil {
		t.Fatalf("media-session-v2.json: %v", err)
	}
	if c.SchemaVersion != 1 || c.ProtocolVersion != 2 {
		t.Fatalf("media-session-v2.json: schema %d protocol %d, want 1 and 2", c.SchemaVersion, c.ProtocolVersion)
	}
	if len(c.MicrophoneScenario) == 0 || len(c.SpeakerScenario) == 0 || len(c.CreditBoundaries) == 0 {
		t.Fatal("media-session-v2.json: a section is empty")
	}
	return c
}

func (s contractStep) wantResult(t *testing.T) string {
	t.Helper()
	var want string
	if err := json.Unmarshal(s.Expected, &want); err != nil {
		t.Fatalf("%s: expected %s is not a result string", s.Operation, s.Expected)
	}
	return want
}

func TestContractMicrophone(t *testing.T) {
	for _, sc := range loadMediaContract(t).MicrophoneScenario {
		t.Run(sc.Name, func(t *testing.T) {
			var g MicGuard
			for i, st := range sc.Steps {
				var got Result
				switch st.Operation {
				case "start":
					got = g.Start(st.StreamID, st.SampleRate, st.PayloadBytes, false).Result
				case "stop":
					got = g.Stop(st.StreamID, st.SampleRate, st.PayloadBytes).Result
				case "forceStop":
					s, _ := g.ForceStop(wire.ErrAudioOutput)
					if st.ExpectedStreamID == nil || s.StreamID != *st.ExpectedStreamID {
						t.Fatalf("step %d forceStop stopped %d, want %v", i, s.StreamID, st.ExpectedStreamID)
					}
					continue
				case "reset":
					g.Reset()
					continue
				default:
					t.Fatalf("step %d: unknown operation %q", i, st.Operation)
				}
				if want := st.wantResult(t); got.String() != want {
					t.Fatalf("step %d %s(%d) = %v, want %s", i, st.Operation, st.StreamID, got, want)
				}
			}
		})
	}
}

func TestContractSpeaker(t *testing.T) {
	for _, sc := range loadMediaContract(t).SpeakerScenario {
		t.Run(sc.Name, func(t *testing.T) {
			var g SpeakerGuard
			for i, st := range sc.Steps {
				var got Result
				switch st.Operation {
				case "start":
					got = g.Start(st.StreamID, st.SampleRate, st.PayloadBytes, false).Result
				case "end":
					got = g.End(st.StreamID, st.SampleRate, st.PayloadBytes).Result
				case "abort":
					got = g.Abort(st.StreamID, st.SampleRate, st.PayloadBytes).Result
				case "validateData":
					got, _ = g.ValidateData(st.StreamID, st.SampleRate, g.ExpectedSequence(), st.PayloadBytes)
				case "clear":
					var want bool
					if err := json.Unmarshal(st.Expected, &want); err != nil {
						t.Fatalf("step %d clear: expected %s is not a boolean", i, st.Expected)
					}
					if got := g.Clear(st.StreamID); got != want {
						t.Fatalf("step %d clear(%d) = %v, want %v", i, st.StreamID, got, want)
					}
					continue
				case "forceStop":
					s, _ := g.ForceStop(wire.ErrAudioOutput)
					if st.ExpectedStreamID == nil || s.StreamID != *st.ExpectedStreamID {
						t.Fatalf("step %d forceStop stopped %d, want %v", i, s.StreamID, st.ExpectedStreamID)
					}
					if st.ExpectedSampleRate != nil && s.SampleRate != *st.ExpectedSampleRate {
						t.Fatalf("step %d forceStop stopped rate %d, want %d", i, s.SampleRate, *st.ExpectedSampleRate)
					}
					continue
				case "reset":
					g.Reset()
					continue
				default:
					t.Fatalf("step %d: unknown operation %q", i, st.Operation)
				}
				if want := st.wantResult(t); got.String() != want {
					t.Fatalf("step %d %s(%d@%d, %d bytes) = %v, want %s", i, st.Operation, st.StreamID, st.SampleRate, st.PayloadBytes, got, want)
				}
			}
		})
	}
}

func TestContractCreditBoundaries(t *testing.T) {
	for _, cb := range loadMediaContract(t).CreditBoundaries {
		if got := WithinCredit(cb.PayloadBytes, cb.Outstanding); got != cb.Accepted {
			t.Errorf("WithinCredit(%d, %d) = %v, want %v", cb.PayloadBytes, cb.Outstanding, got, cb.Accepted)
		}
		// The guard must draw the same line with real outstanding credit.
		var g SpeakerGuard
		g.Start(1, 24000, 0, false)
		if g.Outstanding() != CreditWindow {
			t.Fatalf("initial outstanding = %d, want %d", g.Outstanding(), CreditWindow)
		}
		if cb.Outstanding < CreditWindow {
			// Use up credit down to the boundary's outstanding value.
			g.PCM(1, 24000, 0, CreditWindow-cb.Outstanding)
			g.outstanding = cb.Outstanding // hold it there: no playback top-up
		}
		res, _ := g.ValidateData(1, 24000, g.ExpectedSequence(), cb.PayloadBytes)
		if (res == Accepted) != cb.Accepted {
			t.Errorf("guard with %d outstanding: %d bytes = %v, want accepted=%v", cb.Outstanding, cb.PayloadBytes, res, cb.Accepted)
		}
	}
}
