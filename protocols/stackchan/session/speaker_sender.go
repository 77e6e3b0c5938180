package session

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// SenderState is the phase of a host speaker session.
type SenderState uint8

const (
	SenderStarting    SenderState = iota // SPEAKER_START not yet sent
	SenderAwaitCredit                    // START sent, no credit yet
	SenderStreaming                      // sending captions and PCM within credit
	SenderEnding                         // END sent, waiting for SPEAKER_DONE
	SenderDone                           // DONE received
	SenderAborted                        // ABORT sent (or cancelled before START)
	SenderFailed                         // see Err
)

var senderStateNames = [...]string{"starting", "await-credit", "streaming", "ending", "done", "aborted", "failed"}

// String returns a short lowercase name, e.g. "streaming".
func (s SenderState) String() string {
	if int(s) < len(senderStateNames) {
		return senderStateNames[s]
	}
	return fmt.Sprintf("sender-state(%d)", uint8(s))
}

// CreditNote says what OnCredit did with a SPEAKER_CREDIT; the anomalies are
// worth a log line but never fatal (ours, spec §12.6).
type CreditNote uint8

const (
	CreditApplied CreditNote = iota // added to the available credit
	CreditIgnored                   // other stream id, or not expecting credit
	CreditZero                      // increment 0: nothing to add
	CreditClamped                   // would exceed the 8 KiB window; clamped
)

// SpeakerConfig describes one speaker session.
type SpeakerConfig struct {
	StreamID   uint16 // fresh non-zero id from the shared allocator
	SampleRate uint32 // 8000, 16000 or 24000
	MaxPayload int    // negotiated chunk limit; 0 means wire.MaxPayload
	Captions   bool   // firmware advertised wire.CapSpeakerText
}

// SpeakerSender is the host side of one speaker session (spec §12.6): it
// cuts queued PCM into 80 ms frames sent strictly within credit, puts each
// caption right before its sentence's first frame, and ends with SPEAKER_END.
// Callers feed it PCM, captions and firmware replies, and send what Next returns.
type SpeakerSender struct {
	s     Session
	frame int
	caps  bool
	state SenderState
	err   error

	available int   // unused credit
	granted   int64 // credit applied over the session
	sent      int64 // PCM bytes sent
	queued    int64 // PCM bytes queued over the session
	seq       uint32
	buf       []byte // unsent PCM is buf[head:]
	head      int
	captions  []textAt // pending, in queue order
	finished  bool

	since      time.Time // START or END sent
	lastCredit time.Time
	blocked    time.Time // a frame waits for credit since then; zero if not
}

type textAt struct {
	at   int64
	text []byte
}

// NewSpeakerSender validates cfg and returns a sender whose first Next is
// SPEAKER_START.
func NewSpeakerSender(cfg SpeakerConfig) (*SpeakerSender, error) {
	if cfg.StreamID == 0 {
		return nil, fmt.Errorf("speaker: stream id 0 is reserved")
	}
	if !ValidSpeakerRate(cfg.SampleRate) {
		return nil, fmt.Errorf("speaker: unsupported sample rate %d", cfg.SampleRate)
	}
	max := cfg.MaxPayload
	if max == 0 {
		max = wire.MaxPayload
	}
	if max < wire.MinPeerPayload || max > wire.MaxPayload {
		return nil, fmt.Errorf("speaker: max payload %d outside %d-%d", max, wire.MinPeerPayload, wire.MaxPayload)
	}
	return &SpeakerSender{
		s:     Session{cfg.StreamID, cfg.SampleRate},
		frame: min(SpeakerFrameBytes(cfg.SampleRate), max&^1),
		caps:  cfg.Captions,
	}, nil
}

// Session returns the stream id and rate.
func (p *SpeakerSender) Session() Session { return p.s }

// FrameBytes is the size of a full PCM frame.
func (p *SpeakerSender) FrameBytes() int { return p.frame }

// State returns the current phase.
func (p *SpeakerSender) State() SenderState { return p.state }

// Err returns why the session failed, or nil.
func (p *SpeakerSender) Err() error { return p.err }

// Credit returns the unused credit.
func (p *SpeakerSender) Credit() int { return p.available }

