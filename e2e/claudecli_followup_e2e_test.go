package e2e

// Spoken follow-ups (issue 25 item 6) under the real Claude Code CLI:
// claude -p ends its turn, the Stop hook carries the reply to the Pi, the
// dock says it on cores3-sim, a forward swipe there opens the microphone,
// whose frames are a sentence spoken by espeak-ng, a real offline
// recogniser (pocketsphinx) hears it, the CoreS3 shows what it heard, and
// the Stop hook hands it to the CLI, which sends it to the model. What
// pocketsphinx makes of espeak-ng's voice varies, so the test follows the
// text, not the words: what the recogniser printed is what the CoreS3
// showed and what the next model request carries.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// followUpSentence is what the sim's microphone says.
const followUpSentence = "now run the tests please"

func TestClaudeCodeSpokenFollowUp(t *testing.T) {
	e2e(t)
	bin := claudeBinary(t)
	for _, tool := range []string{"espeak-ng", "pocketsphinx_continuous"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed: .ci/run's packages need espeak-ng, pocketsphinx and pocketsphinx-en-us", tool)
			}
			t.Skipf("%s not installed (apt-get install espeak-ng pocketsphinx pocketsphinx-en-us)", tool)
		}
	}
	dir := t.TempDir()
	const listen = 3
	wav := filepath.Join(dir, "mic.wav")
	if err := os.WriteFile(wav, spokenWAV(t, followUpSentence, listen*time.Second), 0o644); err != nil {
		t.Fatal(err)
	}
	// The real recogniser; tee keeps a copy of what it printed for the
	// test. No shell runs stt_command, so sh -c is named; the dock
	// appends the recording's path, which becomes $1.
	printed := filepath.Join(dir, "printed")
	stt := fmt.Sprintf(`sh -c 'pocketsphinx_continuous -logfn /dev/null -infile "$1" | tee "$0"' '%s'`, printed)
	core := startCoreSim(t, "--mic-wav", wav)
	const window = 15 * time.Second
	r, _ := newClaudeRig(t, bin, core, func(c *Config) {
		c.TTS.Engine = "espeak-ng"
		c.Voice.STTCommand, c.Voice.ListenSeconds = stt, listen
		c.Voice.FollowUp, c.Voice.FollowUpSeconds = true, int(window/time.Second)
	})

	// swipeAndShow runs claude -p as scenario name, waits for its reply on
	// the CoreS3, swipes and returns what the CoreS3 showed and what the
	// recogniser printed.
	swipeAndShow := func(t *testing.T, name string) (*cliRun, string) {
		t.Helper()
		os.Remove(printed)
		from := core.mark()
		c := r.start(t, name, "look around", plan{final: "I looked around. What next?"})
		core.await(30*time.Second, from, `the reply's caption "I looked around." on cores3-sim`, func(l uiLine) bool {
			return l.is("ui", "caption") && strings.HasPrefix(l.str("text"), "I looked around.")
		})
		from = core.mark()
		core.send("swipe forward")
		_, shown := core.await(60*time.Second, from, "the heard sentence on the CoreS3", func(l uiLine) bool {
			return l.is("ui", "approval") && l.is("title", "Send to Claude?")
		})
		heard, err := os.ReadFile(printed)
		text := strings.TrimSpace(string(heard))
		if err != nil || text == "" {
			t.Fatalf("pocketsphinx printed %q (%v) for %q", heard, err, followUpSentence)
		}
		t.Logf("espeak-ng said %q; pocketsphinx heard %q", followUpSentence, text)
		// The card's first row names the session: the paired computer
		// and the project folder (issue 33 item 1); the rows after it
		// are the text, wrapped at 36 columns.
		text = strings.Join(strings.Fields(text), " ")
		if body, want := strings.ReplaceAll(shown.str("body"), "\n", ""), "To laptop · "+name+text; body != want {
			t.Errorf("the CoreS3 showed %q, want the session and the recogniser's %q", shown.str("body"), text)
		}
		return c, text
	}

	t.Run("the heard sentence is the session's next message", func(t *testing.T) {
		c, text := swipeAndShow(t, "follow-up")
		// Not touched: it goes 5 s after it was presented. The CLI's
		// next request carries it as the Stop hook's feedback.
		var next timedTexts
		supervisortest.Within(t, 60*time.Second, "a second model request of the session", func() bool {
			p := r.api.Prompts("follow-up")
			if len(p) >= 2 {
				next = p[1]
			}
			return len(p) >= 2
		})
		// Claude Code hands the block's reason on as "Stop hook
		// feedback:\n" and the reason, on a line of its own (a follow-up
		// has no line breaks); since 2.1.33x inside a <system-reminder>
		// that tells Claude a hook's relayed words are data.
		if !slices.ContainsFunc(next.texts, func(s string) bool {
			return slices.Contains(strings.Split(s, "\n"), text) && strings.Contains(s, "Stop hook")
		}) {
			t.Errorf("the follow-up request's user texts %q lack the heard %q", next.texts, text)
		}
		// The second reply gets no swipe: its Stop hook lets Claude
		// stop when the window ends, and not much later.
		c.wait(t)
		if waited := c.exited.Sub(next.at); waited > window+3*time.Second {
			t.Errorf("claude -p exited %v after its last model request, want within the %v window (and the reply's turn)", waited, window)
		}
		if p := r.api.Prompts("follow-up"); len(p) != 2 {
			t.Errorf("%d model requests, want 2 (the prompt and the follow-up)", len(p))
		}
	})

	t.Run("NG on the card cancels it", func(t *testing.T) {
		c, _ := swipeAndShow(t, "follow-up-ng")
		from := core.mark()
		core.send("touch ng")
		core.await(10*time.Second, from, "the card resolved", func(l uiLine) bool { return l.is("ui", "face") })
		touched := time.Now()
		c.wait(t)
		if p := r.api.Prompts("follow-up-ng"); len(p) != 1 {
			t.Errorf("%d model requests, want 1: the cancelled follow-up was sent", len(p))
		}
		if waited := c.exited.Sub(touched); waited > 5*time.Second {
			t.Errorf("claude -p exited %v after NG, want at once", waited)
		}
	})
}

