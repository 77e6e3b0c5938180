package wire

import (
	"errors"
	"testing"
)

func TestCheckHelloAck(t *testing.T) {
	ack := func(maxPayload uint32, caps Caps) Frame { return HelloAckFrame(7, HelloPayload{maxPayload, caps}) }
	wrongStream := ack(4096, FirmwareCaps)
	wrongStream.StreamID = 1
	tests := []struct {
		name string
		f    Frame
		want Negotiated
		ok   bool
	}{
		{"release firmware", ack(4096, FirmwareCaps), Negotiated{MaxPayload: 4096, Own: HostCaps, Peer: FirmwareCaps, Event: true, StatusIcon: true, StatusExtended: true}, true},
		{"min payload", ack(640, HostRequiredCaps), Negotiated{MaxPayload: 640, Own: HostCaps, Peer: HostRequiredCaps}, true},
		{"icon only", ack(4096, HostRequiredCaps|CapStatusIcon), Negotiated{MaxPayload: 4096, Own: HostCaps, Peer: HostRequiredCaps | CapStatusIcon, StatusIcon: true}, true},
		// Extended without the icon bit is not enough: values 3–5 need 8 and 11.
		{"extended without icon", ack(4096, HostRequiredCaps|CapStatusExtended), Negotiated{MaxPayload: 4096, Own: HostCaps, Peer: HostRequiredCaps | CapStatusExtended}, true},
		{"max 639", ack(639, FirmwareCaps), Negotiated{}, false},
		{"max 4097", ack(4097, FirmwareCaps), Negotiated{}, false},
		{"no stream id bit", ack(4096, FirmwareCaps&^CapStreamID), Negotiated{}, false},
		{"no 24k", ack(4096, FirmwareCaps&^CapSpeaker24k), Negotiated{}, false},
		{"stream 1", wrongStream, Negotiated{}, false},
		{"7-byte payload", ControlFrame(CtrlHelloAck, 0, 0, 0, make([]byte, 7)), Negotiated{}, false},
		{"HELLO instead", HelloFrame(0, HostHello), Negotiated{}, false},
		{"not control", Frame{Type: TypeEvent, Flags: uint16(CtrlHelloAck)}, Negotiated{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CheckHelloAck(tt.f, HostCaps, HostRequiredCaps)
			if (err == nil) != tt.ok {
				t.Fatalf("error %v, want ok %v", err, tt.ok)
			}
			var he *HandshakeError
			if err != nil && (!errors.As(err, &he) || he.Code != ErrInvalidRequest) {
				t.Fatalf("error %v is not a HandshakeError with INVALID_REQUEST", err)
			}
			if got != tt.want {
				t.Fatalf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
	if _, err := CheckHelloAck(ack(4096, HostRequiredCaps), HostCaps, EventRequiredCaps); err == nil {
		t.Error("EVENT-required host accepted firmware without EVENT")
	}
}

func TestCheckHello(t *testing.T) {
	hello := func(maxPayload uint32, caps Caps) Frame { return HelloFrame(0, HelloPayload{maxPayload, caps}) }
	onStream := hello(4096, HostCaps)
	onStream.StreamID = 3
	tests := []struct {
		name    string
		f       Frame
		wantMax uint32
		event   bool
		ok      bool
	}{
		{"our host", hello(4096, HostCaps), 4096, true, true},
		{"big max clamps", hello(1<<20, HostCaps), 4096, true, true},
		{"android 640", hello(640, 0x37F), 640, false, true},
		{"max 639", hello(639, HostCaps), 0, false, false},
		{"no stream id", hello(4096, HostCaps&^CapStreamID), 0, false, false},
		{"stream 3", onStream, 0, false, false},
		{"9 bytes", ControlFrame(CtrlHello, 0, 0, 0, make([]byte, 9)), 0, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := CheckHello(tt.f, FirmwareCaps)
			if (err == nil) != tt.ok {
				t.Fatalf("error %v, want ok %v", err, tt.ok)
			}
			if !tt.ok {
				var he *HandshakeError
				if !errors.As(err, &he) || he.Code != ErrInvalidRequest {
					t.Fatalf("error %v: want HandshakeError INVALID_REQUEST", err)
				}
				return
			}
			if n.MaxPayload != tt.wantMax || n.Event != tt.event || n.Ack() != (HelloPayload{tt.wantMax, FirmwareCaps}) {
				t.Fatalf("got %+v, ack %+v; want max %d event %v", n, n.Ack(), tt.wantMax, tt.event)
			}
			// Status gating on the firmware side uses its own bits.
			if !n.StatusExtended {
				t.Fatal("firmware with 0xF7F must allow extended status")
			}
		})
	}
}

func TestStatusToSend(t *testing.T) {
	icon := Negotiated{StatusIcon: true}
	ext := Negotiated{StatusIcon: true, StatusExtended: true}
	tests := []struct {
		name string
		n    Negotiated
		in   Status
		out  Status
		ok   bool
	}{
		{"no icon", Negotiated{}, StatusSpeaking, 0, false},
		{"icon speaking", icon, StatusSpeaking, StatusSpeaking, true},
		{"icon listening degrades", icon, StatusListening, StatusIdle, true},
		{"icon error degrades", icon, StatusError, StatusIdle, true},
		{"ext listening", ext, StatusListening, StatusListening, true},
		{"ext error", ext, StatusError, StatusError, true},
		{"out of range", ext, 6, 0, false},
	}
	for _, tt := range tests {
		if out, ok := tt.n.StatusToSend(tt.in); out != tt.out || ok != tt.ok {
			t.Errorf("%s: StatusToSend(%s) = %s %v, want %s %v", tt.name, tt.in, out, ok, tt.out, tt.ok)
		}
	}
}

func TestFirmwareCheckStatus(t *testing.T) {
	onStream := StatusFrame(0, StatusIdle)
	onStream.StreamID = 1
	withRate := StatusFrame(0, StatusIdle)
	withRate.SampleRate = 16000
	tests := []struct {
		name string
		f    Frame
		own  Caps
		ok   bool
	}{
		{"idle", StatusFrame(0, StatusIdle), FirmwareCaps, true},
		{"error ext", StatusFrame(0, StatusError), FirmwareCaps, true},
		{"listening no ext", StatusFrame(0, StatusListening), FirmwareCaps &^ CapStatusExtended, false},
		{"speaking no ext", StatusFrame(0, StatusSpeaking), FirmwareCaps &^ CapStatusExtended, true},
		{"value 6", ControlFrame(CtrlStatus, 0, 0, 0, []byte{6}), FirmwareCaps, false},
		{"stream 1", onStream, FirmwareCaps, false},
		{"rate", withRate, FirmwareCaps, false},
		{"empty", ControlFrame(CtrlStatus, 0, 0, 0, nil), FirmwareCaps, false},
	}
	for _, tt := range tests {
		if _, err := FirmwareCheckStatus(tt.f, tt.own); (err == nil) != tt.ok {
			t.Errorf("%s: error %v, want ok %v", tt.name, err, tt.ok)
		}
	}
}

func TestPolicyNames(t *testing.T) {
	if PolicyAudioOnly.String() != "android" || PolicyEventRequired.String() != "codex" {
		t.Fatal("policy names must match the contract's dock field")
	}
	if !PolicyAudioOnly.ConnectionAllowed(HostRequiredCaps) || PolicyEventRequired.ConnectionAllowed(HostRequiredCaps) {
		t.Fatal("audio-only firmware: android allows, codex refuses")
	}
}
