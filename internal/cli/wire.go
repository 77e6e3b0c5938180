package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/claude-pi/claude-pi/protocols/stackchan/event"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

const wireDecodeSynopsis = `Usage: claude-pi wire decode [--hex] < capture

Reads Stack-chan dock wire v2 bytes (a capture of the CoreS3 link, or a
live tty) and prints one JSON object per frame: the contract vectors' frame
object plus read-only annotations (typeName, control, hello, eventMessage,
...). Skipped bytes are reported on stderr with their offset.`

const wireEncodeSynopsis = `Usage: claude-pi wire encode [--hex] < frames.jsonl

Reads JSON objects, one per line, in the frame shape that wire decode prints
(the annotations are ignored), and writes the wire v2 frames.`

// wireDecodeCommand and wireEncodeCommand are `claude-pi wire decode` and
// `wire encode`: a bench tool for captures of the CoreS3 link and for
// hand-made frames. Both use the frame shape of the contract vectors, so a
// decode can be edited and re-encoded.
func wireDecodeCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return wireRun(ctx, "decode", wireDecodeSynopsis, args, stdin, stdout, stderr)
}

func wireEncodeCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return wireRun(ctx, "encode", wireEncodeSynopsis, args, stdin, stdout, stderr)
}

func wireRun(ctx context.Context, dir, synopsis string, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("wire "+dir, synopsis, stderr)
	hexIO := fs.Bool("hex", false, "hex text instead of raw bytes (whitespace ignored on input, one frame per line on output)")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("wire %s: unexpected argument %q (input is read from stdin)", dir, fs.Arg(0))
	}
	out := bufio.NewWriter(stdout)
	var err error
	if dir == "decode" {
		in := stdin
		if *hexIO {
			in = &wireHexReader{r: stdin}
		}
		err = wireDecode(ctx, in, out, stderr)
	} else {
		err = wireEncode(ctx, stdin, out, *hexIO)
	}
	if ferr := out.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("wire %s: writing output: %w", dir, ferr)
	}
	return err
}

// wireFrameJSON is one decoded frame: the contract vectors' frame object
// plus read-only annotations that encode ignores.
type wireFrameJSON struct {
	Type       uint8  `json:"type"`
	Flags      uint16 `json:"flags"`
	StreamID   uint16 `json:"streamId"`
	Sequence   uint32 `json:"sequence"`
	SampleRate uint32 `json:"sampleRate"`
	PayloadHex string `json:"payloadHex"`

	Offset       int64           `json:"offset"`
	TypeName     string          `json:"typeName"`
	Control      string          `json:"control,omitempty"`
	Hello        *wireHelloJSON  `json:"hello,omitempty"`
	Credit       *uint32         `json:"credit,omitempty"`
	Error        *wireNamedJSON  `json:"error,omitempty"`
	Status       *wireNamedJSON  `json:"status,omitempty"`
	Text         string          `json:"text,omitempty"`
	ControlError string          `json:"controlError,omitempty"`
	EventMessage json.RawMessage `json:"eventMessage,omitempty"`
	EventError   string          `json:"eventError,omitempty"`
}

type wireHelloJSON struct {
	MaxPayload uint32   `json:"maxPayload"`
	Caps       uint32   `json:"caps"`
	CapNames   []string `json:"capNames"`
}

type wireNamedJSON struct {
	Value uint32 `json:"value"`
	Name  string `json:"name"`
}

// wireEventReassembler is how decode turns EVENT frames into messages.
// Add gets every EVENT frame in order; done is true on the frame that
// completes a message. A nil reassembler prints EVENT frames bare.
type wireEventReassembler interface {
	Add(f wire.Frame) (msg []byte, done bool, err error)
}

// newWireEventReassembler gives each decode run its own reassembler, so
// "eventMessage" appears on the END chunk and "eventError" on a dropped
// message. Routing the JSON (appevent) is left to the reader of the output.
var newWireEventReassembler = func() wireEventReassembler { return new(event.Reassembler) }

// wireDecode parses the byte stream as it arrives, so it also works on a
// live tty. Skipped bytes go to stderr with their offset; they never stop
// decoding, because resynchronising is the parser's job.
func wireDecode(ctx context.Context, in io.Reader, out io.Writer, stderr io.Writer) error {
	p := wire.Parser{OnSkip: func(s wire.Skip) {
		fmt.Fprintf(stderr, "wire decode: skipped %d byte(s) at offset %d: %s\n", s.Len, s.Offset, s.Reason)
	}}
	var events wireEventReassembler
	if newWireEventReassembler != nil {
		events = newWireEventReassembler()
	}
	enc := json.NewEncoder(out)
	buf := make([]byte, 32<<10)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, rerr := in.Read(buf)
		p.Feed(buf[:n])
		for f, ok := p.Next(); ok; f, ok = p.Next() {
			j := wireDescribe(f, p.Offset()-int64(f.EncodedLen()), events)
			if err := enc.Encode(j); err != nil {
				return fmt.Errorf("wire decode: writing output: %w", err)
			}
		}
		if rerr == io.EOF {
			if n := p.Pending(); n > 0 {
				fmt.Fprintf(stderr, "wire decode: %d trailing byte(s) at offset %d are not a complete frame\n", n, p.Offset())
			}
			return nil
		}
		if rerr != nil {
			return fmt.Errorf("wire decode: reading input: %w", rerr)
		}
	}
}

