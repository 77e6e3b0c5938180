package wire

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"time"
)

// SkipReason says why the parser discarded bytes (§4 steps 2, 4, 5, 7, and
// the stale-partial extension, see README.md).
type SkipReason uint8

const (
	// SkipNoMagic: bytes before the next "CS", or all but the last byte of
	// a buffer without one.
	SkipNoMagic SkipReason = iota + 1
	// SkipBadVersion: a header whose version byte is not 2.
	SkipBadVersion
	// SkipBadType: a header whose type byte is above 6.
	SkipBadType
	// SkipOversize: a header whose length field is above 4096.
	SkipOversize
	// SkipCRC: a complete frame whose CRC-32 does not match.
	SkipCRC
	// SkipStale: the first byte of a partial frame that was still
	// incomplete StaleAfter after that byte arrived (a cut-off frame).
	SkipStale
)

// String names r for logs and tools.
func (r SkipReason) String() string {
	switch r {
	case SkipNoMagic:
		return "no magic"
	case SkipBadVersion:
		return "bad version"
	case SkipBadType:
		return "bad type"
	case SkipOversize:
		return "oversize length"
	case SkipCRC:
		return "crc mismatch"
	case SkipStale:
		return "stale partial frame"
	}
	return "unknown"
}

// Skip describes bytes the parser threw away.
type Skip struct {
	// Offset is the position of the first discarded byte in the stream
	// fed since the parser was created or last Reset.
	Offset int64
	// Len is the number of bytes discarded: 1 for header, CRC and stale
	// failures, which only ever cost one byte (§4).
	Len    int
	Reason SkipReason
}

// Stats counts what the parser has seen since it was created or Reset.
type Stats struct {
	Frames       uint64 // frames emitted
	SkippedBytes uint64 // bytes discarded for any reason
	CRCErrors    uint64 // complete frames with a bad CRC
	BadHeaders   uint64 // bad version, type or length
	Stale        uint64 // partial frames given up on after StaleAfter
}

// Parser is the receive-side resynchronising frame parser of §4. Feed it
// whatever a read returned, then call Next until it reports false:
//
//	p.Feed(buf[:n])
//	for f, ok := p.Next(); ok; f, ok = p.Next() {
//		handle(f) // f.Payload is valid until the next Feed or Reset
//	}
//
// Fragmented and coalesced input are both fine. Garbage, frames of other
// versions, invalid types, oversize lengths and CRC failures are skipped by
// discarding one byte at a time, exactly as every upstream implementation
// does, so a real frame starting inside a damaged region is still found.
//
// A live link feeds with [Parser.FeedAt] instead, and calls [Parser.Expire]
// at [Parser.Deadline]: a partial frame still incomplete StaleAfter after
// its first byte arrived is a cut-off frame and is skipped one byte at a
// time like a CRC failure (README.md, "Cut-off frames"). Without it, a
// header promising 4096 bytes swallows everything the peer sends until
// 4 KiB have arrived.
//
// The zero value is ready to use. Once its buffer has grown to the largest
// read plus one frame, Feed and Next do not allocate. A Parser is not safe
// for concurrent use.
type Parser struct {
	// OnSkip, if set, is called for every discard, so tools can print the
	// offset and reason. It must not call the Parser.
	OnSkip func(Skip)

	buf   []byte // buf[start:] is pending
	start int
	base  int64 // stream offset of buf[start]
	stats Stats

	// When the pending bytes arrived (zero for Feed), and the latest time
	// given to FeedAt or Expire; waitSince is the arrival of the partial
	// frame Next last stopped at (step 6), zero if it stopped elsewhere.
	arrived   arrivals
	now       time.Time
	waitSince time.Time
}

// Feed appends p to the pending bytes without a time: a partial frame fed
// this way never goes stale, which is right for a file or a capture. It
// copies p, so the caller may reuse it. Feed invalidates the payloads of
// frames previously returned by Next: drain Next before feeding more.
func (p *Parser) Feed(b []byte) { p.FeedAt(time.Time{}, b) }

// FeedAt is Feed for a live link: now is when b was read. A later Next
// skips a partial frame whose first byte arrived StaleAfter or more before
// the latest now, once the bytes fed so far cannot complete it. Times that
// go backwards are taken as the latest one.
func (p *Parser) FeedAt(now time.Time, b []byte) {
	p.setNow(now)
	p.waitSince = time.Time{}
	if len(b) == 0 {
		return
	}
	if p.start > 0 {
		n := copy(p.buf, p.buf[p.start:])
		p.buf = p.buf[:n]
		p.start = 0
	}
	p.buf = append(p.buf, b...)
	stamp := p.now
	if now.IsZero() {
		stamp = time.Time{}
	}
	p.arrived.add(p.base+int64(len(p.buf)), stamp)
}

