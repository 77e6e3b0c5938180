package audio

import (
	"fmt"
	"math"
	"time"

	"github.com/claude-pi/claude-pi/drivers/tts"
)

// Chime names a UI sound.
type Chime int

// The chimes. Each is a short sequence of soft bell-like notes; they differ
// in direction and interval so they are told apart without looking:
// arrival is a bright rising pair (a question), approve a major arpeggio
// going up, deny a falling minor third.
const (
	ChimePrompt Chime = iota
	ChimeApprove
	ChimeDeny
)

// ChimeRate is the sample rate chimes are synthesized at. 22.05 kHz keeps
// the highest partial (about 5 kHz) far below Nyquist.
const ChimeRate = 22050

// String is the chime's name, for logs.
func (c Chime) String() string {
	switch c {
	case ChimePrompt:
		return "prompt"
	case ChimeApprove:
		return "approve"
	case ChimeDeny:
		return "deny"
	}
	return fmt.Sprintf("Chime(%d)", int(c))
}

// note is one struck tone: a frequency, when it starts and how long it
// rings.
type note struct {
	hz          float64
	start, ring time.Duration
}

var chimes = map[Chime][]note{
	// E6 then A6: a rising fourth, the classic "ding-dong?" attention cue.
	ChimePrompt: {{1318.5, 0, 350 * time.Millisecond}, {1760, 140 * time.Millisecond, 450 * time.Millisecond}},
	// C6 E6 G6: a quick major arpeggio up.
	ChimeApprove: {{1046.5, 0, 300 * time.Millisecond}, {1318.5, 80 * time.Millisecond, 300 * time.Millisecond}, {1568, 160 * time.Millisecond, 420 * time.Millisecond}},
	// A5 then F#5: a falling minor third, lower and darker.
	ChimeDeny: {{880, 0, 300 * time.Millisecond}, {740, 150 * time.Millisecond, 400 * time.Millisecond}},
}

// Synthesize renders chime c as PCM at ChimeRate. Peak level is about
// -6 dBFS so it never clips and is not startling on a small speaker.
func Synthesize(c Chime) (tts.PCM, error) {
	notes, ok := chimes[c]
	if !ok {
		return tts.PCM{}, fmt.Errorf("audio: unknown chime %d", int(c))
	}
	var end time.Duration
	for _, n := range notes {
		end = max(end, n.start+n.ring)
	}
	out := make([]float64, int(end.Seconds()*ChimeRate)+1)
	for _, n := range notes {
		addBell(out, n)
	}
	peak := 0.0
	for _, v := range out {
		peak = max(peak, math.Abs(v))
	}
	s := make([]int16, len(out))
	if peak > 0 {
		scale := 0.5 * 32767 / peak
		for i, v := range out {
			s[i] = int16(math.Round(v * scale))
		}
	}
	return tts.FromSamples(ChimeRate, s), nil
}

// addBell mixes a bell-ish tone into out: a fundamental with a quieter
// octave partial, a 5 ms attack (no click) and an exponential decay that
// reaches about -60 dB at the end of its ring.
func addBell(out []float64, n note) {
	start := int(n.start.Seconds() * ChimeRate)
	length := int(n.ring.Seconds() * ChimeRate)
	attack := ChimeRate / 200 // 5 ms
	decay := math.Log(1000) / float64(length)
	for i := 0; i < length && start+i < len(out); i++ {
		t := float64(i) / ChimeRate
		env := math.Exp(-decay * float64(i))
		if i < attack {
			env *= float64(i) / float64(attack)
		}
		v := math.Sin(2*math.Pi*n.hz*t) + 0.3*math.Sin(2*math.Pi*2*n.hz*t)*math.Exp(-2*decay*float64(i))
		out[start+i] += env * v
	}
}
