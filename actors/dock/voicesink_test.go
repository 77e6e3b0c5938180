package dock

import (
	"log/slog"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/dock/voice"
)

// The host's Sink side answers from the host's own state, and the one
// write the voice part makes through it (MarkDecided) lands on the
// mirrored prompt, so a spoken answer and a tap cannot both decide it.
func TestVoiceSinkIsTheHost(t *testing.T) {
	t0 := time.Unix(1000, 0)
	h := newHost(hostConfig{Config: voice.Config{Token: "t", Log: slog.New(slog.DiscardHandler)}})
	if h.Ready() || h.OldestPrompt() != nil || h.PromptByReq("x") != nil {
		t.Errorf("a detached host: ready %v, oldest %v", h.Ready(), h.OldestPrompt())
	}
	h.MediaStarted()
	h.Effect(cancelSynthOut{Utt: 7})
	if !h.mediaSince || len(h.effects) != 1 || h.effects[0] != (cancelSynthOut{Utt: 7}) {
		t.Errorf("mediaSince %v, effects %v", h.mediaSince, h.effects)
	}

	h.mirror.appeared(prompt, t0, false)
	id := requestID(prompt.Source, prompt.ID)
	p := h.OldestPrompt()
	if p == nil || p.ReqID != id || p.Prompt != prompt || p.Decided || p.Suspended {
		t.Fatalf("oldest prompt %+v, want %s undecided", p, id)
	}
	if q := h.PromptByReq(id); q == nil || *q != *p {
		t.Errorf("PromptByReq(%s) = %+v, want %+v", id, q, p)
	}
	h.MarkDecided(id)
	h.MarkDecided("approval-gone") // answered meanwhile: nothing to mark
	if !h.mirror.byReq[id].decided || !h.PromptByReq(id).Decided {
		t.Error("MarkDecided did not reach the mirrored prompt")
	}
}