// Expire tells the parser the time without new bytes, typically from a
// timer armed at Deadline; drain Next afterwards to get the frames that a
// skipped cut-off frame was hiding.
func (p *Parser) Expire(now time.Time) { p.FeedAt(now, nil) }

// Deadline reports when the partial frame Next last stopped at goes stale,
// so a caller with no more input can call Expire then. It is false when
// Next has not stopped at a timed partial frame since the last Feed.
func (p *Parser) Deadline() (time.Time, bool) {
	if p.waitSince.IsZero() {
		return time.Time{}, false
	}
	return p.waitSince.Add(StaleAfter), true
}

func (p *Parser) setNow(now time.Time) {
	if !now.IsZero() && (p.now.IsZero() || now.After(p.now)) {
		p.now = now
	}
}

// Next returns the next complete valid frame, or false when more bytes are
// needed. The frame's Payload aliases the parser's buffer and stays valid
// until the next Feed or Reset (Next itself never moves bytes).
func (p *Parser) Next() (Frame, bool) {
	p.waitSince = time.Time{}
	for {
		pending := p.buf[p.start:]
		// Step 1.
		if len(pending) < Overhead {
			return Frame{}, false
		}
		// Step 2.
		i := bytes.Index(pending, magicBytes)
		if i < 0 {
			p.discard(len(pending)-1, SkipNoMagic)
			return Frame{}, false
		}
		if i > 0 {
			p.discard(i, SkipNoMagic)
			pending = pending[i:]
		}
		// Step 3.
		if len(pending) < Overhead {
			return Frame{}, false
		}
		// Step 4.
		if pending[2] != Version {
			p.stats.BadHeaders++
			p.discard(1, SkipBadVersion)
			continue
		}
		if Type(pending[3]) > TypeEvent {
			p.stats.BadHeaders++
			p.discard(1, SkipBadType)
			continue
		}
		// Step 5.
		n := binary.LittleEndian.Uint32(pending[16:])
		if n > MaxPayload {
			p.stats.BadHeaders++
			p.discard(1, SkipOversize)
			continue
		}
		// Step 6, and the stale-partial extension: a frame the bytes so far
		// cannot complete is waited for only StaleAfter from its first byte.
		end := HeaderSize + int(n)
		if len(pending) < end+CRCSize {
			at := p.arrived.at(p.base)
			if !at.IsZero() && !p.now.Before(at.Add(StaleAfter)) {
				p.stats.Stale++
				p.discard(1, SkipStale)
				continue
			}
			p.waitSince = at
			return Frame{}, false
		}
		// Step 7.
		if crc32.ChecksumIEEE(pending[:end]) != binary.LittleEndian.Uint32(pending[end:]) {
			p.stats.CRCErrors++
			p.discard(1, SkipCRC)
			continue
		}
		// Step 8.
		f := headerFrame(pending, end)
		p.start += end + CRCSize
		p.base += int64(end + CRCSize)
		p.arrived.drop(p.base)
		p.stats.Frames++
		return f, true
	}
}

var magicBytes = []byte{0x43, 0x53}

func (p *Parser) discard(n int, why SkipReason) {
	if n <= 0 {
		return
	}
	if p.OnSkip != nil {
		p.OnSkip(Skip{Offset: p.base, Len: n, Reason: why})
	}
	p.start += n
	p.base += int64(n)
	p.stats.SkippedBytes += uint64(n)
	p.arrived.drop(p.base)
}

// Pending is the number of bytes held back waiting for more input; at end
// of input they are an incomplete frame or trailing garbage.
func (p *Parser) Pending() int { return len(p.buf) - p.start }

// Offset is the stream offset of the first pending byte.
func (p *Parser) Offset() int64 { return p.base }

// Stats returns the counters since the parser was created or Reset.
func (p *Parser) Stats() Stats { return p.stats }

// Reset discards pending bytes and zeroes the counters, the stream offset
// and the clock, as after a reconnect (§4, §9.2). It keeps the buffer's
// memory and OnSkip.
func (p *Parser) Reset() {
	p.buf = p.buf[:0]
	p.start = 0
	p.base = 0
	p.stats = Stats{}
	p.arrived = arrivals{}
	p.now, p.waitSince = time.Time{}, time.Time{}
}
