package tts

import (
	"fmt"
	"math"
	"sync"
)

// Resampling is band-limited (windowed sinc), not linear interpolation.
// Linear interpolation, which the upstream hosts use, folds everything above
// the new Nyquist back into the audible band; going 22050 → 8000 for a
// narrow-band voice that aliasing is clearly audible as hiss on sibilants.
// A Blackman-windowed sinc with 16 zero crossings a side keeps aliases below
// about -70 dB for the cost of ~32 multiply-adds per output sample (~100 for
// the 22050 → 8000 case, where the kernel widens to filter harder), which a
// Pi does at hundreds of times real time.
const (
	sincZeros = 16   // zero crossings on each side of the kernel
	maxPhases = 1024 // exact polyphase up to this many phases, quantised beyond
	rolloff   = 0.94 // cutoff as a fraction of the lower Nyquist: room for the transition band
)

// kernel is the polyphase filter for one rate pair.
type kernel struct {
	up, down int // output step: down/up input samples per output sample
	phases   int
	half     int       // taps on each side of the centre
	coef     []float32 // phases × 2*half
}

var kernels sync.Map // [2]int{from, to} → *kernel

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func kernelFor(from, to int) *kernel {
	key := [2]int{from, to}
	if k, ok := kernels.Load(key); ok {
		return k.(*kernel)
	}
	g := gcd(from, to)
	k := &kernel{up: to / g, down: from / g}
	k.phases = min(k.up, maxPhases)
	fc := rolloff * min(1, float64(to)/float64(from)) // cutoff in cycles per input sample ×2
	k.half = int(math.Ceil(sincZeros / fc))
	taps := 2 * k.half
	k.coef = make([]float32, k.phases*taps)
	for ph := range k.phases {
		frac := float64(ph) / float64(k.phases) // output position past the centre input sample
		row := k.coef[ph*taps : (ph+1)*taps]
		sum := 0.0
		w := make([]float64, taps)
		for j := range taps {
			d := float64(j-k.half+1) - frac // input index minus output position
			x := d / float64(k.half)        // −1…1 across the window
			if x <= -1 || x >= 1 {
				continue
			}
			win := 0.42 + 0.5*math.Cos(math.Pi*x) + 0.08*math.Cos(2*math.Pi*x) // Blackman
			w[j] = fc * sinc(fc*d) * win
			sum += w[j]
		}
		// Normalise each phase to unit DC gain so no phase pulses the level.
		for j := range taps {
			row[j] = float32(w[j] / sum)
		}
	}
	kernels.Store(key, k)
	return k
}

func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	return math.Sin(math.Pi*x) / (math.Pi * x)
}

// Resample converts p to rate. The output has round(n·rate/p.Rate) samples,
// so durations are kept; edges are treated as silence.
func Resample(p PCM, rate int) (PCM, error) {
	if p.Rate <= 0 || rate <= 0 {
		return PCM{}, fmt.Errorf("tts: resampling %d Hz → %d Hz: rates must be positive", p.Rate, rate)
	}
	if p.Rate == rate {
		return PCM{Rate: rate, Data: p.Data[:len(p.Data)&^1]}, nil
	}
	if p.Rate > 16*rate || rate > 16*p.Rate {
		return PCM{}, fmt.Errorf("tts: resampling %d Hz → %d Hz: ratio beyond 16", p.Rate, rate)
	}
	in := p.Samples()
	return FromSamples(rate, resample(in, p.Rate, rate)), nil
}

func resample(in []int16, from, to int) []int16 {
	k := kernelFor(from, to)
	n := int((int64(len(in))*int64(to) + int64(from)/2) / int64(from))
	out := make([]int16, n)
	taps := 2 * k.half
	for i := range out {
		pos := int64(i) * int64(k.down) // in units of 1/up input samples
		base := int(pos / int64(k.up))
		ph := int(pos % int64(k.up))
		if k.phases != k.up {
			ph = int(int64(ph) * int64(k.phases) / int64(k.up))
		}
		row := k.coef[ph*taps : (ph+1)*taps]
		first := base - k.half + 1
		var acc float32
		if first >= 0 && first+taps <= len(in) {
			win := in[first : first+taps]
			for j, c := range row {
				acc += c * float32(win[j])
			}
		} else {
			for j, c := range row {
				if idx := first + j; idx >= 0 && idx < len(in) {
					acc += c * float32(in[idx])
				}
			}
		}
		out[i] = clamp16(acc)
	}
	return out
}

func clamp16(v float32) int16 {
	switch {
	case v >= 32767:
		return 32767
	case v <= -32768:
		return -32768
	}
	return int16(math.Round(float64(v)))
}
