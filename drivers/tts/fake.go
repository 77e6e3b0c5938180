package tts

import (
	"context"
	"math"
	"sync"
	"time"
)

// Fake is a Synth for tests: every character becomes CharDuration of a sine
// tone whose pitch depends on the character, so output is deterministic,
// non-silent and its length predictable. It records every request.
type Fake struct {
	// CharDuration per rune; zero means 20 ms.
	CharDuration time.Duration
	// Err, when set, is returned instead of audio.
	Err error

	mu       sync.Mutex
	requests []FakeRequest
}

// FakeRequest is one recorded Synthesize call.
type FakeRequest struct {
	Text string
	Rate int
}

// Synthesize returns the tone sequence for text at rate.
func (f *Fake) Synthesize(ctx context.Context, text string, rate int) (PCM, error) {
	f.mu.Lock()
	f.requests = append(f.requests, FakeRequest{text, rate})
	f.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return PCM{}, err
	}
	if err := checkRate(rate); err != nil {
		return PCM{}, err
	}
	if f.Err != nil {
		return PCM{}, f.Err
	}
	d := f.CharDuration
	if d <= 0 {
		d = 20 * time.Millisecond
	}
	per := int(int64(rate) * int64(d) / int64(time.Second))
	var s []int16
	for _, r := range text {
		hz := 200 + float64(r%64)*25 // 200–1775 Hz, below every session Nyquist
		for i := range per {
			s = append(s, int16(8000*math.Sin(2*math.Pi*hz*float64(i)/float64(rate))))
		}
	}
	return FromSamples(rate, s), nil
}

// Requests returns a copy of the calls so far.
func (f *Fake) Requests() []FakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]FakeRequest(nil), f.requests...)
}

var _ Synth = (*Fake)(nil)
