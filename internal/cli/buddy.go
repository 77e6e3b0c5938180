package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
	"github.com/claude-pi/claude-pi/protocols/nus"
)

const buddyUsage = `Usage: claude-pi buddy decode [--hex] [--max-line N] < stream

Reads what the desktop writes to the NUS RX characteristic (any chunking),
assembles lines and decodes each one. Prints one JSON object per line:
  {"line":N,"kind":"heartbeat","fields":{...}}   fields: the message as understood
  {"line":N,"error":"..."}                        bad line, oversize line, or
                                                  unterminated input at the end
N counts every newline-terminated line of the stream, skipped ones included.`

// buddyRecord is one output line of `buddy decode`.
type buddyRecord struct {
	Line   int64           `json:"line"`
	Kind   pbuddy.Kind     `json:"kind,omitempty"`
	Fields json.RawMessage `json:"fields,omitempty"`
	// Ignored lists heartbeat fields sent with unusable values; a device
	// keeps their previous values (spec §5.1).
	Ignored []string `json:"ignored,omitempty"`
	Error   string   `json:"error,omitempty"`
}

func buddyDecode(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("buddy decode", buddyUsage, stderr)
	hexInput := fs.Bool("hex", false, "stdin is hex text (whitespace ignored) instead of raw bytes")
	maxLine := fs.Int("max-line", nus.DefaultMaxLine, "line limit in bytes")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("buddy decode: unexpected argument %q (input is read from stdin)", fs.Arg(0))
	}
	if *maxLine <= 0 {
		return usagef("buddy decode: --max-line must be positive, got %d", *maxLine)
	}
	in := stdin
	if *hexInput {
		in = &hexReader{r: stdin}
	}

	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	var werr error
	write := func(r buddyRecord) {
		if werr == nil {
			werr = enc.Encode(r)
		}
	}
	a := nus.NewAssembler(*maxLine)
	emit := func(line []byte, err error) {
		var tl *nus.LineTooLongError
		if errors.As(err, &tl) {
			write(buddyRecord{Line: tl.Line, Error: err.Error()})
			return
		}
		m, err := pbuddy.Decode(line)
		if err != nil {
			write(buddyRecord{Line: a.Line(), Error: err.Error()})
			return
		}
		rec := buddyRecord{Line: a.Line(), Kind: m.Kind(), Fields: m.AppendJSON(nil)}
		if h, ok := m.(pbuddy.Heartbeat); ok {
			for _, fe := range h.Ignored {
				rec.Ignored = append(rec.Ignored, fe.Error())
			}
		}
		write(rec)
	}
	buf := make([]byte, 4096)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := in.Read(buf)
		a.Feed(buf[:n], emit)
		if werr != nil {
			return fmt.Errorf("buddy decode: writing output: %v", werr)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("buddy decode: reading stdin: %v", err)
		}
	}
	if p := a.Pending(); p > 0 {
		write(buddyRecord{Line: a.Line() + 1, Error: fmt.Sprintf("unterminated line at end of input (%d bytes, no \\n)", p)})
	}
	return werr
}

// hexReader turns hex text into bytes as it streams, ignoring whitespace, so
// a capture pasted from a log (e.g. "7b 22 63 6d ...") can be replayed.
type hexReader struct {
	r    io.Reader
	in   [4096]byte
	half int // pending high nibble plus one; 0 means none
	off  int64
	err  error
}

func (h *hexReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		if h.err != nil {
			return 0, h.err
		}
		n, err := h.r.Read(h.in[:min(len(h.in), 2*len(p))])
		out := 0
		for _, c := range h.in[:n] {
			h.off++
			var v int
			switch {
			case c == ' ' || c == '\t' || c == '\n' || c == '\r':
				continue
			case c >= '0' && c <= '9':
				v = int(c - '0')
			case c >= 'a' && c <= 'f':
				v = int(c-'a') + 10
			case c >= 'A' && c <= 'F':
				v = int(c-'A') + 10
			default:
				h.err = fmt.Errorf("hex input: invalid character %q at offset %d", c, h.off-1)
				return out, nil
			}
			if h.half == 0 {
				h.half = v + 1
				continue
			}
			p[out] = byte((h.half-1)<<4 | v)
			out++
			h.half = 0
		}
		if errors.Is(err, io.EOF) && h.half != 0 {
			h.err = errors.New("hex input: odd number of hex digits")
			return out, nil
		}
		if err != nil {
			h.err = err
		}
		if out > 0 || err != nil {
			return out, err
		}
	}
}
