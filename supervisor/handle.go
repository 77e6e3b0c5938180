package supervisor

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync/atomic"
)

// Handle is a service's link to its supervisor. New receives the same
// Handle for every incarnation, so an actor may keep it across restarts.
// Its methods are safe to call from any goroutine.
type Handle struct {
	name   string
	desc   atomic.Pointer[string]
	logger *slog.Logger
	fail   func(err error)
}

// Name is the service's name.
func (h *Handle) Name() string { return h.name }

// SetDescription sets the live line that "supervisorctl status" shows
// while the actor is RUNNING, e.g. "advertising as Claude_Pi · 1 central".
// It is cleared at each restart, so a new incarnation does not inherit a
// stale line.
func (h *Handle) SetDescription(s string) { h.desc.Store(&s) }

func (h *Handle) description() string {
	if p := h.desc.Load(); p != nil {
		return *p
	}
	return ""
}

// Logger returns a logger whose lines carry actor=NAME and go both to the
// tree's logger and to this actor's log ring (and the main log ring).
func (h *Handle) Logger() *slog.Logger { return h.logger }

// Fail reports that the current incarnation cannot go on, e.g. because
// "SPI not enabled (dtparam=spi=on)". The actor is stopped (it gets
// Stopping and Stopped) and restarted after a backoff, or goes FATAL after
// too many failures. A nil err is reported as "failed".
func (h *Handle) Fail(err error) {
	if err == nil {
		err = errors.New("failed")
	}
	h.fail(err)
}

// teeHandler sends each record to the tree's handler and, formatted as a
// slog text line, to the log rings that supervisorctl tails.
type teeHandler struct {
	next slog.Handler // stderr, via Options.Logger
	ring slog.Handler // text lines into the rings
}

// ringLevel keeps debug chatter out of the rings unless the tree's logger
// wants it too: 64 KiB fills fast.
const ringLevel = slog.LevelInfo

func newTeeHandler(next slog.Handler, w io.Writer) *teeHandler {
	return &teeHandler{next: next, ring: slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug})}
}

func (t *teeHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= ringLevel || t.next.Enabled(ctx, l)
}

func (t *teeHandler) Handle(ctx context.Context, r slog.Record) error {
	var err error
	if t.next.Enabled(ctx, r.Level) {
		err = t.next.Handle(ctx, r.Clone())
	}
	if r.Level >= ringLevel || t.next.Enabled(ctx, r.Level) {
		if rerr := t.ring.Handle(ctx, r); err == nil {
			err = rerr
		}
	}
	return err
}

func (t *teeHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &teeHandler{next: t.next.WithAttrs(as), ring: t.ring.WithAttrs(as)}
}

func (t *teeHandler) WithGroup(name string) slog.Handler {
	return &teeHandler{next: t.next.WithGroup(name), ring: t.ring.WithGroup(name)}
}

// multiWriter writes a whole line to each ring. Unlike io.MultiWriter it
// needs no error handling: a Ring never fails.
type multiWriter []*Ring

func (m multiWriter) Write(p []byte) (int, error) {
	for _, r := range m {
		r.Write(p)
	}
	return len(p), nil
}
