package tts

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// Piper synthesizes with the piper neural TTS command and an ONNX voice
// model (https://github.com/rhasspy/piper), which sounds far better than
// espeak-ng and runs at several times real time on a Pi 4.
type Piper struct {
	// Binary is the command; empty means "piper" on $PATH.
	Binary string
	// Model is the voice's .onnx file. Required.
	Model string
	// Config is the voice's JSON config; empty means Model + ".json", where
	// piper keeps it. Its audio.sample_rate is the rate of piper's output.
	Config string
	// Speaker selects a speaker of a multi-speaker model; nil means the
	// model's default.
	Speaker *int

	once    sync.Once
	rate    int
	rateErr error
}

// piperConfig is the part of a voice's JSON config we need.
type piperConfig struct {
	Audio struct {
		SampleRate int `json:"sample_rate"`
	} `json:"audio"`
}

// modelRate reads the model's sample rate once.
func (p *Piper) modelRate() (int, error) {
	p.once.Do(func() {
		path := p.Config
		if path == "" {
			path = p.Model + ".json"
		}
		b, err := os.ReadFile(path)
		if err != nil {
			p.rateErr = fmt.Errorf("tts: piper voice config: %w", err)
			return
		}
		var c piperConfig
		if err := json.Unmarshal(b, &c); err != nil {
			p.rateErr = fmt.Errorf("tts: piper voice config %s: %w", path, err)
			return
		}
		if c.Audio.SampleRate < 4000 || c.Audio.SampleRate > 192000 {
			p.rateErr = fmt.Errorf("tts: piper voice config %s: audio.sample_rate %d Hz", path, c.Audio.SampleRate)
			return
		}
		p.rate = c.Audio.SampleRate
	})
	return p.rate, p.rateErr
}

// args is the piper command line: raw 16-bit mono on stdout, text on stdin.
func (p *Piper) args() []string {
	// Only flags both the C++ piper and the Python piper-tts accept.
	a := []string{"--model", p.Model, "--output_raw"}
	if p.Config != "" {
		a = append(a, "--config", p.Config)
	}
	if p.Speaker != nil {
		a = append(a, "--speaker", strconv.Itoa(*p.Speaker))
	}
	return a
}

// Synthesize runs piper with the text on stdin and resamples its raw output
// from the model's rate to rate. piper treats each input line as an
// utterance, so line breaks are flattened to spaces: one call, one sentence.
func (p *Piper) Synthesize(ctx context.Context, text string, rate int) (PCM, error) {
	if err := checkRate(rate); err != nil {
		return PCM{}, err
	}
	if p.Model == "" {
		return PCM{}, fmt.Errorf("tts: piper needs a voice model (tts.piper_model)")
	}
	text = strings.Join(strings.Fields(text), " ")
	text = strings.ReplaceAll(text, "[[", "[ [") // piper reads [[...]] as phonemes
	if text == "" {
		return PCM{Rate: rate}, nil
	}
	from, err := p.modelRate()
	if err != nil {
		return PCM{}, err
	}
	bin := p.Binary
	if bin == "" {
		bin = "piper"
	}
	out, err := run(ctx, "piper", bin, p.args(), text+"\n")
	if err != nil {
		return PCM{}, err
	}
	return Resample(PCM{Rate: from, Data: out[:len(out)&^1]}, rate)
}

var _ Synth = (*Piper)(nil)
