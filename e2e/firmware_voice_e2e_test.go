package e2e

// Voice approval across implementations: the Go dock host against
// cores3-sim, whose microphone plays a WAV (--mic-wav). The fake STT is
// actors/dock/testdata/fake-stt.sh, so what is tested is the microphone
// session and the decision path, not speech recognition.

import (
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/internal/appliance/appliancetest/fakedesktop"
	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
)

// TestFirmwareE2EVoiceApproval: swipe forward with a prompt pending; after
// the spoken summary the firmware's microphone streams its WAV, the STT
// says "yes", and the desktop gets exactly one approval.
func TestFirmwareE2EVoiceApproval(t *testing.T) {
	e2e(t)
	if _, err := exec.LookPath("espeak-ng"); err != nil && os.Getenv("CI") != "true" {
		t.Skip("espeak-ng not installed (apt-get install espeak-ng)")
	}
	dir := t.TempDir()
	wav := filepath.Join(dir, "mic.wav")
	if err := os.WriteFile(wav, toneWAV(2*time.Second), 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("..", "actors", "dock", "testdata", "fake-stt.sh"))
	if err != nil {
		t.Fatal(err)
	}
	core := startCoreSim(t, "--mic-wav", wav)
	a := startApplianceWith(t, func(c *Config) {
		c.Dock.Port, c.TTS.Engine = core.bridge.HostPath(), "espeak-ng"
		c.Voice.STTCommand, c.Voice.ListenSeconds = "sh '"+script+"' yes '"+dir+"'", 1
	})
	a.awaitDock(t, "the dock's handshake in /api/state")
	d := a.Dial(t, &fakedesktop.Options{Owner: "Felix", StatusEvery: time.Hour, Debounce: 20 * time.Millisecond})
	d.Update(func(s *fakedesktop.Session) { s.Total, s.Running, s.Waiting = 1, 1, 1 })
	from := core.mark()
	d.SetPrompt("toolu_voice", "Bash", "npm test")
	core.await(10*time.Second, from, "the approval screen", func(l uiLine) bool { return l.is("ui", "approval") })

	from = core.mark()
	core.send("swipe forward")
	core.await(30*time.Second, from, "the listening badge", func(l uiLine) bool { return l.is("ui", "status") && l.is("value", "listening") })
	p := oneDecision(t, d, 0)
	if want := pbuddy.EncodePermission("toolu_voice", pbuddy.Once); string(p.Line)+"\n" != string(want) {
		t.Fatalf("permission line\n%s\nwant\n%s", p.Line, want)
	}
	noDecision(t, d, 300*time.Millisecond)
	b, err := os.ReadFile(filepath.Join(dir, "heard.wav"))
	if err != nil || len(b) != 44+32000 {
		t.Errorf("the STT got %d bytes (%v), want a 1 s 16 kHz WAV", len(b), err)
	}
	if paths, _ := os.ReadFile(filepath.Join(dir, "paths")); strings.Count(string(paths), "\n") != 1 {
		t.Errorf("STT ran %q, want once", paths)
	}
}

// toneWAV is d of a 440 Hz tone, 16 kHz mono 16-bit.
func toneWAV(d time.Duration) []byte {
	pcm := make([]int16, int(d.Seconds()*16000))
	for i := range pcm {
		pcm[i] = int16(8000 * math.Sin(2*math.Pi*440*float64(i)/16000))
	}
	return wav16k(pcm)
}

// wav16k is pcm as a 16 kHz mono 16-bit WAV file.
func wav16k(pcm []int16) []byte {
	n := len(pcm)
	le := binary.LittleEndian
	b := []byte("RIFF")
	b = le.AppendUint32(b, uint32(36+2*n))
	b = append(b, "WAVEfmt "...)
	b = le.AppendUint32(b, 16)
	b = le.AppendUint16(b, 1)
	b = le.AppendUint16(b, 1)
	b = le.AppendUint32(b, 16000)
	b = le.AppendUint32(b, 32000)
	b = le.AppendUint16(b, 2)
	b = le.AppendUint16(b, 16)
	b = append(b, "data"...)
	b = le.AppendUint32(b, uint32(2*n))
	for _, s := range pcm {
		b = le.AppendUint16(b, uint16(s))
	}
	return b
}
