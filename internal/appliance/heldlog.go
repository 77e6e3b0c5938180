package appliance

import (
	"context"
	"log/slog"
	"sync"
)

// heldLog holds the start-up's INFO and DEBUG records until release, so
// that the line saying where everything is (the web page, the
// supervisorctl command) comes first in a terminal, not after a screenful
// of "service started". Warnings and errors pass at once: a start-up
// that stalls or fails says why without waiting.
type heldLog struct {
	mu       sync.Mutex
	released bool
	held     []heldRecord
}

type heldRecord struct {
	h slog.Handler
	r slog.Record
}

// handler wraps h.
func (hl *heldLog) handler(h slog.Handler) slog.Handler { return &heldHandler{hl: hl, h: h} }

// release writes what was held, in order, and passes everything from now
// on. Calling it again does nothing.
func (hl *heldLog) release() {
	hl.mu.Lock()
	defer hl.mu.Unlock()
	if hl.released {
		return
	}
	hl.released = true
	for _, x := range hl.held {
		x.h.Handle(context.Background(), x.r)
	}
	hl.held = nil
}

type heldHandler struct {
	hl *heldLog
	h  slog.Handler
}

func (h *heldHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.h.Enabled(ctx, l) }

func (h *heldHandler) Handle(ctx context.Context, r slog.Record) error {
	h.hl.mu.Lock()
	if !h.hl.released && r.Level < slog.LevelWarn {
		h.hl.held = append(h.hl.held, heldRecord{h.h, r.Clone()})
		h.hl.mu.Unlock()
		return nil
	}
	h.hl.mu.Unlock()
	return h.h.Handle(ctx, r)
}

func (h *heldHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &heldHandler{hl: h.hl, h: h.h.WithAttrs(as)}
}

func (h *heldHandler) WithGroup(name string) slog.Handler {
	return &heldHandler{hl: h.hl, h: h.h.WithGroup(name)}
}
