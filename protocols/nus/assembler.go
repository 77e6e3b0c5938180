package nus

import (
	"bytes"
	"fmt"
)

// DefaultMaxLine is the default line limit: far above the desktop's largest
// line (a 4096-byte turn event) yet small enough that a host which never
// sends '\n' cannot grow the buffer without bound (spec §3.2).
const DefaultMaxLine = 16 << 10

// LineTooLongError reports a line that outgrew the limit. The assembler has
// already dropped the bytes received so far and drops the rest up to the
// next '\n'; the caller only logs it.
type LineTooLongError struct {
	Line  int64 // 1-based number of the physical line in the stream
	Limit int   // the limit in force
}

// Error says which line overflowed and the limit.
func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("nus: line %d longer than %d bytes, dropped", e.Line, e.Limit)
}

// Assembler joins RX writes into lines. The zero value is not usable; call
// [NewAssembler].
//
// Rules (spec §3.2): lines end at '\n'; one trailing '\r' is stripped;
// leading spaces and tabs are trimmed; empty lines and lines whose first
// byte is then not '{' are skipped silently; a line longer than the limit
// (counting a '\r' before its '\n') is reported once as a
// [*LineTooLongError] and discarded through its '\n', after which assembly
// continues normally. The result depends only on the byte stream, never on
// how it was sliced into writes.
type Assembler struct {
	max        int
	buf        []byte
	discarding bool  // inside an oversize line, waiting for its '\n'
	lines      int64 // '\n' seen so far
	skipped    int64
	overflows  int64
}

// NewAssembler returns an assembler with the given line limit in bytes;
// maxLine <= 0 means [DefaultMaxLine].
func NewAssembler(maxLine int) *Assembler {
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	return &Assembler{max: maxLine}
}

// Feed consumes one RX write. For every complete line it calls emit(line,
// nil); for every oversize line it calls emit(nil, err) with a
// [*LineTooLongError], once, as soon as the limit is passed. line aliases
// either p or an internal buffer and is valid only until emit returns; copy
// it to keep it. emit must not call Feed or Reset.
//
// Once the buffer has grown to the longest line seen, Feed does not allocate.
func (a *Assembler) Feed(p []byte, emit func(line []byte, err error)) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if a.discarding {
			if i < 0 {
				return
			}
			a.discarding = false
			a.lines++
			p = p[i+1:]
			continue
		}
		if i < 0 {
			if len(a.buf)+len(p) > a.max {
				a.overflow(emit)
				a.discarding = true
				return
			}
			a.buf = append(a.buf, p...)
			return
		}
		seg := p[:i]
		p = p[i+1:]
		if len(a.buf)+len(seg) > a.max {
			a.overflow(emit)
			a.lines++
			continue
		}
		a.lines++
		line := seg
		if len(a.buf) > 0 {
			a.buf = append(a.buf, seg...)
			line = a.buf
			a.buf = a.buf[:0]
		}
		if line = trim(line); len(line) == 0 || line[0] != '{' {
			a.skipped++
			continue
		}
		emit(line, nil)
	}
}

func (a *Assembler) overflow(emit func([]byte, error)) {
	a.buf = a.buf[:0]
	a.overflows++
	emit(nil, &LineTooLongError{Line: a.lines + 1, Limit: a.max})
}

func trim(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	for len(line) > 0 && (line[0] == ' ' || line[0] == '\t') {
		line = line[1:]
	}
	return line
}

// Reset drops a partial line, for example on disconnect: bytes of a line
// cut short by a lost link must not prefix the first line of the next
// connection. Counters are kept.
func (a *Assembler) Reset() {
	a.buf = a.buf[:0]
	a.discarding = false
}

// Line is the number of physical lines completed so far (every '\n',
// including skipped and oversize lines). Inside emit, Line() is the 1-based
// number of the line being emitted.
func (a *Assembler) Line() int64 { return a.lines }

// Pending is the number of bytes of an unterminated line held back.
func (a *Assembler) Pending() int { return len(a.buf) }

// Skipped counts lines dropped as empty or not starting with '{'.
func (a *Assembler) Skipped() int64 { return a.skipped }

// Overflows counts oversize lines.
func (a *Assembler) Overflows() int64 { return a.overflows }

// MaxLine is the line limit in bytes.
func (a *Assembler) MaxLine() int { return a.max }
