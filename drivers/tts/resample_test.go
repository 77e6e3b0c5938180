package tts

import (
	"math"
	"testing"
)

func sine(rate int, hz, amp float64, n int) []int16 {
	s := make([]int16, n)
	for i := range s {
		s[i] = int16(amp * math.Sin(2*math.Pi*hz*float64(i)/float64(rate)))
	}
	return s
}

// zeroCrossings counts sign changes from negative to non-negative.
func zeroCrossings(s []int16) int {
	n := 0
	for i := 1; i < len(s); i++ {
		if s[i-1] < 0 && s[i] >= 0 {
			n++
		}
	}
	return n
}

func peak(s []int16) int {
	p := 0
	for _, v := range s {
		p = max(p, int(math.Abs(float64(v))))
	}
	return p
}

func rms(s []int16) float64 {
	if len(s) == 0 {
		return 0
	}
	sum := 0.0
	for _, v := range s {
		sum += float64(v) * float64(v)
	}
	return math.Sqrt(sum / float64(len(s)))
}

func TestResampleKeepsSine(t *testing.T) {
	const from, hz, amp = 22050, 1000.0, 20000.0
	in := FromSamples(from, sine(from, hz, amp, from)) // one second
	for _, to := range []int{24000, 16000, 8000, 44100, 48000} {
		out, err := Resample(in, to)
		if err != nil {
			t.Fatal(err)
		}
		s := out.Samples()
		if len(s) != to {
			t.Fatalf("%d Hz: %d samples for one second", to, len(s))
		}
		// Skip the kernel's ramp at both edges.
		mid := s[to/20 : len(s)-to/20]
		seconds := float64(len(mid)) / float64(to)
		if zc := float64(zeroCrossings(mid)) / seconds; math.Abs(zc-hz) > 2 {
			t.Errorf("%d Hz: %0.1f crossings per second, want %v", to, zc, hz)
		}
		if p := peak(mid); math.Abs(float64(p)-amp) > amp*0.01 {
			t.Errorf("%d Hz: peak %d, want %v ±1%%", to, p, amp)
		}
		if r := rms(mid); math.Abs(r-amp/math.Sqrt2) > amp*0.01 {
			t.Errorf("%d Hz: RMS %.0f, want %.0f ±1%%", to, r, amp/math.Sqrt2)
		}
	}
}

func TestResampleRemovesAliases(t *testing.T) {
	// 10 kHz fits 22050 Hz but not 16000 Hz (Nyquist 8 kHz): linear
	// interpolation would fold it to 6 kHz at nearly full level.
	in := FromSamples(22050, sine(22050, 10000, 20000, 22050))
	out, err := Resample(in, 16000)
	if err != nil {
		t.Fatal(err)
	}
	s := out.Samples()
	if r := rms(s[800 : len(s)-800]); r > 20000/math.Sqrt2*0.01 {
		t.Fatalf("alias of a 10 kHz tone at 16 kHz has RMS %.0f, want below -40 dB", r)
	}
}

func TestResampleEdges(t *testing.T) {
	p := FromSamples(22050, []int16{1000, 2000, 3000})
	same, err := Resample(p, 22050)
	if err != nil || len(same.Data) != 6 {
		t.Fatalf("same rate: %v, %d bytes", err, len(same.Data))
	}
	for _, tt := range []struct {
		in PCM
		to int
	}{{PCM{Rate: 0}, 8000}, {p, 0}, {p, 22050 * 17}, {PCM{Rate: 192000}, 8000}} {
		if _, err := Resample(tt.in, tt.to); err == nil {
			t.Errorf("Resample(%d Hz → %d Hz) succeeded", tt.in.Rate, tt.to)
		}
	}
	empty, err := Resample(PCM{Rate: 22050}, 24000)
	if err != nil || len(empty.Data) != 0 || empty.Rate != 24000 {
		t.Fatalf("empty: %+v, %v", empty, err)
	}
	// Full-scale square waves overshoot (Gibbs); output must clip, not wrap.
	sq := make([]int16, 2000)
	for i := range sq {
		sq[i] = 32767
		if i/50%2 == 1 {
			sq[i] = -32768
		}
	}
	out, _ := Resample(FromSamples(22050, sq), 24000)
	for i, v := range out.Samples()[:2000] {
		x := float64(i) * 22050 / 24000 // input position
		if pos := math.Mod(x, 50); pos < 8 || pos > 42 {
			continue // near an edge, where ringing is expected
		}
		if want := sq[int(x)]; (want > 0) != (v > 0) || math.Abs(float64(v)) < 20000 {
			t.Fatalf("sample %d = %d inside a %d plateau: wrapped around instead of clipping", i, v, want)
		}
	}
	// An odd rate pair (more than maxPhases phases) still works.
	odd, err := Resample(FromSamples(22050, sine(22050, 1000, 10000, 22050)), 23999)
	if err != nil || len(odd.Data)/2 != 23999 {
		t.Fatalf("22050 → 23999: %v, %d samples", err, len(odd.Data)/2)
	}
	if zc := zeroCrossings(odd.Samples()[1000:22999]); math.Abs(float64(zc)-1000*21999/23999.0) > 3 {
		t.Fatalf("22050 → 23999: %d crossings", zc)
	}
}

func benchResample(b *testing.B, from, to int) {
	in := FromSamples(from, sine(from, 440, 10000, from))
	Resample(in, to) // build the kernel outside the timing
	b.SetBytes(int64(len(in.Data)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := Resample(in, to); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(from)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}

func BenchmarkResample22050To24000(b *testing.B) { benchResample(b, 22050, 24000) }
func BenchmarkResample22050To16000(b *testing.B) { benchResample(b, 22050, 16000) }
func BenchmarkResample22050To8000(b *testing.B)  { benchResample(b, 22050, 8000) }
