// Package tts turns text into speech for the dock's speaker session (spec
// §12) and, later, the Pi's own speaker: a Synth interface with espeak-ng
// (the default, a Debian package), piper (neural voices, when installed and
// configured) and a Fake for tests, plus the pieces around them: a sentence
// splitter for captions, a resampler to the session rate, and a WAV reader
// and writer.
//
// Everything speaks 16-bit signed little-endian mono PCM, the dock's format
// (spec §12.1). Engines run as child processes with the text on stdin, never
// through a shell.
package tts

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"
)

// PCM is 16-bit signed little-endian mono audio.
type PCM struct {
	Rate int    // samples per second
	Data []byte // little-endian int16 samples; even length
}

// Duration is the playing time of p.
func (p PCM) Duration() time.Duration {
	if p.Rate <= 0 {
		return 0
	}
	return time.Duration(len(p.Data)/2) * time.Second / time.Duration(p.Rate)
}

// Samples decodes p into int16 samples (a trailing odd byte is ignored).
func (p PCM) Samples() []int16 {
	s := make([]int16, len(p.Data)/2)
	for i := range s {
		s[i] = int16(binary.LittleEndian.Uint16(p.Data[2*i:]))
	}
	return s
}

// FromSamples encodes samples as PCM at rate.
func FromSamples(rate int, s []int16) PCM {
	b := make([]byte, 2*len(s))
	for i, v := range s {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
	}
	return PCM{Rate: rate, Data: b}
}

// Synth turns one piece of text (normally one sentence from Split) into PCM
// at rate. Implementations must honour ctx (barge-in cancels synthesis),
// accept any UTF-8 text, and return empty PCM, not an error, for text with
// nothing to say.
type Synth interface {
	Synthesize(ctx context.Context, text string, rate int) (PCM, error)
}

// checkRate rejects sample rates no output can play, before an engine runs.
func checkRate(rate int) error {
	if rate < 4000 || rate > 192000 {
		return fmt.Errorf("tts: unsupported sample rate %d Hz (want 4000–192000)", rate)
	}
	return nil
}