func wireDescribe(f wire.Frame, offset int64, events wireEventReassembler) wireFrameJSON {
	j := wireFrameJSON{
		Type: uint8(f.Type), Flags: f.Flags, StreamID: f.StreamID, Sequence: f.Sequence,
		SampleRate: f.SampleRate, PayloadHex: hex.EncodeToString(f.Payload),
		Offset: offset, TypeName: f.Type.String(),
	}
	switch f.Type {
	case wire.TypeControl:
		j.Control = wire.Control(f.Flags).String()
		c, err := wire.DecodeControl(f)
		if err != nil {
			j.ControlError = err.Error()
			break
		}
		switch c.Code {
		case wire.CtrlHello, wire.CtrlHelloAck:
			j.Hello = &wireHelloJSON{MaxPayload: c.Hello.MaxPayload, Caps: uint32(c.Hello.Caps), CapNames: c.Hello.Caps.Names()}
		case wire.CtrlSpeakerCredit:
			j.Credit = &c.Credit
		case wire.CtrlError:
			j.Error = &wireNamedJSON{Value: uint32(c.Error), Name: c.Error.String()}
		case wire.CtrlStatus:
			j.Status = &wireNamedJSON{Value: uint32(c.Status), Name: c.Status.String()}
		case wire.CtrlSpeakerText:
			j.Text = string(c.Text)
		}
	case wire.TypeEvent:
		if events == nil {
			break
		}
		msg, done, err := events.Add(f)
		switch {
		case err != nil:
			j.EventError = err.Error()
		case !done:
		case !utf8.Valid(msg):
			j.EventError = "message is not valid UTF-8"
		case !json.Valid(msg):
			j.EventError = "message is not valid JSON"
		default:
			j.EventMessage = json.RawMessage(bytes.Clone(msg))
		}
	}
	return j
}

// wireEncodeJSON is what encode reads. Pointers tell a missing field from a
// zero; int64 lets out-of-range values be named instead of wrapping.
type wireEncodeJSON struct {
	Type       *int64 `json:"type"`
	Flags      int64  `json:"flags"`
	StreamID   int64  `json:"streamId"`
	Sequence   int64  `json:"sequence"`
	SampleRate int64  `json:"sampleRate"`
	PayloadHex string `json:"payloadHex"`
}

// wireEncode stops at the first bad line: a partly encoded capture with a
// hole in it would be worse than none.
func wireEncode(ctx context.Context, in io.Reader, out io.Writer, hexOut bool) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var frame []byte
	for line := 1; sc.Scan(); line++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		f, err := wireParseFrameJSON(text)
		if err != nil {
			return fmt.Errorf("wire encode: line %d: %w", line, err)
		}
		if frame, err = wire.AppendFrame(frame[:0], f); err != nil {
			return fmt.Errorf("wire encode: line %d: %w", line, err)
		}
		if hexOut {
			_, err = fmt.Fprintf(out, "%x\n", frame)
		} else {
			_, err = out.Write(frame)
		}
		if err != nil {
			return fmt.Errorf("wire encode: writing output: %w", err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("wire encode: reading input: %w", err)
	}
	return nil
}

func wireParseFrameJSON(text []byte) (wire.Frame, error) {
	var j wireEncodeJSON
	if err := json.Unmarshal(text, &j); err != nil {
		return wire.Frame{}, fmt.Errorf("not a frame object: %w", err)
	}
	if j.Type == nil {
		return wire.Frame{}, errors.New(`missing "type"`)
	}
	for _, r := range []struct {
		name string
		v    int64
		max  int64
	}{
		{"type", *j.Type, int64(wire.TypeEvent)},
		{"flags", j.Flags, 0xFFFF},
		{"streamId", j.StreamID, 0xFFFF},
		{"sequence", j.Sequence, 0xFFFFFFFF},
		{"sampleRate", j.SampleRate, 0xFFFFFFFF},
	} {
		if r.v < 0 || r.v > r.max {
			return wire.Frame{}, fmt.Errorf("%q %d out of range 0-%d", r.name, r.v, r.max)
		}
	}
	payload, err := hex.DecodeString(j.PayloadHex)
	if err != nil {
		return wire.Frame{}, fmt.Errorf(`"payloadHex": %w`, err)
	}
	return wire.Frame{
		Type: wire.Type(*j.Type), Flags: uint16(j.Flags), StreamID: uint16(j.StreamID),
		Sequence: uint32(j.Sequence), SampleRate: uint32(j.SampleRate), Payload: payload,
	}, nil
}

// wireHexReader turns hex text into bytes, skipping whitespace, so a hex
// dump pasted from a log or a vector file decodes directly.
type wireHexReader struct {
	r      io.Reader
	buf    [4096]byte
	half   byte // pending high nibble
	odd    bool
	offset int64 // characters consumed, for error messages
	err    error
}

func (h *wireHexReader) Read(p []byte) (int, error) {
	if h.err != nil {
		return 0, h.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	n := 0
	for n == 0 && h.err == nil {
		m, err := h.r.Read(h.buf[:min(len(h.buf), 2*len(p))])
		for _, c := range h.buf[:m] {
			h.offset++
			var v byte
			switch {
			case c == ' ' || c == '\t' || c == '\n' || c == '\r':
				continue
			case '0' <= c && c <= '9':
				v = c - '0'
			case 'a' <= c && c <= 'f':
				v = c - 'a' + 10
			case 'A' <= c && c <= 'F':
				v = c - 'A' + 10
			default:
				h.err = fmt.Errorf("--hex input: invalid character %q at character %d", c, h.offset)
				return n, nil
			}
			if !h.odd {
				h.half, h.odd = v<<4, true
				continue
			}
			p[n] = h.half | v
			n++
			h.odd = false
		}
		if err == io.EOF && h.odd {
			h.err = errors.New("--hex input: odd number of hex digits")
		} else if err != nil {
			h.err = err
		}
	}
	return n, nil
}
