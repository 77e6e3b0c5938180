package cli

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/claude-pi/claude-pi/protocols/stackchan/contracttest"

	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// wireContractFrames loads the vendored test-vectors.json (contracttest
// checks its pinned hash).
func wireContractFrames(t *testing.T) (valid []map[string]any, encoded [][]byte, invalid [][]byte) {
	t.Helper()
	b := contracttest.Read(t, "test-vectors.json")
	var v struct {
		ValidFrames []struct {
			Frame      map[string]any `json:"frame"`
			EncodedHex string         `json:"encodedHex"`
		} `json:"validFrames"`
		InvalidFrames []struct {
			EncodedHex string `json:"encodedHex"`
		} `json:"invalidFrames"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	for _, f := range v.ValidFrames {
		e, err := hex.DecodeString(f.EncodedHex)
		if err != nil {
			t.Fatal(err)
		}
		valid, encoded = append(valid, f.Frame), append(encoded, e)
	}
	for _, f := range v.InvalidFrames {
		e, err := hex.DecodeString(f.EncodedHex)
		if err != nil {
			t.Fatal(err)
		}
		invalid = append(invalid, e)
	}
	if len(valid) == 0 || len(invalid) == 0 {
		t.Fatal("test-vectors.json has no frames")
	}
	return valid, encoded, invalid
}

func runWire(t *testing.T, stdin []byte, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err = run(context.Background(), append([]string{"wire"}, args...), bytes.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), err
}

// TestWireDecodeContract: every valid vector decodes to its contract frame
// object (the extra keys aside), in both raw and hex input modes.
func TestWireDecodeContract(t *testing.T) {
	valid, encoded, _ := wireContractFrames(t)
	raw := bytes.Join(encoded, nil)
	hexIn := []byte(" " + strings.Join(strings.Split(hex.EncodeToString(raw), ""), "\n") + "\n") // whitespace everywhere
	for _, mode := range []struct {
		name string
		in   []byte
		args []string
	}{{"raw", raw, []string{"decode"}}, {"hex", hexIn, []string{"decode", "--hex"}}} {
		out, stderr, err := runWire(t, mode.in, mode.args...)
		if err != nil || stderr != "" {
			t.Fatalf("%s: err %v, stderr %q", mode.name, err, stderr)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != len(valid) {
			t.Fatalf("%s: %d lines, want %d:\n%s", mode.name, len(lines), len(valid), out)
		}
		for i, line := range lines {
			var got map[string]any
			if err := json.Unmarshal([]byte(line), &got); err != nil {
				t.Fatal(err)
			}
			for k, want := range valid[i] {
				if got[k] != want {
					t.Errorf("%s frame %d: %q = %v, want %v", mode.name, i, k, got[k], want)
				}
			}
		}
	}
}

// TestWireRoundTrip: decode then encode gives back the exact bytes, raw and
// hex, for the contract vectors and every control frame of §2.1.
func TestWireRoundTrip(t *testing.T) {
	_, encoded, _ := wireContractFrames(t)
	for _, f := range []wire.Frame{
		wire.HelloFrame(0, wire.HostHello), wire.HelloAckFrame(1, wire.HelloPayload{MaxPayload: 4096, Caps: wire.FirmwareCaps}),
		wire.SpeakerCreditFrame(2, 3, 24000, 8192), wire.ErrorFrame(2, 0, wire.ErrBusy), wire.StatusFrame(5, wire.StatusListening),
		wire.ControlFrame(wire.CtrlSpeakerText, 2, 4, 24000, []byte("字幕")),
	} {
		b, err := wire.AppendFrame(nil, f)
		if err != nil {
			t.Fatal(err)
		}
		encoded = append(encoded, b)
	}
	raw := bytes.Join(encoded, nil)
	decoded, _, err := runWire(t, raw, "decode")
	if err != nil {
		t.Fatal(err)
	}
	back, _, err := runWire(t, []byte(decoded), "encode")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal([]byte(back), raw) {
		t.Fatalf("round trip changed the bytes:\n got %x\nwant %x", back, raw)
	}
	backHex, _, err := runWire(t, []byte(decoded), "encode", "--hex")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.ReplaceAll(backHex, "\n", ""); got != hex.EncodeToString(raw) {
		t.Fatalf("hex round trip: got %s", got)
	}
	if n := strings.Count(backHex, "\n"); n != len(encoded) {
		t.Fatalf("hex output has %d lines, want one per frame (%d)", n, len(encoded))
	}
}

// TestWireDecodeReportsDamage: garbage and CRC failures are reported with
// their offsets on stderr, and frames after them are still decoded.
func TestWireDecodeReportsDamage(t *testing.T) {
	_, encoded, invalid := wireContractFrames(t)
	in := bytes.Join([][]byte{{0xff, 0x00}, invalid[0], encoded[0], encoded[0][:5]}, nil)
	out, stderr, err := runWire(t, in, "decode")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, "\n"); n != 1 {
		t.Fatalf("%d frames decoded, want 1:\n%s", n, out)
	}
	for _, want := range []string{
		"skipped 2 byte(s) at offset 0: no magic",
		"skipped 1 byte(s) at offset 2: crc mismatch",
		"5 trailing byte(s) at offset",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	var j struct{ Offset int }
	if err := json.Unmarshal([]byte(out), &j); err != nil || j.Offset != 2+len(invalid[0]) {
		t.Fatalf("frame offset %d (%v), want %d", j.Offset, err, 2+len(invalid[0]))
	}
}

func TestWireDecodeAnnotations(t *testing.T) {
	var in []byte
	for _, f := range []wire.Frame{
		wire.HelloAckFrame(0, wire.HelloPayload{MaxPayload: 640, Caps: wire.CapStreamID | wire.CapEvent}),
		wire.SpeakerCreditFrame(2, 3, 24000, 8192),
		wire.ErrorFrame(2, 0, wire.ErrBusy),
		wire.StatusFrame(5, wire.StatusListening),
		wire.ControlFrame(wire.CtrlStatus, 0, 6, 0, []byte{9}),
	} {
		var err error
		if in, err = wire.AppendFrame(in, f); err != nil {
			t.Fatal(err)
		}
	}
	out, _, err := runWire(t, in, "decode")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"control":"HELLO_ACK","hello":{"maxPayload":640,"caps":1536,"capNames":["STREAM_ID","EVENT"]}`,
		`"control":"SPEAKER_CREDIT","credit":8192`,
		`"control":"ERROR","error":{"value":5,"name":"BUSY"}`,
		`"control":"STATUS","status":{"value":3,"name":"LISTENING"}`,
		`"controlError":"wire: status payload: bad control payload: value 9 out of range 0-5"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
}

func TestWireErrors(t *testing.T) {
	big := `{"type":2,"payloadHex":"` + strings.Repeat("00", wire.MaxPayload+1) + `"}`
	tests := []struct {
		name string
		args []string
		in   string
		want string
	}{
		{"no subcommand", nil, "", "want a subcommand: decode, encode"},
		{"unknown subcommand", []string{"replay"}, "", `unknown subcommand "replay"`},
		{"extra arg", []string{"decode", "file.bin"}, "", `unexpected argument "file.bin"`},
		{"bad flag", []string{"encode", "--raw"}, "", "flag provided but not defined"},
		{"bad hex char", []string{"decode", "--hex"}, "4353 zz", `invalid character 'z' at character 6`},
		{"odd hex", []string{"decode", "--hex"}, "435", "odd number of hex digits"},
		{"bad json", []string{"encode"}, "{\"type\":0}\n\n{oops\n", "line 3: not a frame object"},
		{"missing type", []string{"encode"}, `{"flags":1}`, `line 1: missing "type"`},
		{"type range", []string{"encode"}, `{"type":7}`, `line 1: "type" 7 out of range 0-6`},
		{"stream range", []string{"encode"}, `{"type":0,"streamId":65536}`, `line 1: "streamId" 65536 out of range 0-65535`},
		{"negative seq", []string{"encode"}, `{"type":0,"sequence":-1}`, `line 1: "sequence" -1 out of range`},
		{"fraction", []string{"encode"}, `{"type":0,"flags":1.5}`, "line 1: not a frame object"},
		{"payload hex", []string{"encode"}, `{"type":0,"payloadHex":"0g"}`, `line 1: "payloadHex"`},
		{"payload size", []string{"encode"}, big, "line 1: wire: encoding SPEAKER_PCM frame: payload too large (4097 bytes, max 4096)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := runWire(t, []byte(tt.in), tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestWireEncodeIgnoresAnnotations: decode output, including keys encode
// does not know, is valid encode input.
func TestWireEncodeIgnoresAnnotations(t *testing.T) {
	in := `{"type":0,"flags":48,"streamId":0,"sequence":5,"sampleRate":0,"payloadHex":"03","typeName":"CONTROL","status":{"value":3},"future":[1,2]}`
	out, _, err := runWire(t, []byte(in), "encode", "--hex")
	if err != nil {
		t.Fatal(err)
	}
	if want := "435302003000000005000000000000000100000003" + "0f2a6c40\n"; out != want {
		t.Fatalf("got %q, want %q", out, want)
	}
}

// TestWireDecodeEvents: EVENT chunks are reassembled into "eventMessage" on
// the END chunk; a broken message is reported on its frame and decoding
// goes on (§13.3).
func TestWireDecodeEvents(t *testing.T) {
	msg := []byte(`{"schema":"stackchan.event.v1","type":"task.status","requestId":"r1","state":"running"}`)
	var in []byte
	add := func(f wire.Frame) {
		var err error
		if in, err = wire.AppendFrame(in, f); err != nil {
			t.Fatal(err)
		}
	}
	// Two chunks of message 5, then the parser-scenarios sequence mismatch
	// on stream 11, then a non-JSON message.
	add(wire.Frame{Type: wire.TypeEvent, Flags: wire.EventStart, StreamID: 5, Payload: msg[:40]})
	add(wire.Frame{Type: wire.TypeEvent, Flags: wire.EventEnd, StreamID: 5, Sequence: 1, Payload: msg[40:]})
	add(wire.Frame{Type: wire.TypeEvent, Flags: wire.EventStart, StreamID: 11, Payload: []byte("a")})
	add(wire.Frame{Type: wire.TypeEvent, Flags: wire.EventEnd, StreamID: 11, Sequence: 2, Payload: []byte("b")})
	add(wire.Frame{Type: wire.TypeEvent, Flags: wire.EventStart | wire.EventEnd, StreamID: 12, Payload: []byte("{oops")})
	out, _, err := runWire(t, in, "decode")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines, want 5:\n%s", len(lines), out)
	}
	var last struct {
		EventMessage json.RawMessage `json:"eventMessage"`
		EventError   string          `json:"eventError"`
	}
	checks := []struct {
		line     int
		msg, err string
	}{
		{0, "", ""},
		{1, string(msg), ""},
		{2, "", ""},
		{3, "", "event sequence mismatch"},
		{4, "", "not valid JSON"},
	}
	for _, c := range checks {
		last.EventMessage, last.EventError = nil, ""
		if err := json.Unmarshal([]byte(lines[c.line]), &last); err != nil {
			t.Fatal(err)
		}
		if string(last.EventMessage) != c.msg || !strings.Contains(last.EventError, c.err) || (c.err == "" && last.EventError != "") {
			t.Errorf("line %d: message %s error %q; want %s %q", c.line, last.EventMessage, last.EventError, c.msg, c.err)
		}
	}
}
