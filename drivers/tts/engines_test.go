package tts

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

func needEspeak(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("espeak-ng"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("espeak-ng missing on CI")
		}
		t.Skip("espeak-ng not installed")
	}
}

func TestEspeakSynthesize(t *testing.T) {
	needEspeak(t)
	e := &Espeak{}
	text := "Hello, this is Claude on the Stack-chan dock."
	for _, rate := range []int{24000, 16000, 8000} {
		p, err := e.Synthesize(context.Background(), text, rate)
		if err != nil {
			t.Fatal(err)
		}
		if p.Rate != rate || len(p.Data)%2 != 0 {
			t.Fatalf("%d Hz: got rate %d, %d bytes", rate, p.Rate, len(p.Data))
		}
		// Eight words at espeak-ng's 175 wpm, plus its pauses: 2–5 s.
		if d := p.Duration(); d < 2*time.Second || d > 5*time.Second {
			t.Fatalf("%d Hz: %v of audio for %q", rate, d, text)
		}
		if r := rms(p.Samples()); r < 500 {
			t.Fatalf("%d Hz: RMS %.0f: silent", rate, r)
		}
	}
	// The duration must not depend on the output rate beyond rounding.
	a, _ := e.Synthesize(context.Background(), "Short.", 24000)
	b, _ := e.Synthesize(context.Background(), "Short.", 8000)
	if d := a.Duration() - b.Duration(); d > time.Millisecond || d < -time.Millisecond {
		t.Fatalf("durations differ by %v across rates", d)
	}
}

func TestEspeakSafeText(t *testing.T) {
	needEspeak(t)
	e := &Espeak{Speed: 220}
	// Flags, shell syntax and phoneme brackets are spoken, not obeyed.
	for _, text := range []string{"--version", "-v de; rm -rf / `id` $(id)", "[[h@l'oU]] world", "日本語"} {
		p, err := e.Synthesize(context.Background(), text, 16000)
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if len(p.Data) == 0 {
			t.Fatalf("%q: no audio", text)
		}
	}
	p, err := e.Synthesize(context.Background(), "  \n ", 16000)
	if err != nil || len(p.Data) != 0 || p.Rate != 16000 {
		t.Fatalf("blank text: %+v, %v", p, err)
	}
}

func TestEspeakErrors(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	needEspeak(t)
	if _, err := (&Espeak{}).Synthesize(ctx, "Too late.", 24000); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	if _, err := (&Espeak{Binary: "/nonexistent/espeak-ng"}).Synthesize(context.Background(), "x", 24000); err == nil || !strings.Contains(err.Error(), "espeak-ng not found") {
		t.Fatalf("missing binary: %v", err)
	}
	if _, err := (&Espeak{}).Synthesize(context.Background(), "x", 100); err == nil || !strings.Contains(err.Error(), "100 Hz") {
		t.Fatalf("rate 100: %v", err)
	}
}

func fakePiper(t *testing.T, rate int) (*Piper, string) {
	t.Helper()
	dir := t.TempDir()
	bin, err := filepath.Abs("testdata/fake-piper.sh")
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "en_US-test-medium.onnx")
	cfg := `{"audio": {"sample_rate": ` + strconv.Itoa(rate) + `}, "espeak": {"voice": "en-us"}}`
	if err := os.WriteFile(model+".json", []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "log")
	t.Setenv("FAKE_PIPER_LOG", log)
	return &Piper{Binary: bin, Model: model}, log
}

