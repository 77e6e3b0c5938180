package wire

import (
	"bytes"
	"errors"
	"hash/crc32"
	"strings"
	"testing"
)

func errorsIs(err, target error) bool { return errors.Is(err, target) }

func framesEqual(a, b Frame) bool {
	return a.Type == b.Type && a.Flags == b.Flags && a.StreamID == b.StreamID &&
		a.Sequence == b.Sequence && a.SampleRate == b.SampleRate && bytes.Equal(a.Payload, b.Payload)
}

// parseAll feeds in at once and returns copies of every frame emitted.
func parseAll(in []byte) []Frame {
	var p Parser
	p.Feed(in)
	return drain(&p, nil)
}

func drain(p *Parser, out []Frame) []Frame {
	for f, ok := p.Next(); ok; f, ok = p.Next() {
		f.Payload = bytes.Clone(f.Payload)
		out = append(out, f)
	}
	return out
}

func hexNoSpace(s string) string { return strings.ReplaceAll(s, " ", "") }

// TestSpecExampleEncodings pins the §2.1 table byte for byte, built with
// the constructors the session code uses.
func TestSpecExampleEncodings(t *testing.T) {
	credit := SpeakerCreditFrame(2, 3, 24000, 8192)
	tests := []struct {
		name string
		f    Frame
		hex  string
	}{
		{"HELLO 0xF7F", HelloFrame(0, HelloPayload{4096, FirmwareCaps}), "4353 02 00 0100 0000 00000000 00000000 08000000 00100000 7f0f0000 82292f6d"},
		{"HELLO host", HelloFrame(0, HostHello), "4353 02 00 0100 0000 00000000 00000000 08000000 00100000 270f0000 cf0e9663"},
		{"HELLO_ACK", HelloAckFrame(0, HelloPayload{4096, FirmwareCaps}), "4353 02 00 0200 0000 00000000 00000000 08000000 00100000 7f0f0000 aa803135"},
		{"MIC_START", MicStartFrame(1, 1), "4353 02 00 1000 0100 01000000 803e0000 00000000 0b84a626"},
		{"MIC_STARTED", MicStartedFrame(1, 0), "4353 02 00 1100 0100 00000000 803e0000 00000000 f5596b13"},
		{"SPEAKER_START", SpeakerStartFrame(2, 0, 24000), "4353 02 00 2000 0200 00000000 c05d0000 00000000 c93cb9a3"},
		{"SPEAKER_CREDIT", credit, "4353 02 00 2100 0200 03000000 c05d0000 04000000 00200000 6942008d"},
		{"SPEAKER_END", SpeakerEndFrame(2, 9, 24000), "4353 02 00 2200 0200 09000000 c05d0000 00000000 3b23b0b9"},
		{"ERROR BUSY", ErrorFrame(2, 0, ErrBusy), "4353 02 00 0300 0200 00000000 00000000 04000000 05000000 fd2ee798"},
		{"STATUS LISTENING", StatusFrame(5, StatusListening), "4353 02 00 3000 0000 05000000 00000000 01000000 03 0f2a6c40"},
		{"SPEAKER_PCM golden", Frame{Type: TypeSpeakerPCM, Flags: 32, StreamID: 1, Sequence: 42, SampleRate: 24000, Payload: []byte{1, 2, 3, 4}}, "4353 02 02 2000 0100 2a000000 c05d0000 04000000 01020304 a2b25483"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := unhex(t, hexNoSpace(tt.hex))
			got, err := AppendFrame([]byte{0xAA}, tt.f) // non-empty dst: CRC must cover only the frame
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got[1:], want) {
				t.Fatalf("AppendFrame = %x\nwant          %x", got[1:], want)
			}
			back, n, err := DecodeFrame(want)
			if err != nil || n != len(want) || !framesEqual(back, tt.f) {
				t.Fatalf("DecodeFrame = %+v, %d, %v; want %+v", back, n, err, tt.f)
			}
			if _, err := DecodeControl(back); back.Type == TypeControl && err != nil {
				t.Fatalf("DecodeControl: %v", err)
			}
		})
	}
}

func TestCRCCheckValue(t *testing.T) {
	if got := crc32.ChecksumIEEE([]byte("123456789")); got != 0xCBF43926 {
		t.Fatalf("crc32(123456789) = %#x, want 0xcbf43926", got)
	}
}

