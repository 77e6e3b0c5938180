package audio

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"

	"github.com/claude-pi/claude-pi/drivers/tts"
)

func TestSynthesize_properties(t *testing.T) {
	var all []tts.PCM
	for _, c := range []Chime{ChimePrompt, ChimeApprove, ChimeDeny} {
		p, err := Synthesize(c)
		if err != nil {
			t.Fatal(c, err)
		}
		if p.Rate != ChimeRate {
			t.Errorf("%v: rate %d", c, p.Rate)
		}
		if d := p.Duration(); d < 300*time.Millisecond || d > time.Second {
			t.Errorf("%v: %v long, want a short chime (0.3..1 s)", c, d)
		}
		s := p.Samples()
		var peak int
		var energy float64
		for _, v := range s {
			peak = max(peak, abs(int(v)))
			energy += float64(v) * float64(v)
		}
		if rms := math.Sqrt(energy / float64(len(s))); rms < 1000 {
			t.Errorf("%v: RMS %.0f, practically silent", c, rms)
		}
		if peak > 20000 || peak < 10000 {
			t.Errorf("%v: peak %d, want about -6 dBFS (16384)", c, peak)
		}
		// Click-free: the first and last samples are near zero.
		if abs(int(s[0])) > 200 || abs(int(s[len(s)-1])) > 200 {
			t.Errorf("%v: starts at %d, ends at %d: clicks", c, s[0], s[len(s)-1])
		}
		all = append(all, p)
	}
	for i := range all {
		for j := i + 1; j < len(all); j++ {
			if bytes.Equal(all[i].Data, all[j].Data) {
				t.Errorf("chimes %d and %d are identical", i, j)
			}
			// Distinct in pitch, not just in bytes: compare the dominant
			// frequency of the opening 60 ms.
			if fi, fj := dominantHz(all[i]), dominantHz(all[j]); math.Abs(fi-fj) < 100 {
				t.Errorf("chimes %d and %d open on the same pitch (%.0f, %.0f Hz)", i, j, fi, fj)
			}
		}
	}
	if _, err := Synthesize(Chime(42)); err == nil {
		t.Error("unknown chime: no error")
	}
}

// dominantHz estimates the opening pitch by counting zero crossings.
func dominantHz(p tts.PCM) float64 {
	s := p.Samples()[:p.Rate*60/1000]
	n := 0
	for i := 1; i < len(s); i++ {
		if (s[i-1] < 0) != (s[i] < 0) {
			n++
		}
	}
	return float64(n) / 2 / 0.060
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func TestWAVFile(t *testing.T) {
	dir := t.TempDir()
	w := &WAVFile{Dir: dir}
	p := tts.FromSamples(8000, []int16{0, 1000, -1000, 32767, -32768})
	for range 2 {
		if err := w.Play(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"000.wav", "001.wav"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := tts.DecodeWAV(b)
		if err != nil {
			t.Fatal(name, err)
		}
		if got.Rate != 8000 || !bytes.Equal(got.Data, p.Data) {
			t.Errorf("%s = %d Hz %x, want 8000 Hz %x", name, got.Rate, got.Data, p.Data)
		}
	}
	if err := w.Play(context.Background(), tts.PCM{Rate: 8000, Data: []byte{1}}); err == nil {
		t.Error("odd-length PCM accepted")
	}
}

func TestAplay_args(t *testing.T) {
	tests := []struct {
		dev  string
		rate int
		want string
	}{
		{"", 22050, "-q -t raw -f S16_LE -r 22050 -c 1 -D default"},
		{"plughw:CARD=sndrpihifiberry,DEV=0", 16000, "-q -t raw -f S16_LE -r 16000 -c 1 -D plughw:CARD=sndrpihifiberry,DEV=0"},
	}
	for _, tt := range tests {
		a := &Aplay{Device: tt.dev}
		if got := strings.Join(a.Args(tt.rate), " "); got != tt.want {
			t.Errorf("Args = %q, want %q", got, tt.want)
		}
	}
}

func fakeAplay(t *testing.T) (path, out string) {
	t.Helper()
	path, err := filepath.Abs("testdata/fake-aplay")
	if err != nil {
		t.Fatal(err)
	}
	out = filepath.Join(t.TempDir(), "rec")
	t.Setenv("FAKE_APLAY_OUT", out)
	return path, out
}

// recPin records every level written.
type recPin struct {
	gpiotest.Pin
	levels []gpio.Level
}

func (p *recPin) Out(l gpio.Level) error {
	p.levels = append(p.levels, l)
	return p.Pin.Out(l)
}

func TestAplay_play(t *testing.T) {
	path, out := fakeAplay(t)
	amp := &recPin{Pin: gpiotest.Pin{N: "GPIO25", Num: 25}}
	a := &Aplay{Device: "plughw:CARD=sndrpihifiberry,DEV=0", Path: path, Amp: amp}
	p, _ := Synthesize(ChimeApprove)
	if err := a.Play(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	args, _ := os.ReadFile(out + ".args")
	if got, want := strings.Fields(string(args)), a.Args(ChimeRate); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("aplay got %q, want %q", got, want)
	}
	pcm, _ := os.ReadFile(out + ".pcm")
	if !bytes.Equal(pcm, p.Data) {
		t.Errorf("aplay got %d bytes on stdin, want the %d PCM bytes", len(pcm), len(p.Data))
	}
	if len(amp.levels) != 2 || amp.levels[0] != gpio.High || amp.levels[1] != gpio.Low {
		t.Errorf("amplifier levels %v, want [High Low] around the sound", amp.levels)
	}
}

func TestAplay_errors(t *testing.T) {
	path, _ := fakeAplay(t)
	t.Setenv("FAKE_APLAY_FAIL", "1")
	a := &Aplay{Path: path}
	err := a.Play(context.Background(), tts.FromSamples(8000, []int16{1, 2}))
	if err == nil || !strings.Contains(err.Error(), "audio open error") || !strings.Contains(err.Error(), "-D default") {
		t.Errorf("failing aplay: %v, want its stderr and device in the error", err)
	}
	missing := &Aplay{Path: filepath.Join(t.TempDir(), "no-aplay")}
	if err := missing.Play(context.Background(), tts.FromSamples(8000, []int16{1})); err == nil {
		t.Error("missing aplay: no error")
	}
	if err := a.Play(context.Background(), tts.PCM{Rate: 0, Data: []byte{0, 0}}); err == nil || !strings.Contains(err.Error(), "sample rate") {
		t.Errorf("rate 0: %v", err)
	}
}

func TestFake(t *testing.T) {
	f := &Fake{}
	p, _ := Synthesize(ChimeDeny)
	if err := f.Play(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if got := f.Played(); len(got) != 1 || !bytes.Equal(got[0].Data, p.Data) {
		t.Errorf("Played = %d sounds", len(got))
	}
	f.Err = errors.New("boom")
	if err := f.Play(context.Background(), p); err == nil {
		t.Error("Err not returned")
	}
}

func BenchmarkSynthesize(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Synthesize(ChimePrompt); err != nil {
			b.Fatal(err)
		}
	}
}