// Sent returns the PCM bytes sent and the credit granted so far; sent never
// exceeds granted.
func (p *SpeakerSender) Sent() (sent, granted int64) { return p.sent, p.granted }

// Buffered returns how much unsent PCM is queued, as playing time. Callers keep
// it near 5 s so synthesis never waits for credit.
func (p *SpeakerSender) Buffered() time.Duration {
	return time.Duration((p.queued - p.sent) / 2 * int64(time.Second) / int64(p.s.SampleRate))
}

func (p *SpeakerSender) open() bool {
	return p.state <= SenderStreaming && !p.finished
}

// QueuePCM appends 16-bit little-endian mono samples at the session rate.
func (p *SpeakerSender) QueuePCM(pcm []byte) error {
	if !p.open() {
		return ErrSessionClosed
	}
	if len(pcm)%2 != 0 {
		return fmt.Errorf("speaker: PCM chunk of %d bytes is not whole 16-bit samples", len(pcm))
	}
	if p.head > 0 && p.head >= len(p.buf)/2 {
		n := copy(p.buf, p.buf[p.head:])
		p.buf, p.head = p.buf[:n], 0
	}
	p.buf = append(p.buf, pcm...)
	p.queued += int64(len(pcm))
	return nil
}

// QueueCaption marks the start of a sentence: text goes out as SPEAKER_TEXT
// right before the next queued PCM. It is trimmed, made valid UTF-8 and cut to
// 1024 bytes on a character boundary. Blank captions, captions the firmware
// cannot show, and a caption replaced by another before any PCM are dropped.
func (p *SpeakerSender) QueueCaption(text string) {
	if !p.caps || !p.open() {
		return
	}
	text = strings.TrimSpace(strings.ToValidUTF8(text, "\uFFFD"))
	if text == "" {
		return
	}
	c := textAt{at: p.queued, text: []byte(TruncateCaption(text))}
	if n := len(p.captions); n > 0 && p.captions[n-1].at == p.queued {
		p.captions[n-1] = c
		return
	}
	p.captions = append(p.captions, c)
}

