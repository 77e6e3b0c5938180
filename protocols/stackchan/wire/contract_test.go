package wire

// Contract tests: the vectors of spec §22.1, §22.2 and §22.4, as vendored
// (and hash-pinned) by contracttest.

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"github.com/claude-pi/claude-pi/protocols/stackchan/contracttest"
	"testing"
)

func loadContract(t testing.TB, name string, v any) {
	t.Helper()
	if err := json.Unmarshal(contracttest.Read(t, name), v); err != nil {
		t.Fatalf("contracts: %s: %v", name, err)
	}
}

type vectorFrame struct {
	Type       uint8  `json:"type"`
	Flags      uint16 `json:"flags"`
	StreamID   uint16 `json:"streamId"`
	Sequence   uint32 `json:"sequence"`
	SampleRate uint32 `json:"sampleRate"`
	PayloadHex string `json:"payloadHex"`
}

type testVectors struct {
	Schema          string `json:"schema"`
	ProtocolVersion int    `json:"protocolVersion"`
	ValidFrames     []struct {
		Name       string      `json:"name"`
		Frame      vectorFrame `json:"frame"`
		EncodedHex string      `json:"encodedHex"`
	} `json:"validFrames"`
	InvalidFrames []struct {
		Name       string `json:"name"`
		Reason     string `json:"reason"`
		EncodedHex string `json:"encodedHex"`
	} `json:"invalidFrames"`
}

func loadTestVectors(t testing.TB) testVectors {
	var v testVectors
	loadContract(t, "test-vectors.json", &v)
	if v.ProtocolVersion != Version || len(v.ValidFrames) == 0 || len(v.InvalidFrames) == 0 {
		t.Fatalf("test-vectors.json: protocol %d, %d valid, %d invalid: not the file we expect", v.ProtocolVersion, len(v.ValidFrames), len(v.InvalidFrames))
	}
	return v
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("hex %q: %v", s, err)
	}
	return b
}

func (v vectorFrame) frame(t testing.TB) Frame {
	return Frame{Type: Type(v.Type), Flags: v.Flags, StreamID: v.StreamID, Sequence: v.Sequence, SampleRate: v.SampleRate, Payload: unhex(t, v.PayloadHex)}
}

// vectorFrames maps names to (frame, encoding) for the parser scenarios.
func vectorFrames(t testing.TB) map[string][2][]byte {
	v := loadTestVectors(t)
	m := map[string][2][]byte{}
	for _, f := range v.ValidFrames {
		m[f.Name] = [2][]byte{unhex(t, f.Frame.PayloadHex), unhex(t, f.EncodedHex)}
	}
	for _, f := range v.InvalidFrames {
		m[f.Name] = [2][]byte{nil, unhex(t, f.EncodedHex)}
	}
	return m
}

func TestContractValidFrames(t *testing.T) {
	for _, vf := range loadTestVectors(t).ValidFrames {
		t.Run(vf.Name, func(t *testing.T) {
			want := vf.Frame.frame(t)
			enc := unhex(t, vf.EncodedHex)
			got, err := AppendFrame(nil, want)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, enc) {
				t.Fatalf("AppendFrame = %x, want %x", got, enc)
			}
			dec, n, err := DecodeFrame(enc)
			if err != nil || n != len(enc) {
				t.Fatalf("DecodeFrame = %d, %v; want %d bytes", n, err, len(enc))
			}
			if !framesEqual(dec, want) {
				t.Fatalf("DecodeFrame = %+v, want %+v", dec, want)
			}
			frames := parseAll(enc)
			if len(frames) != 1 || !framesEqual(frames[0], want) {
				t.Fatalf("parser gave %+v, want exactly %+v", frames, want)
			}
		})
	}
}

func TestContractInvalidFrames(t *testing.T) {
	for _, inv := range loadTestVectors(t).InvalidFrames {
		t.Run(inv.Name, func(t *testing.T) {
			enc := unhex(t, inv.EncodedHex)
			if inv.Reason != "crc_mismatch" {
				t.Fatalf("reason %q: this test knows only crc_mismatch", inv.Reason)
			}
			if _, _, err := DecodeFrame(enc); !errorsIs(err, ErrCRCMismatch) {
				t.Fatalf("DecodeFrame error = %v, want %v", err, ErrCRCMismatch)
			}
			var p Parser
			p.Feed(enc)
			if f, ok := p.Next(); ok {
				t.Fatalf("parser emitted %+v from an invalid frame", f)
			}
			if p.Stats().CRCErrors != 1 {
				t.Fatalf("stats = %+v, want one CRC error", p.Stats())
			}
		})
	}
}

