package wire

import (
	"errors"
	"strings"
	"testing"
)

func TestDecodeControl(t *testing.T) {
	text, err := SpeakerTextFrame(2, 1, 24000, []byte("こんにちは"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		f    Frame
		want ControlPayload
		err  error
	}{
		{"hello", HelloFrame(0, HostHello), ControlPayload{Code: CtrlHello, Hello: HostHello}, nil},
		{"hello ack", HelloAckFrame(0, HelloPayload{640, FirmwareCaps}), ControlPayload{Code: CtrlHelloAck, Hello: HelloPayload{640, FirmwareCaps}}, nil},
		{"credit", SpeakerCreditFrame(2, 0, 24000, 8192), ControlPayload{Code: CtrlSpeakerCredit, Credit: 8192}, nil},
		{"error", ErrorFrame(3, 0, ErrSpeakerSequenceMismatch), ControlPayload{Code: CtrlError, Error: ErrSpeakerSequenceMismatch}, nil},
		{"status", StatusFrame(0, StatusError), ControlPayload{Code: CtrlStatus, Status: StatusError}, nil},
		{"mic stop", MicStopFrame(4, 0), ControlPayload{Code: CtrlMicStop}, nil},
		{"abort", SpeakerAbortFrame(4, 0, 8000), ControlPayload{Code: CtrlSpeakerAbort}, nil},
		{"done", SpeakerDoneFrame(4, 0, 8000), ControlPayload{Code: CtrlSpeakerDone}, nil},
		{"stopped", MicStoppedFrame(4, 0), ControlPayload{Code: CtrlMicStopped}, nil},
		{"text", text, ControlPayload{Code: CtrlSpeakerText, Text: text.Payload}, nil},
		{"short hello", ControlFrame(CtrlHello, 0, 0, 0, make([]byte, 7)), ControlPayload{Code: CtrlHello}, ErrBadControlPayload},
		{"long credit", ControlFrame(CtrlSpeakerCredit, 1, 0, 0, make([]byte, 5)), ControlPayload{Code: CtrlSpeakerCredit}, ErrBadControlPayload},
		{"empty error", ControlFrame(CtrlError, 0, 0, 0, nil), ControlPayload{Code: CtrlError}, ErrBadControlPayload},
		{"status 6", ControlFrame(CtrlStatus, 0, 0, 0, []byte{6}), ControlPayload{Code: CtrlStatus}, ErrBadControlPayload},
		{"status 2 bytes", ControlFrame(CtrlStatus, 0, 0, 0, []byte{1, 0}), ControlPayload{Code: CtrlStatus}, ErrBadControlPayload},
		{"mic start payload", ControlFrame(CtrlMicStart, 1, 0, 16000, []byte{0}), ControlPayload{Code: CtrlMicStart}, ErrBadControlPayload},
		{"empty text", ControlFrame(CtrlSpeakerText, 1, 0, 0, nil), ControlPayload{Code: CtrlSpeakerText}, ErrBadControlPayload},
		{"bad utf8 text", ControlFrame(CtrlSpeakerText, 1, 0, 0, []byte{0xff}), ControlPayload{Code: CtrlSpeakerText}, ErrBadControlPayload},
		{"unknown", ControlFrame(Control(4), 0, 0, 0, nil), ControlPayload{Code: 4}, ErrUnknownControl},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeControl(tt.f)
			if !errors.Is(err, tt.err) || (tt.err == nil && err != nil) {
				t.Fatalf("error %v, want %v", err, tt.err)
			}
			if got.Code != tt.want.Code || got.Hello != tt.want.Hello || got.Credit != tt.want.Credit ||
				got.Error != tt.want.Error || got.Status != tt.want.Status || string(got.Text) != string(tt.want.Text) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	if _, err := DecodeControl(Frame{Type: TypeEvent}); err == nil {
		t.Error("DecodeControl accepted an EVENT frame")
	}
}

func TestSpeakerTextFrameRejects(t *testing.T) {
	for _, text := range [][]byte{nil, []byte(strings.Repeat("a", MaxCaption+1)), {0xc3}} {
		if _, err := SpeakerTextFrame(1, 0, 24000, text); err == nil {
			t.Errorf("SpeakerTextFrame(%d bytes) accepted", len(text))
		}
	}
	if _, err := SpeakerTextFrame(1, 0, 24000, []byte(strings.Repeat("a", MaxCaption))); err != nil {
		t.Errorf("1024-byte caption refused: %v", err)
	}
}
