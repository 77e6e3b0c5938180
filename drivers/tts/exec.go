package tts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// maxStderr keeps engine error text readable in logs.
const maxStderr = 512

// run starts name with args, feeds text on stdin and returns stdout. The
// text never reaches a shell or the argument list, so quotes, dashes and
// control characters in Claude's replies are inert. A cancelled ctx kills
// the engine.
func run(ctx context.Context, engine, name string, args []string, text string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdin = strings.NewReader(text)
	var out bytes.Buffer
	var stderr bytes.Buffer
	cmd.Stdout = &limitedWriter{w: &out, n: MaxWAVBytes + 1}
	cmd.Stderr = &limitedWriter{w: &stderr, n: maxStderr}
	err := cmd.Run()
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, ctxErr
	}
	if err != nil {
		var ee *exec.ExitError
		if msg := strings.TrimSpace(stderr.String()); errors.As(err, &ee) && msg != "" {
			return nil, fmt.Errorf("tts: %s failed: %v: %s", engine, err, msg)
		}
		return nil, fmt.Errorf("tts: %s failed: %w", engine, err)
	}
	if out.Len() > MaxWAVBytes {
		return nil, fmt.Errorf("tts: %s produced more than %d bytes", engine, MaxWAVBytes)
	}
	return out.Bytes(), nil
}

// limitedWriter keeps the first n bytes and swallows the rest, so a chatty
// engine neither blocks on a full pipe nor grows memory without bound.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(l.n, len(p))
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}
