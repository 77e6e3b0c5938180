package tts

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// Espeak synthesizes with the espeak-ng command (Debian package espeak-ng):
// robotic but small, fast and available everywhere. The zero value works.
type Espeak struct {
	// Binary is the command; empty means "espeak-ng" on $PATH.
	Binary string
	// Voice is passed to -v; empty means "en-us". See espeak-ng --voices.
	Voice string
	// Speed in words per minute (-s); zero means espeak-ng's 175. Slow it
	// down for the CoreS3's small speaker.
	Speed int
}

// Synthesize runs espeak-ng --stdout with the text on stdin (--stdin), reads
// the WAV it prints (22050 Hz) and resamples it to rate.
func (e *Espeak) Synthesize(ctx context.Context, text string, rate int) (PCM, error) {
	if err := checkRate(rate); err != nil {
		return PCM{}, err
	}
	if strings.TrimSpace(text) == "" {
		return PCM{Rate: rate}, nil
	}
	bin := e.Binary
	if bin == "" {
		bin = "espeak-ng"
	}
	if _, err := exec.LookPath(bin); err != nil {
		return PCM{}, fmt.Errorf("tts: espeak-ng not found (install the espeak-ng package): %w", err)
	}
	voice := e.Voice
	if voice == "" {
		voice = "en-us"
	}
	args := []string{"--stdout", "-v", voice}
	if e.Speed > 0 {
		args = append(args, "-s", strconv.Itoa(e.Speed))
	}
	args = append(args, "--stdin")
	// espeak-ng reads "[[...]]" as phoneme input; text from a chat reply
	// must be spoken as text.
	text = strings.ReplaceAll(text, "[[", "[ [")
	out, err := run(ctx, "espeak-ng", bin, args, text)
	if err != nil {
		return PCM{}, err
	}
	w, err := DecodeWAV(out)
	if err != nil {
		return PCM{}, fmt.Errorf("tts: espeak-ng output: %w", err)
	}
	return Resample(w, rate)
}

var _ Synth = (*Espeak)(nil)