func TestPiper(t *testing.T) {
	p, log := fakePiper(t, 16000)
	out, err := p.Synthesize(context.Background(), "Hi there,\nfriend [[x]]", 16000)
	if err != nil {
		t.Fatal(err)
	}
	stdin, _ := os.ReadFile(log + ".stdin")
	if want := "Hi there, friend [ [x]]\n"; string(stdin) != want {
		t.Fatalf("piper stdin %q, want %q", stdin, want)
	}
	args, _ := os.ReadFile(log + ".args")
	if want := []string{"--model", p.Model, "--output_raw"}; !reflect.DeepEqual(strings.Fields(string(args)), want) {
		t.Fatalf("piper args %q, want %q", args, want)
	}
	// One sample per stdin byte at the model's rate, unchanged at 16 kHz.
	if s := out.Samples(); len(s) != len(stdin) || s[0] != 256 || s[len(s)/2] != 256 || out.Rate != 16000 {
		t.Fatalf("piper output %d samples at %d Hz, first %d", len(s), out.Rate, s[0])
	}
	up, err := p.Synthesize(context.Background(), "Hi there, friend [[x]]", 24000)
	if err != nil || len(up.Data)/2 != len(stdin)*3/2 {
		t.Fatalf("resampled to 24 kHz: %d samples, %v", len(up.Data)/2, err)
	}
	spk := 3
	p.Speaker, p.Config = &spk, p.Model+".json"
	if _, err := p.Synthesize(context.Background(), "x", 16000); err != nil {
		t.Fatal(err)
	}
	args, _ = os.ReadFile(log + ".args")
	if want := []string{"--model", p.Model, "--output_raw", "--config", p.Model + ".json", "--speaker", "3"}; !reflect.DeepEqual(strings.Fields(string(args)), want) {
		t.Fatalf("piper args %q, want %q", args, want)
	}
}

func TestPiperErrors(t *testing.T) {
	p, _ := fakePiper(t, 22050)
	if _, err := p.Synthesize(context.Background(), "please FAIL", 16000); err == nil || !strings.Contains(err.Error(), "voice exploded") {
		t.Fatalf("failing piper: %v, want its stderr in the error", err)
	}
	if _, err := (&Piper{}).Synthesize(context.Background(), "x", 16000); err == nil || !strings.Contains(err.Error(), "voice model") {
		t.Fatalf("no model: %v", err)
	}
	if _, err := (&Piper{Model: "/nonexistent.onnx"}).Synthesize(context.Background(), "x", 16000); err == nil || !strings.Contains(err.Error(), "voice config") {
		t.Fatalf("no config: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "m.onnx")
	os.WriteFile(bad+".json", []byte(`{"audio":{}}`), 0o644)
	if _, err := (&Piper{Model: bad}).Synthesize(context.Background(), "x", 16000); err == nil || !strings.Contains(err.Error(), "sample_rate 0") {
		t.Fatalf("config without rate: %v", err)
	}
	if out, err := p.Synthesize(context.Background(), " \n", 16000); err != nil || len(out.Data) != 0 {
		t.Fatalf("blank: %+v %v", out, err)
	}
}

func TestFake(t *testing.T) {
	f := &Fake{}
	p, err := f.Synthesize(context.Background(), "héllo", 24000)
	if err != nil {
		t.Fatal(err)
	}
	if p.Duration() != 100*time.Millisecond || rms(p.Samples()) < 1000 {
		t.Fatalf("fake: %v, RMS %.0f", p.Duration(), rms(p.Samples()))
	}
	q, _ := f.Synthesize(context.Background(), "héllo", 24000)
	if string(p.Data) != string(q.Data) {
		t.Fatal("fake is not deterministic")
	}
	f.Err = errors.New("boom")
	if _, err := f.Synthesize(context.Background(), "x", 8000); err == nil {
		t.Fatal("Err ignored")
	}
	want := []FakeRequest{{"héllo", 24000}, {"héllo", 24000}, {"x", 8000}}
	if got := f.Requests(); !reflect.DeepEqual(got, want) {
		t.Fatalf("requests %v, want %v", got, want)
	}
}

// BenchmarkEspeak reports synthesis time per second of audio: below 1 the
// engine keeps ahead of playback.
func BenchmarkEspeak(b *testing.B) {
	needEspeak(b)
	e := &Espeak{}
	var audio time.Duration
	b.ReportAllocs()
	for range b.N {
		p, err := e.Synthesize(context.Background(), "The build finished and all tests passed. Shall I push the branch?", 24000)
		if err != nil {
			b.Fatal(err)
		}
		audio += p.Duration()
	}
	b.ReportMetric(b.Elapsed().Seconds()/audio.Seconds(), "synth-s/audio-s")
}