type parserScenarios struct {
	ParserScenarios struct {
		FragmentFrame   string   `json:"fragmentFrame"`
		CoalescedFrames []string `json:"coalescedFrames"`
		CRCCorruptFrame string   `json:"crcCorruptFrame"`
		RecoveryFrame   string   `json:"recoveryFrame"`
	} `json:"parserScenarios"`
	// eventSequenceMismatch belongs to the event package's tests.
}

func TestContractParserScenarios(t *testing.T) {
	var s parserScenarios
	loadContract(t, "parser-scenarios-v2.json", &s)
	ps := s.ParserScenarios
	vf := vectorFrames(t)
	get := func(name string) [2][]byte {
		v, ok := vf[name]
		if !ok {
			t.Fatalf("scenario names unknown vector %q", name)
		}
		return v
	}

	t.Run("fragmentFrame", func(t *testing.T) {
		v := get(ps.FragmentFrame)
		enc := v[1]
		var p Parser
		for i, piece := range [][]byte{enc[:5], enc[5:17], enc[17:]} {
			p.Feed(piece)
			f, ok := p.Next()
			if last := i == 2; ok != last {
				t.Fatalf("after piece %d: frame = %v, want %v", i, ok, last)
			}
			if ok && !bytes.Equal(f.Payload, v[0]) {
				t.Fatalf("payload %x, want %x", f.Payload, v[0])
			}
		}
	})

	t.Run("coalescedFrames", func(t *testing.T) {
		var in []byte
		for _, n := range ps.CoalescedFrames {
			in = append(in, get(n)[1]...)
		}
		frames := parseAll(in)
		if len(frames) != len(ps.CoalescedFrames) {
			t.Fatalf("got %d frames, want %d", len(frames), len(ps.CoalescedFrames))
		}
		for i, n := range ps.CoalescedFrames {
			if !bytes.Equal(frames[i].Payload, get(n)[0]) {
				t.Fatalf("frame %d payload %x, want %s's %x", i, frames[i].Payload, n, get(n)[0])
			}
		}
	})

	t.Run("crcCorruptThenRecover", func(t *testing.T) {
		in := append([]byte{0xff, 0x00}, get(ps.CRCCorruptFrame)[1]...)
		in = append(in, get(ps.RecoveryFrame)[1]...)
		frames := parseAll(in)
		if len(frames) != 1 || !bytes.Equal(frames[0].Payload, get(ps.RecoveryFrame)[0]) {
			t.Fatalf("got %+v, want only %s", frames, ps.RecoveryFrame)
		}
	})
}

type negotiationVectors struct {
	CapabilityBits struct {
		Event          Caps `json:"event"`
		StatusExtended Caps `json:"statusExtended"`
	} `json:"capabilityBits"`
	HelloPayloads []struct {
		Name         string `json:"name"`
		MaxPayload   uint32 `json:"maxPayload"`
		Capabilities Caps   `json:"capabilities"`
		PayloadHex   string `json:"payloadHex"`
	} `json:"helloPayloads"`
	ConnectionPolicy []struct {
		Dock                    string `json:"dock"`
		FirmwareAdvertisesEvent bool   `json:"firmwareAdvertisesEvent"`
		ConnectionAllowed       bool   `json:"connectionAllowed"`
	} `json:"connectionPolicy"`
	EventNegotiation []struct {
		DockAdvertisesEvent     bool `json:"dockAdvertisesEvent"`
		FirmwareAdvertisesEvent bool `json:"firmwareAdvertisesEvent"`
		Expected                struct {
			DockMaySendEvent             bool `json:"dockMaySendEvent"`
			FirmwareMaySendEvent         bool `json:"firmwareMaySendEvent"`
			ConversationControlAvailable bool `json:"conversationControlAvailable"`
		} `json:"expected"`
	} `json:"eventNegotiation"`
	ExtendedStatusNegotiation []struct {
		FirmwareAdvertisesStatusExtended  bool `json:"firmwareAdvertisesStatusExtended"`
		ExpectedDockMaySendExtendedStatus bool `json:"expectedDockMaySendExtendedStatus"`
	} `json:"extendedStatusNegotiation"`
}

