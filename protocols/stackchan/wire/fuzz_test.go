package wire

import (
	"bytes"
	"testing"
	"time"
)

// fuzzSeeds are the contract encodings plus the §2.1 examples, so the
// fuzzer starts from real frames and mutates toward the edge cases.
func fuzzSeeds(f *testing.F) [][]byte {
	var seeds [][]byte
	v := loadTestVectors(f)
	for _, vf := range v.ValidFrames {
		seeds = append(seeds, unhex(f, vf.EncodedHex))
	}
	for _, inv := range v.InvalidFrames {
		seeds = append(seeds, unhex(f, inv.EncodedHex))
	}
	for _, fr := range []Frame{HelloFrame(0, HostHello), HelloAckFrame(1, HelloPayload{4096, FirmwareCaps}), SpeakerCreditFrame(2, 3, 24000, 8192), StatusFrame(5, StatusListening), ErrorFrame(2, 0, ErrBusy)} {
		b, _ := AppendFrame(nil, fr)
		seeds = append(seeds, b)
	}
	return seeds
}

// FuzzParser checks the two properties of §4 that the contract cannot
// enumerate: the frames found do not depend on how the stream was split
// into reads, and every frame re-encodes to exactly the bytes it was parsed
// from, at the offset the parser reported.
func FuzzParser(f *testing.F) {
	seeds := fuzzSeeds(f)
	for _, s := range seeds {
		f.Add(s, []byte{5, 12})
	}
	f.Add(bytes.Join(seeds, []byte{0xff, 0x43}), []byte{1, 2, 3, 200})
	f.Fuzz(func(t *testing.T, data, cuts []byte) {
		var whole Parser
		whole.Feed(data)
		var want []Frame
		for {
			fr, ok := whole.Next()
			if !ok {
				break
			}
			start := whole.Offset() - int64(fr.EncodedLen())
			enc, err := AppendFrame(nil, fr)
			if err != nil {
				t.Fatalf("emitted frame does not re-encode: %v", err)
			}
			if start < 0 || !bytes.Equal(enc, data[start:whole.Offset()]) {
				t.Fatalf("frame at %d re-encodes to %x, input has %x", start, enc, data[max(start, 0):whole.Offset()])
			}
			fr.Payload = bytes.Clone(fr.Payload)
			want = append(want, fr)
		}
		st := whole.Stats()
		if int(st.SkippedBytes)+whole.Pending()+totalEncoded(want) != len(data) {
			t.Fatalf("skipped %d + pending %d + frames %d != input %d", st.SkippedBytes, whole.Pending(), totalEncoded(want), len(data))
		}

		var split Parser
		var got []Frame
		rest := data
		for i := 0; len(rest) > 0; i++ {
			n := len(rest)
			if len(cuts) > 0 {
				n = min(n, int(cuts[i%len(cuts)])+1)
			}
			split.Feed(rest[:n])
			rest = rest[n:]
			got = drain(&split, got)
		}
		if len(got) != len(want) {
			t.Fatalf("split input gave %d frames, whole gave %d", len(got), len(want))
		}
		for i := range got {
			if !framesEqual(got[i], want[i]) {
				t.Fatalf("frame %d differs: split %+v, whole %+v", i, got[i], want[i])
			}
		}
		// Only how much frameless garbage is still held back may depend on
		// the split (§4 step 1 waits below 24 bytes); every decision about
		// a header or a CRC must not.
		ss := split.Stats()
		if ss.CRCErrors != st.CRCErrors || ss.BadHeaders != st.BadHeaders ||
			int(ss.SkippedBytes)+split.Pending() != int(st.SkippedBytes)+whole.Pending() {
			t.Fatalf("split stats %+v pending %d, whole %+v pending %d", ss, split.Pending(), st, whole.Pending())
		}
	})
}

// FuzzDecodeFrame: DecodeFrame never panics; what it accepts re-encodes to
// the same bytes and is also what the parser finds at offset 0.
func FuzzDecodeFrame(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fr, n, err := DecodeFrame(data)
		if err != nil {
			return
		}
		enc, err := AppendFrame(nil, fr)
		if err != nil || !bytes.Equal(enc, data[:n]) {
			t.Fatalf("re-encode = %x, %v; input %x", enc, err, data[:n])
		}
		var p Parser
		p.Feed(data)
		pf, ok := p.Next()
		if !ok || p.Stats().SkippedBytes != 0 || !framesEqual(pf, fr) {
			t.Fatalf("parser disagrees: %+v %v, DecodeFrame %+v", pf, ok, fr)
		}
	})
}