// spokenWAV is text said by espeak-ng, resampled to 16 kHz and padded
// with silence to d, as the sim's microphone wants it.
func spokenWAV(t *testing.T, text string, d time.Duration) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "espeak.wav")
	if b, err := exec.Command("espeak-ng", "-w", out, text).CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v\n%s", err, b)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	in, rate, err := wavSamples(raw)
	if err != nil {
		t.Fatalf("espeak-ng's WAV: %v", err)
	}
	n := int(d.Seconds() * 16000)
	pcm := make([]int16, n)
	lead := 16000 / 4 // a quarter second before the words
	for i := lead; i < n; i++ {
		src := float64(i-lead) * float64(rate) / 16000
		j := int(src)
		if j+1 >= len(in) {
			break
		}
		f := src - float64(j)
		pcm[i] = int16(float64(in[j])*(1-f) + float64(in[j+1])*f)
	}
	return wav16k(pcm)
}

// wavSamples reads a mono 16-bit PCM WAV: its samples and rate.
func wavSamples(b []byte) ([]int16, int, error) {
	le := binary.LittleEndian
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return nil, 0, errors.New("not a RIFF WAVE file")
	}
	rate := 0
	for p := 12; p+8 <= len(b); {
		id, size := string(b[p:p+4]), int(le.Uint32(b[p+4:]))
		body := b[p+8:]
		if size > len(body) || size < 0 {
			size = len(body) // espeak-ng streaming headers may not know the size
		}
		switch id {
		case "fmt ":
			if size < 16 || le.Uint16(body) != 1 || le.Uint16(body[2:]) != 1 || le.Uint16(body[14:]) != 16 {
				return nil, 0, errors.New("want mono 16-bit PCM")
			}
			rate = int(le.Uint32(body[4:]))
		case "data":
			if rate == 0 {
				return nil, 0, errors.New("data before fmt")
			}
			s := make([]int16, size/2)
			for i := range s {
				s[i] = int16(le.Uint16(body[2*i:]))
			}
			return s, rate, nil
		}
		p += 8 + size + size%2
	}
	return nil, 0, errors.New("no data chunk")
}
