package dock

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/claude-pi/claude-pi/actors/dock/voice"
	"github.com/claude-pi/claude-pi/protocols/stackchan/session"
)

// maxSTTText bounds what is read of the STT command's answer: a spoken
// "yes" or "no" is short, and a runaway command must not fill the memory.
const maxSTTText = 4096

// sttResult is the answer of one STT run.
type sttResult struct {
	job  uint64
	text string
	err  error
}

// recognize runs the STT command on one recording in a goroutine, under a
// timeout and a context that cancelSTTOut (or Stopping) cancels.
func (a *Actor) recognize(s voice.STTOut) {
	if len(a.opts.STT) == 0 || a.stopped {
		return
	}
	ctx, cancel := context.WithTimeout(a.ctx, a.opts.STTTimeout)
	a.stts[s.Job] = cancel
	argv, system, self, timeout := a.opts.STT, a.system, a.self, a.opts.STTTimeout
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		text, err := runSTT(ctx, argv, s.PCM)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("voice.stt_command: no answer within %v", timeout)
		}
		system.Root.Send(self, sttResult{job: s.Job, text: text, err: err})
	}()
}

// runSTT writes pcm as a WAV file, runs argv with its path appended and
// returns what the command printed.
func runSTT(ctx context.Context, argv []string, pcm []byte) (string, error) {
	f, err := os.CreateTemp("", "claude-pi-voice-*.wav")
	if err != nil {
		return "", fmt.Errorf("voice: temporary WAV: %w", err)
	}
	defer os.Remove(f.Name())
	_, err = f.Write(appendWAV(nil, pcm, session.MicRate))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("voice: writing %s: %w", f.Name(), err)
	}
	cmd := exec.CommandContext(ctx, argv[0], append(argv[1:len(argv):len(argv)], f.Name())...)
	cmd.WaitDelay = time.Second // a child holding stdout open must not hang us
	var out limitedBuffer
	var stderr limitedBuffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", fmt.Errorf("voice.stt_command %s: %w: %s", argv[0], err, shorten(msg, 200))
		}
		return "", fmt.Errorf("voice.stt_command %s: %w", argv[0], err)
	}
	return strings.TrimSpace(strings.ToValidUTF8(out.String(), "")), nil
}

// limitedBuffer keeps the first maxSTTText bytes written and drops the rest
// (without failing the writer, which would kill the command with SIGPIPE).
type limitedBuffer struct{ bytes.Buffer }

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := maxSTTText - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// appendWAV appends a canonical 44-byte RIFF header for mono 16-bit PCM at
// rate, then pcm.
func appendWAV(dst, pcm []byte, rate int) []byte {
	le := binary.LittleEndian
	dst = append(dst, "RIFF"...)
	dst = le.AppendUint32(dst, uint32(36+len(pcm)))
	dst = append(dst, "WAVEfmt "...)
	dst = le.AppendUint32(dst, 16)
	dst = le.AppendUint16(dst, 1) // PCM
	dst = le.AppendUint16(dst, 1) // mono
	dst = le.AppendUint32(dst, uint32(rate))
	dst = le.AppendUint32(dst, uint32(rate*2)) // bytes per second
	dst = le.AppendUint16(dst, 2)              // block align
	dst = le.AppendUint16(dst, 16)             // bits per sample
	dst = append(dst, "data"...)
	dst = le.AppendUint32(dst, uint32(len(pcm)))
	return append(dst, pcm...)
}

// SplitCommand splits a command line the way a POSIX shell splits words,
// without running a shell: blanks separate words, single quotes keep
// everything literally, double quotes keep everything but \" \\ \$ \`,
// and a backslash outside quotes escapes the next character. Nothing is
// expanded ($VAR, ~, globs stay as written). An unterminated quote, a
// trailing backslash or invalid UTF-8 is an error.
func SplitCommand(s string) ([]string, error) {
	if !utf8.ValidString(s) {
		return nil, errors.New("command line is not valid UTF-8")
	}
	var (
		words []string
		cur   strings.Builder
		inW   bool // a word has started (even an empty "" one)
	)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inW {
				words = append(words, cur.String())
				cur.Reset()
				inW = false
			}
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unterminated ' at byte %d", i)
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
			inW = true
		case c == '"':
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) && strings.IndexByte("\"\\$`", s[j+1]) >= 0 {
					j++
				}
				cur.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, fmt.Errorf("unterminated \" at byte %d", i)
			}
			i = j
			inW = true
		case c == '\\':
			if i+1 >= len(s) {
				return nil, errors.New("trailing backslash")
			}
			i++
			if s[i] != '\n' { // backslash-newline joins lines
				cur.WriteByte(s[i])
				inW = true
			}
		default:
			cur.WriteByte(c)
			inW = true
		}
	}
	if inW {
		words = append(words, cur.String())
	}
	return words, nil
}