// FuzzDecodeControl: any code and payload decodes or fails cleanly, and a
// decoded payload rebuilt with the matching constructor is the same bytes.
func FuzzDecodeControl(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		if fr, _, err := DecodeFrame(s); err == nil && fr.Type == TypeControl {
			f.Add(fr.Flags, fr.Payload)
		}
	}
	f.Add(uint16(CtrlSpeakerText), []byte("caption"))
	f.Add(uint16(CtrlMicStart), []byte{})
	f.Fuzz(func(t *testing.T, code uint16, payload []byte) {
		c, err := DecodeControl(ControlFrame(Control(code), 1, 0, 0, payload))
		if err != nil {
			return
		}
		var rebuilt Frame
		switch c.Code {
		case CtrlHello:
			rebuilt = HelloFrame(0, c.Hello)
		case CtrlHelloAck:
			rebuilt = HelloAckFrame(0, c.Hello)
		case CtrlError:
			rebuilt = ErrorFrame(0, 0, c.Error)
		case CtrlSpeakerCredit:
			rebuilt = SpeakerCreditFrame(0, 0, 0, c.Credit)
		case CtrlStatus:
			rebuilt = StatusFrame(0, c.Status)
		case CtrlSpeakerText:
			if rebuilt, err = SpeakerTextFrame(1, 0, 0, c.Text); err != nil {
				t.Fatalf("decoded caption refused by the constructor: %v", err)
			}
		default:
			rebuilt = ControlFrame(c.Code, 0, 0, 0, nil)
		}
		if !bytes.Equal(rebuilt.Payload, payload) {
			t.Fatalf("%s: rebuilt payload %x, input %x", c.Code, rebuilt.Payload, payload)
		}
	})
}

// FuzzParserTimed feeds data in reads split at cuts, the i-th read gaps[i]
// milliseconds after the one before, then checks the stale-partial
// extension (README.md "Cut-off frames"): every frame emitted is the input's
// bytes at the offset reported, every input byte is a frame, skipped or
// pending, nothing waits StaleAfter after the last read, and after the
// fill a HELLO is found whatever came before it.
func FuzzParserTimed(f *testing.F) {
	seeds := fuzzSeeds(f)
	for _, s := range seeds {
		f.Add(s, []byte{5, 12}, []byte{0, 200})
	}
	cut, _ := AppendFrame(nil, Frame{Type: TypeSpeakerPCM, StreamID: 1, SampleRate: 24000, Payload: make([]byte, MaxPayload)})
	hello, _ := AppendFrame(nil, HelloFrame(0, HostHello))
	beat, _ := AppendFrame(nil, StatusFrame(0, StatusIdle))
	// The two cases of issue 32: a cut frame, then a HELLO (or heartbeats)
	// within and after StaleAfter.
	f.Add(append(bytes.Clone(cut[:40]), hello...), []byte{39}, []byte{0, 100})
	f.Add(append(bytes.Clone(cut[:40]), hello...), []byte{39}, []byte{0, 250, 250})
	f.Add(bytes.Join([][]byte{cut[:40], beat, beat, beat}, nil), []byte{39, 23}, []byte{0, 200, 200, 200})
	f.Fuzz(func(t *testing.T, data, cuts, gaps []byte) {
		var p Parser
		var got []Frame
		now := time.Unix(1000, 0)
		rest := data
		for i := 0; len(rest) > 0; i++ {
			n := len(rest)
			if len(cuts) > 0 {
				n = min(n, int(cuts[i%len(cuts)])+1)
			}
			if len(gaps) > 0 {
				now = now.Add(time.Duration(gaps[i%len(gaps)]) * 10 * time.Millisecond)
			}
			p.FeedAt(now, rest[:n])
			rest = rest[n:]
			for fr, ok := p.Next(); ok; fr, ok = p.Next() {
				start := p.Offset() - int64(fr.EncodedLen())
				enc, err := AppendFrame(nil, fr)
				if err != nil || start < 0 || !bytes.Equal(enc, data[start:p.Offset()]) {
					t.Fatalf("frame at %d re-encodes to %x, %v", start, enc, err)
				}
				got = append(got, fr)
			}
			if at, ok := p.Deadline(); ok && at.After(now.Add(StaleAfter)) {
				t.Fatalf("deadline %v is beyond now+StaleAfter %v", at, now.Add(StaleAfter))
			}
		}
		st := p.Stats()
		if int(st.SkippedBytes)+p.Pending()+totalEncoded(got) != len(data) {
			t.Fatalf("skipped %d + pending %d + frames %d != input %d", st.SkippedBytes, p.Pending(), totalEncoded(got), len(data))
		}
		p.Expire(now.Add(StaleAfter))
		drain(&p, nil)
		if at, ok := p.Deadline(); ok {
			t.Fatalf("still waiting (until %v) StaleAfter after the last read", at)
		}
		p.Feed(AppendFill(nil))
		p.Feed(hello)
		tail := drain(&p, nil)
		if len(tail) == 0 || !framesEqual(tail[len(tail)-1], HelloFrame(0, HostHello)) || p.Pending() != 0 {
			t.Fatalf("after the fill: %d frames, pending %d; want HELLO last, nothing pending", len(tail), p.Pending())
		}
	})
}
