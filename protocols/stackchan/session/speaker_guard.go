package session

import (
	"bytes"
	"time"
	"unicode/utf8"

	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// SpeakerGuard is the firmware's speaker session state (spec §12.4-12.7):
// IDLE(lastFinished) or ACTIVE with a 1 s PCM queue, an 8 KiB credit window, a
// strict sequence check and up to 16 captions waiting for their PCM.
//
// Playback is simulated: Advance consumes queued PCM at the session rate, as
// the audio output would, shows captions whose PCM is reached, tops up credit
// and completes an ended session with SPEAKER_DONE. The zero value is IDLE.
type SpeakerGuard struct {
	cur         Session
	ended       bool
	playing     bool
	capacity    int // rate×2: one second of PCM
	queued      int // accepted, not yet written to the output
	outstanding int // credit granted, not yet used
	expectedSeq uint32
	received    int64 // PCM bytes accepted this session
	written     int64 // PCM bytes written to the output this session
	carry       time.Duration
	captions    []caption
	last        Session // last finished session
}

// caption waits until the output has written past the PCM byte at which it was
// queued, which is where its sentence starts.
type caption struct {
	at   int64
	text string
}

// check is the current-session check of spec §12.4.
type check uint8

const (
	checkOK check = iota
	checkInvalid
	checkStale
	checkIdempotent
)

// Active returns the current session (zero when idle).
func (g *SpeakerGuard) Active() Session { return g.cur }

// Last returns the last finished session (zero after a reset).
func (g *SpeakerGuard) Last() Session { return g.last }

// Ended reports whether SPEAKER_END was accepted for the current session.
func (g *SpeakerGuard) Ended() bool { return g.cur.StreamID != 0 && g.ended }

// Playing reports whether the simulated output has started (prebuffer reached or END).
func (g *SpeakerGuard) Playing() bool { return g.cur.StreamID != 0 && g.playing }

// Queued returns the PCM bytes waiting for the output.
func (g *SpeakerGuard) Queued() int { return g.queued }

// Outstanding returns the credit granted and not yet consumed.
func (g *SpeakerGuard) Outstanding() int { return g.outstanding }

// PendingCaptions returns how many accepted captions wait for their PCM.
func (g *SpeakerGuard) PendingCaptions() int { return len(g.captions) }

// ExpectedSequence returns the sequence number the next PCM frame must carry.
func (g *SpeakerGuard) ExpectedSequence() uint32 { return g.expectedSeq }

func (g *SpeakerGuard) check(id uint16, rate uint32) check {
	if id == 0 || !ValidSpeakerRate(rate) {
		return checkInvalid
	}
	if g.cur.StreamID == 0 {
		if g.last.StreamID != 0 && id == g.last.StreamID {
			if rate == g.last.SampleRate {
				return checkIdempotent
			}
			return checkInvalid
		}
		return checkStale
	}
	if id != g.cur.StreamID {
		return checkStale
	}
	if rate != g.cur.SampleRate {
		return checkInvalid
	}
	return checkOK
}

// Start handles SPEAKER_START(id, rate). busy is true while the microphone is
// active or media is disabled. Busy is checked before validity, as upstream does.
func (g *SpeakerGuard) Start(id uint16, rate uint32, payloadLen int, busy bool) Outcome {
	var o Outcome
	switch {
	case busy:
		o.Result = Busy
		o.fail(wire.ErrBusy, id)
	case id == 0 || !ValidSpeakerRate(rate) || payloadLen != 0:
		o.Result = Invalid
		o.fail(wire.ErrInvalidStreamData, id)
	case g.cur.StreamID == 0:
		o.Result = Accepted
		last := g.last
		*g = SpeakerGuard{cur: Session{id, rate}, capacity: int(rate) * 2, last: last, captions: g.captions[:0]}
		g.topUp(&o)
	case g.cur == Session{id, rate} && !g.ended:
		// No new credit: the first grant is still outstanding or in use.
		o.Result = Idempotent
	default:
		o.Result = Busy
		o.fail(wire.ErrBusy, id)
	}
	return o
}

// End handles SPEAKER_END. Playback starts even below the prebuffer; the
// SPEAKER_DONE comes from Advance once the queue has played out (Advance(0) for
// a session that never received PCM).
func (g *SpeakerGuard) End(id uint16, rate uint32, payloadLen int) Outcome {
	o, ends := g.closing(id, rate, payloadLen, g.ended)
	if ends {
		g.ended, g.playing = true, true
	}
	return o
}

// Abort handles SPEAKER_ABORT: the session ends at once, without SPEAKER_DONE.
// Aborting the last finished session (also one the firmware force-stopped) is
// idempotent and silent (spec §23).
func (g *SpeakerGuard) Abort(id uint16, rate uint32, payloadLen int) Outcome {
	o, ends := g.closing(id, rate, payloadLen, false)
	if ends {
		g.finish()
	}
	return o
}

// closing is the answer End and Abort share: a bad or non-empty request is
// Invalid, one for an older session Stale, one for the last finished
// session or a repeat (repeated: End after End) Idempotent. ends says the
// request is Accepted and closes the current session; the caller then does
// what closing means to it.
func (g *SpeakerGuard) closing(id uint16, rate uint32, payloadLen int, repeated bool) (o Outcome, ends bool) {
	switch c := g.check(id, rate); {
	case c == checkInvalid || (c == checkOK && payloadLen != 0):
		o.Result = Invalid
		o.fail(wire.ErrInvalidStreamData, id)
	case c == checkStale:
		o.Result = Stale
	case c == checkIdempotent || repeated:
		o.Result = Idempotent
	default:
		o.Result = Accepted
		return o, true
	}
	return o, false
}

// ValidateData classifies a SPEAKER_PCM frame without acting on it, returning
// the ERROR code the firmware would send (0 if none). Checks run in the order
// of spec §12.4: session, validity and credit, sequence, capacity.
func (g *SpeakerGuard) ValidateData(id uint16, rate uint32, seq uint32, payloadLen int) (Result, wire.ErrorCode) {
	switch g.check(id, rate) {
	case checkInvalid:
		return Invalid, wire.ErrInvalidStreamData
	case checkStale:
		return Stale, 0
	case checkIdempotent:
		// Late PCM of the finished stream: upstream answers ERROR 2, we drop it.
		return Idempotent, 0
	}
	switch {
	case g.ended, payloadLen%2 != 0, !WithinCredit(payloadLen, g.outstanding):
		return Invalid, wire.ErrInvalidStreamData
	case seq != g.expectedSeq:
		return Invalid, wire.ErrSpeakerSequenceMismatch
	case g.queued+payloadLen > g.capacity:
		return Invalid, wire.ErrSpeakerBufferOverflow
	}
	return Accepted, 0
}

// PCM handles a SPEAKER_PCM frame of payloadLen bytes. A bad frame for the
// current session force-stops it (no SPEAKER_DONE) after the ERROR.
func (g *SpeakerGuard) PCM(id uint16, rate uint32, seq uint32, payloadLen int) Outcome {
	var o Outcome
	res, code := g.ValidateData(id, rate, seq, payloadLen)
	o.Result = res
	if code != 0 {
		o.fail(code, id)
		if g.cur.StreamID != 0 {
			g.finish()
		}
		return o
	}
	if res != Accepted {
		return o
	}
	g.expectedSeq++
	g.outstanding -= payloadLen
	g.queued += payloadLen
	g.received += int64(payloadLen)
	if g.queued >= g.capacity/2 { // 500 ms prebuffer
		g.playing = true
	}
	g.topUp(&o)
	return o
}

// Text handles SPEAKER_TEXT. Caption errors never stop the session. Accepted
// captions are trimmed and wait for the PCM that follows them.
func (g *SpeakerGuard) Text(id uint16, rate uint32, text []byte) Outcome {
	var o Outcome
	c := g.check(id, rate)
	switch c {
	case checkStale:
		o.Result = Stale
		return o
	case checkIdempotent:
		o.Result = Idempotent
		return o
	}
	trimmed := bytes.TrimSpace(text)
	code := wire.ErrorCode(0)
	switch {
	case c == checkInvalid, g.ended, len(text) == 0, len(text) > MaxCaptionBytes:
		code = wire.ErrInvalidRequest
	case len(g.captions) >= MaxCaptions:
		code = wire.ErrCaptionQueueOverflow
	case !utf8.Valid(text), len(trimmed) == 0:
		code = wire.ErrInvalidRequest
	}
	if code != 0 {
		o.Result = Invalid
		o.fail(code, id)
		return o
	}
	o.Result = Accepted
	g.captions = append(g.captions, caption{at: g.received, text: string(trimmed)})
	return o
}

// ForceStop stops the active session without SPEAKER_DONE (audio output
// failure, media disabled); code is sent as ERROR unless it is 0. The stopped
// session becomes the last finished one.
func (g *SpeakerGuard) ForceStop(code wire.ErrorCode) (Session, Outcome) {
	var o Outcome
	stopped := g.cur
	if stopped.StreamID == 0 {
		return Session{}, o
	}
	if code != 0 {
		o.fail(code, stopped.StreamID)
	}
	g.finish()
	return stopped, o
}

// Clear records the normal completion of stream id and reports whether it was
// the active session. Advance calls it and sends SPEAKER_DONE; a caller using
// Clear directly sends DONE itself.
func (g *SpeakerGuard) Clear(id uint16) bool {
	if id == 0 || g.cur.StreamID != id {
		return false
	}
	g.finish()
	return true
}

// Reset is the HELLO / USB-disconnect reset: the session stops silently and the
// last finished session is forgotten (ours, spec §9.2).
func (g *SpeakerGuard) Reset() { *g = SpeakerGuard{captions: g.captions[:0]} }

// finish moves to IDLE(lastFinished = current), dropping queue and captions.
func (g *SpeakerGuard) finish() {
	*g = SpeakerGuard{last: g.cur, captions: g.captions[:0]}
}

// topUp grants credit so that outstanding = min(window, capacity − queued).
func (g *SpeakerGuard) topUp(o *Outcome) {
	if g.cur.StreamID == 0 || g.ended {
		return
	}
	credit := min(CreditWindow, g.capacity-g.queued) - g.outstanding
	if credit > 0 {
		g.outstanding += credit
		o.reply(wire.CtrlSpeakerCredit, g.cur, uint32(credit))
	}
}

// maxAdvance bounds one Advance step so rate×duration cannot overflow.
const maxAdvance = time.Hour

// Advance lets the simulated output play for d: it writes queued PCM at the
// session rate (once playing), shows captions whose PCM was reached, tops up
// credit, and sends SPEAKER_DONE when an ended session has played out.
func (g *SpeakerGuard) Advance(d time.Duration) Outcome {
	var o Outcome
	if g.cur.StreamID == 0 {
		return o
	}
	d = max(0, min(d, maxAdvance))
	if g.playing {
		total := g.carry + d
		rate := int64(g.cur.SampleRate)
		samples := rate * int64(total) / int64(time.Second)
		if avail := int64(g.queued / 2); samples >= avail {
			samples, g.carry = avail, 0 // underrun: the output idles
		} else {
			g.carry = total - time.Duration(samples*int64(time.Second)/rate)
		}
		g.queued -= int(samples * 2)
		g.written += samples * 2
		g.showCaptions(&o)
	}
	if g.ended && g.queued == 0 {
		s := g.cur
		g.Clear(s.StreamID)
		o.reply(wire.CtrlSpeakerDone, s, 0)
		return o
	}
	g.topUp(&o)
	return o
}

func (g *SpeakerGuard) showCaptions(o *Outcome) {
	n := 0
	for n < len(g.captions) && g.captions[n].at < g.written {
		o.Captions = append(o.Captions, g.captions[n].text)
		n++
	}
	if n > 0 {
		g.captions = append(g.captions[:0], g.captions[n:]...)
	}
}