func loadNegotiation(t testing.TB) negotiationVectors {
	var v negotiationVectors
	loadContract(t, "negotiation-vectors.json", &v)
	if len(v.HelloPayloads) == 0 || len(v.ConnectionPolicy) == 0 || len(v.EventNegotiation) == 0 || len(v.ExtendedStatusNegotiation) == 0 {
		t.Fatal("negotiation-vectors.json: a section is empty")
	}
	return v
}

func TestContractNegotiation(t *testing.T) {
	v := loadNegotiation(t)
	if v.CapabilityBits.Event != CapEvent || v.CapabilityBits.StatusExtended != CapStatusExtended {
		t.Fatalf("capabilityBits = %+v, want event %d statusExtended %d", v.CapabilityBits, CapEvent, CapStatusExtended)
	}
	sawHost := false
	for _, h := range v.HelloPayloads {
		hp := HelloPayload{MaxPayload: h.MaxPayload, Caps: h.Capabilities}
		want := unhex(t, h.PayloadHex)
		if got := hp.Append(nil); !bytes.Equal(got, want) {
			t.Errorf("%s: payload %x, want %x", h.Name, got, want)
		}
		if back, err := ParseHelloPayload(want); err != nil || back != hp {
			t.Errorf("%s: ParseHelloPayload = %+v, %v; want %+v", h.Name, back, err, hp)
		}
		if h.Name == "codex-dock-host" {
			sawHost = true
			if HostHello != hp {
				t.Errorf("HostHello = %+v, want the codex-dock-host vector %+v", HostHello, hp)
			}
		}
		if h.Name == "required-audio-only" && h.Capabilities != HostRequiredCaps {
			t.Errorf("HostRequiredCaps = %#x, vector says %#x", HostRequiredCaps, h.Capabilities)
		}
	}
	if !sawHost {
		t.Error("no codex-dock-host hello vector")
	}
	policies := map[string]Policy{"android": PolicyAudioOnly, "codex": PolicyEventRequired}
	for _, row := range v.ConnectionPolicy {
		p, ok := policies[row.Dock]
		if !ok {
			t.Fatalf("connectionPolicy: unknown dock %q", row.Dock)
		}
		fw := FirmwareCaps &^ CapEvent
		if row.FirmwareAdvertisesEvent {
			fw |= CapEvent
		}
		if got := p.ConnectionAllowed(fw); got != row.ConnectionAllowed {
			t.Errorf("%s.ConnectionAllowed(event=%v) = %v, want %v", p, row.FirmwareAdvertisesEvent, got, row.ConnectionAllowed)
		}
	}
	for _, row := range v.EventNegotiation {
		host, fw := capsWithEvent(HostCaps, row.DockAdvertisesEvent), capsWithEvent(FirmwareCaps, row.FirmwareAdvertisesEvent)
		h, f, both := EventDirections(host, fw)
		e := row.Expected
		if h != e.DockMaySendEvent || f != e.FirmwareMaySendEvent || both != e.ConversationControlAvailable {
			t.Errorf("EventDirections(%v, %v) = %v %v %v, want %+v", row.DockAdvertisesEvent, row.FirmwareAdvertisesEvent, h, f, both, e)
		}
		n, err := CheckHelloAck(HelloAckFrame(0, HelloPayload{MaxPayload, fw}), host, HostRequiredCaps)
		if err != nil {
			t.Fatal(err)
		}
		if n.Event != e.ConversationControlAvailable {
			t.Errorf("Negotiated.Event = %v, want %v", n.Event, e.ConversationControlAvailable)
		}
	}
	for _, row := range v.ExtendedStatusNegotiation {
		fw := FirmwareCaps &^ CapStatusExtended
		if row.FirmwareAdvertisesStatusExtended {
			fw |= CapStatusExtended
		}
		n, err := CheckHelloAck(HelloAckFrame(0, HelloPayload{MaxPayload, fw}), HostCaps, HostRequiredCaps)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := n.StatusToSend(StatusListening)
		if may := ok && got == StatusListening; may != row.ExpectedDockMaySendExtendedStatus || n.StatusExtended != may {
			t.Errorf("extended=%v: StatusToSend(LISTENING) = %v %v, want may send %v", row.FirmwareAdvertisesStatusExtended, got, ok, row.ExpectedDockMaySendExtendedStatus)
		}
	}
}

func capsWithEvent(c Caps, event bool) Caps {
	if event {
		return c | CapEvent
	}
	return c &^ CapEvent
}