// TruncateCaption cuts s to at most 1024 bytes without splitting a UTF-8 sequence.
func TruncateCaption(s string) string {
	if len(s) <= MaxCaptionBytes {
		return s
	}
	cut := MaxCaptionBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// Finish says no more PCM follows: SPEAKER_END goes out after the last frame.
func (p *SpeakerSender) Finish() { p.finished = true }

// OnCredit applies a SPEAKER_CREDIT increment for stream.
func (p *SpeakerSender) OnCredit(stream uint16, increment uint32, now time.Time) CreditNote {
	if stream != p.s.StreamID || (p.state != SenderAwaitCredit && p.state != SenderStreaming) {
		return CreditIgnored
	}
	if increment == 0 {
		return CreditZero
	}
	note := CreditApplied
	add := int64(increment)
	if room := int64(CreditWindow - p.available); add > room {
		add, note = room, CreditClamped
	}
	p.available += int(add)
	p.granted += add
	p.state = SenderStreaming
	p.lastCredit = now
	return note
}

// OnDone handles SPEAKER_DONE and reports whether it completed this session.
// DONE for other streams, or before END, is ignored.
func (p *SpeakerSender) OnDone(stream uint16) bool {
	if stream != p.s.StreamID || p.state != SenderEnding {
		return false
	}
	p.state = SenderDone
	p.release()
	return true
}

// OnError handles an ERROR frame and reports whether it failed this session.
func (p *SpeakerSender) OnError(stream uint16, code wire.ErrorCode) bool {
	if stream != p.s.StreamID || p.state < SenderAwaitCredit || p.state > SenderEnding {
		return false
	}
	p.fail(&FirmwareError{StreamID: stream, Code: code})
	return true
}

// Reset records that the firmware lost all sessions (a later HELLO_ACK, unplug).
// A session whose START is not sent yet is unaffected.
func (p *SpeakerSender) Reset() {
	if p.state >= SenderAwaitCredit && p.state <= SenderEnding {
		p.fail(ErrSessionLost)
	}
}

// Abort cancels the session (barge-in). It returns SPEAKER_ABORT if the
// firmware knows the session; the caller does not wait for DONE.
func (p *SpeakerSender) Abort() (Action, bool) {
	started := p.state >= SenderAwaitCredit && p.state <= SenderEnding
	if p.state <= SenderEnding {
		p.state = SenderAborted
		p.release()
	}
	if !started {
		return Action{}, false
	}
	return control(wire.CtrlSpeakerAbort, p.s), true
}

// Wake returns when Next must be called again even if nothing arrives (a
// timeout), or false if only new input can change anything.
func (p *SpeakerSender) Wake() (time.Time, bool) {
	switch {
	case p.state == SenderAwaitCredit:
		return p.since.Add(InitialCreditWait), true
	case p.state == SenderStreaming && !p.blocked.IsZero():
		return p.stallFrom().Add(CreditStallLimit), true
	case p.state == SenderEnding:
		return p.since.Add(SpeakerDoneTimeout), true
	}
	return time.Time{}, false
}

func (p *SpeakerSender) stallFrom() time.Time {
	if p.lastCredit.After(p.blocked) {
		return p.lastCredit
	}
	return p.blocked
}

// Next returns the next frame to send, if any may be sent at now. Call it
// until ok is false after every input and at Wake.
func (p *SpeakerSender) Next(now time.Time) (Action, bool) {
	switch p.state {
	case SenderStarting:
		p.state, p.since = SenderAwaitCredit, now
		return control(wire.CtrlSpeakerStart, p.s), true
	case SenderAwaitCredit:
		if now.Sub(p.since) >= InitialCreditWait {
			p.fail(ErrNoCredit)
			return control(wire.CtrlSpeakerAbort, p.s), true
		}
	case SenderStreaming:
		return p.stream(now)
	case SenderEnding:
		if now.Sub(p.since) >= SpeakerDoneTimeout {
			p.fail(ErrDoneTimeout)
		}
	}
	return Action{}, false
}

func (p *SpeakerSender) stream(now time.Time) (Action, bool) {
	n := p.frameLen()
	if n == 0 {
		if p.finished && p.sent == p.queued {
			p.state, p.since = SenderEnding, now
			p.release()
			return control(wire.CtrlSpeakerEnd, p.s), true
		}
		return Action{}, false
	}
	if p.available < n {
		if p.blocked.IsZero() {
			p.blocked = now
		}
		if now.Sub(p.stallFrom()) >= CreditStallLimit {
			p.fail(ErrCreditStall)
			return control(wire.CtrlSpeakerAbort, p.s), true
		}
		return Action{}, false
	}
	p.blocked = time.Time{}
	if len(p.captions) > 0 && p.captions[0].at == p.sent {
		a := control(wire.CtrlSpeakerText, p.s)
		a.Payload = p.captions[0].text
		p.captions = p.captions[1:]
		return a, true
	}
	a := Action{Type: wire.TypeSpeakerPCM, StreamID: p.s.StreamID, Sequence: p.seq, SampleRate: p.s.SampleRate,
		Payload: p.buf[p.head : p.head+n : p.head+n]}
	p.head += n
	p.sent += int64(n)
	p.available -= n
	p.seq++
	return a, true
}

// frameLen is the size of the next PCM frame, 0 if none is ready. Frames never
// cross a sentence boundary, so each caption can precede its first frame.
func (p *SpeakerSender) frameLen() int {
	unsent := p.queued - p.sent
	n := min(int64(p.frame), unsent)
	for _, c := range p.captions {
		if c.at > p.sent {
			if c.at-p.sent <= n {
				return int(c.at - p.sent) // sentence tail: ready now
			}
			break
		}
	}
	if n < int64(p.frame) && !p.finished {
		return 0 // wait for a full frame
	}
	return int(n)
}

func (p *SpeakerSender) fail(err error) {
	p.state, p.err = SenderFailed, err
	p.release()
}

// release drops unsent PCM and pending captions (a trailing caption with no
// PCM after it is never sent).
func (p *SpeakerSender) release() {
	p.buf, p.head, p.captions = p.buf[:0], 0, nil
	p.queued = p.sent
}
