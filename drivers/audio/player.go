package audio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"periph.io/x/conn/v3/gpio"

	"github.com/claude-pi/claude-pi/drivers/tts"
)

// Player plays one sound to the end, or until ctx is cancelled. Calls are
// serialized by the caller (the audio actor plays one sound at a time).
type Player interface {
	Play(ctx context.Context, p tts.PCM) error
}

// maxRate rejects nonsense rates before a process starts.
const maxRate = 192_000

func check(p tts.PCM) error {
	switch {
	case p.Rate <= 0 || p.Rate > maxRate:
		return fmt.Errorf("audio: invalid sample rate %d Hz", p.Rate)
	case len(p.Data)%2 != 0:
		return fmt.Errorf("audio: odd PCM length %d (16-bit samples)", len(p.Data))
	}
	return nil
}

// Aplay plays through ALSA's aplay.
type Aplay struct {
	// Device is the ALSA PCM (-D), e.g. "plughw:CARD=sndrpihifiberry,DEV=0".
	// "" means "default".
	Device string
	// Path is the aplay binary; "" means "aplay" from PATH.
	Path string
	// Amp, when set, is raised before playing and lowered after, so the
	// amplifier does not hiss between sounds.
	Amp gpio.PinOut
}

// Args returns aplay's arguments for PCM at rate.
func (a *Aplay) Args(rate int) []string {
	return []string{"-q", "-t", "raw", "-f", "S16_LE", "-r", strconv.Itoa(rate), "-c", "1", "-D", a.device()}
}

func (a *Aplay) device() string {
	if a.Device == "" {
		return "default"
	}
	return a.Device
}

// Play implements Player.
func (a *Aplay) Play(ctx context.Context, p tts.PCM) error {
	if err := check(p); err != nil {
		return err
	}
	if len(p.Data) == 0 {
		return nil
	}
	path := a.Path
	if path == "" {
		path = "aplay"
	}
	if a.Amp != nil {
		if err := a.Amp.Out(gpio.High); err != nil {
			return fmt.Errorf("audio: enabling amplifier %s: %w", a.Amp, err)
		}
		defer a.Amp.Out(gpio.Low)
	}
	cmd := exec.CommandContext(ctx, path, a.Args(p.Rate)...)
	cmd.Stdin = bytes.NewReader(p.Data)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return fmt.Errorf("audio: %s not found: install alsa-utils", path)
		}
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 300 {
			msg = msg[:300]
		}
		return fmt.Errorf("audio: aplay -D %s: %v: %s", a.device(), err, msg)
	}
	return nil
}

// WAVFile writes each sound to Dir as NNN.wav (000.wav, 001.wav, ...): a
// sink for tests and for machines without a sound card.
type WAVFile struct {
	Dir string

	mu sync.Mutex
	n  int
}

// Play implements Player.
func (w *WAVFile) Play(ctx context.Context, p tts.PCM) error {
	if err := check(p); err != nil {
		return err
	}
	b, err := tts.EncodeWAV(p)
	if err != nil {
		return fmt.Errorf("audio: %w", err)
	}
	w.mu.Lock()
	name := filepath.Join(w.Dir, fmt.Sprintf("%03d.wav", w.n))
	w.n++
	w.mu.Unlock()
	if err := os.WriteFile(name, b, 0o644); err != nil {
		return fmt.Errorf("audio: writing %s: %w", name, err)
	}
	return nil
}

// Fake records what it was asked to play.
type Fake struct {
	// Err, if set, is returned by every Play.
	Err error

	mu     sync.Mutex
	played []tts.PCM
}

// Play implements Player.
func (f *Fake) Play(ctx context.Context, p tts.PCM) error {
	if err := check(p); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Err != nil {
		return f.Err
	}
	f.played = append(f.played, tts.PCM{Rate: p.Rate, Data: bytes.Clone(p.Data)})
	return ctx.Err()
}

// Played returns copies of the sounds played so far.
func (f *Fake) Played() []tts.PCM {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]tts.PCM(nil), f.played...)
}

var (
	_ Player = (*Aplay)(nil)
	_ Player = (*WAVFile)(nil)
	_ Player = (*Fake)(nil)
)