func TestAppendFrameRejects(t *testing.T) {
	tests := []struct {
		name string
		f    Frame
		want error
	}{
		{"payload 4097", Frame{Type: TypeSpeakerPCM, Payload: make([]byte, MaxPayload+1)}, ErrPayloadTooLarge},
		{"type 7", Frame{Type: 7}, ErrInvalidType},
	}
	for _, tt := range tests {
		dst := []byte{1, 2}
		got, err := AppendFrame(dst, tt.f)
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: error %v, want %v", tt.name, err, tt.want)
		}
		if !bytes.Equal(got, dst) {
			t.Errorf("%s: dst changed to %x on error", tt.name, got)
		}
	}
	if b, err := AppendFrame(nil, Frame{Type: TypeSpeakerPCM, Payload: make([]byte, MaxPayload)}); err != nil || len(b) != MaxFrame {
		t.Errorf("max payload: %d bytes, %v; want %d", len(b), err, MaxFrame)
	}
}

func TestCheckStreamID(t *testing.T) {
	for _, tt := range []struct {
		in int
		ok bool
	}{{0, true}, {1, true}, {65535, true}, {-1, false}, {65536, false}} {
		id, err := CheckStreamID(tt.in)
		if (err == nil) != tt.ok || (tt.ok && int(id) != tt.in) {
			t.Errorf("CheckStreamID(%d) = %d, %v; want ok %v", tt.in, id, err, tt.ok)
		}
	}
}

func TestDecodeFrameErrors(t *testing.T) {
	good, _ := AppendFrame(nil, Frame{Type: TypeEvent, Flags: 3, StreamID: 9, Payload: []byte("{}")})
	mut := func(i int, b byte) []byte { c := bytes.Clone(good); c[i] = b; return c }
	tests := []struct {
		name string
		in   []byte
		want error
	}{
		{"short", good[:10], ErrShortFrame},
		{"truncated payload", good[:len(good)-1], ErrShortFrame},
		{"magic", mut(0, 0x44), ErrBadMagic},
		{"version 1", mut(2, 1), ErrBadVersion},
		{"type 7", mut(3, 7), ErrInvalidType},
		{"length 4097", append(bytes.Clone(good[:16]), 0x01, 0x10, 0, 0, 0, 0, 0, 0), ErrPayloadTooLarge},
		{"crc", mut(len(good)-1, good[len(good)-1]^1), ErrCRCMismatch},
		{"payload bit", mut(HeaderSize, '['), ErrCRCMismatch},
	}
	for _, tt := range tests {
		if _, n, err := DecodeFrame(tt.in); !errors.Is(err, tt.want) || n != 0 {
			t.Errorf("%s: DecodeFrame = %d, %v; want %v", tt.name, n, err, tt.want)
		}
	}
	// A decoded payload must not be appendable over the CRC.
	f, _, _ := DecodeFrame(good)
	if cap(f.Payload) != len(f.Payload) {
		t.Errorf("payload cap %d > len %d: an append would clobber the CRC", cap(f.Payload), len(f.Payload))
	}
}

func TestNames(t *testing.T) {
	tests := []struct{ got, want string }{
		{TypeSpeakerPCM.String(), "SPEAKER_PCM"},
		{Type(9).String(), "TYPE(9)"},
		{CtrlSpeakerCredit.String(), "SPEAKER_CREDIT"},
		{Control(99).String(), "CONTROL(99)"},
		{ErrBusy.String(), "BUSY"},
		{ErrorCode(0).String(), "ERROR(0)"},
		{StatusListening.String(), "LISTENING"},
		{Status(6).String(), "STATUS(6)"},
		{(CapMicPCM | CapEvent | 1<<20).String(), "MICROPHONE_PCM|EVENT|BIT_20"},
		{Caps(0).String(), "0"},
		{SkipCRC.String(), "crc mismatch"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
	if n := len(HostCaps.Names()); n != 8 {
		t.Errorf("HostCaps has %d names, want 8", n)
	}
	if !CtrlStatus.Known() || Control(4).Known() {
		t.Error("Known is wrong for STATUS or code 4")
	}
}
