package voice

import (
	"log/slog"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
	"github.com/claude-pi/claude-pi/protocols/stackchan/event"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// fakeHost stands in for the dock's host in this package's tests: it is
// the Part's Sink, and it hands the Part the frames and timers the way the
// host does (host.go's control, tick and updateStatus), without the port,
// the mirror's EVENTs or trust. The dock's own tests drive the real host
// end to end.
type fakeHost struct {
	Part
	cfg fakeHostConfig

	ready, event bool
	neg          wire.Negotiated
	ctrlSeq      uint32
	ids          event.IDs
	statusSent   bool
	status       wire.Status
	mirror       fakeMirror

	tx      []byte
	effects []any
}

// fakeHostConfig is the host's config as far as voice reads it, and
// speakAssistant, which the host checks before it says a turn.
type fakeHostConfig struct {
	Config
	speakAssistant bool
}

func newFakeHost(cfg fakeHostConfig) *fakeHost {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	h := &fakeHost{cfg: cfg}
	h.Part = New(h, &h.cfg.Config)
	return h
}

// readyFakeHost has had HELLO_ACK with caps and a 4 KiB payload.
func readyFakeHost(cfg fakeHostConfig, caps wire.Caps, t0 time.Time) *fakeHost {
	h := newFakeHost(cfg)
	h.frame(ack(caps, 4096), t0)
	h.takeTx()
	h.takeEffects()
	return h
}

var _ Sink = (*fakeHost)(nil)

func (h *fakeHost) EventReady() bool            { return h.ready && h.neg.Event }
func (h *fakeHost) Effect(e any)                { h.effects = append(h.effects, e) }
func (h *fakeHost) Ready() bool                 { return h.ready }
func (h *fakeHost) Negotiated() wire.Negotiated { return h.neg }
func (h *fakeHost) MediaStarted()               {}
func (h *fakeHost) OldestPrompt() *Prompt       { return h.mirror.oldest() }
func (h *fakeHost) PromptByReq(id string) *Prompt {
	return h.mirror.byReq(id)
}

func (h *fakeHost) MarkDecided(id string) {
	if p := h.mirror.byReq(id); p != nil {
		p.Decided = true
	}
}

func (h *fakeHost) SendControl(f wire.Frame) {
	f.Sequence = h.ctrlSeq
	h.ctrlSeq++
	h.AppendFrame(f)
}

func (h *fakeHost) AppendFrame(f wire.Frame) {
	var err error
	if h.tx, err = wire.AppendFrame(h.tx, f); err != nil {
		panic(err) // a test's bug
	}
}

func (h *fakeHost) SendEvent(e appevent.Event) {
	if !h.EventReady() {
		return
	}
	b, err := appevent.Marshal(e)
	if err != nil {
		panic(err)
	}
	fs, err := event.AppendChunks(nil, h.ids.Next(), b, int(h.neg.MaxPayload))
	if err != nil {
		panic(err)
	}
	for _, f := range fs {
		h.AppendFrame(f)
	}
}

func (h *fakeHost) SendStatus() {
	if !h.ready {
		return
	}
	s, ok := h.neg.StatusToSend(h.Status())
	if !ok || (h.statusSent && s == h.status) {
		return
	}
	h.SendControl(wire.StatusFrame(0, s))
	h.statusSent, h.status = true, s
}

func (h *fakeHost) updateStatus() {
	if h.ready {
		h.SyncFollowUp()
		h.SendStatus()
	}
}

// frame is the host's frame and control for what reaches voice.
func (h *fakeHost) frame(f wire.Frame, now time.Time) {
	if f.Type == wire.TypeMicPCM {
		if h.ready {
			h.MicPCM(f, now)
			h.updateStatus()
		}
		return
	}
	code, ok := f.Control()
	if !ok || (!h.ready && code != wire.CtrlHelloAck && code != wire.CtrlError) {
		return
	}
	switch code {
	case wire.CtrlHelloAck:
		neg, err := wire.CheckHelloAck(f, wire.HostCaps, wire.HostRequiredCaps)
		if err != nil {
			panic(err)
		}
		h.ready, h.neg = true, neg
		h.statusSent, h.status = true, wire.StatusIdle
		h.PumpSpeech(now)
	case wire.CtrlError:
		c, err := wire.ParseErrorCode(f.Payload)
		if err == nil && (h.SpeakerError(f.StreamID, c, now) || h.MicError(f.StreamID, c, now)) {
			h.PumpSpeech(now)
		}
	case wire.CtrlSpeakerCredit:
		if inc, err := wire.ParseCredit(f.Payload); err == nil {
			h.SpeakerCredit(f.StreamID, inc, now)
		}
	case wire.CtrlSpeakerDone:
		h.SpeakerDone(f.StreamID, now)
	case wire.CtrlMicStarted:
		h.MicStarted(f.StreamID, now)
	case wire.CtrlMicStopped:
		h.MicStopped(f.StreamID, now)
		h.PumpSpeech(now)
	}
	h.updateStatus()
}

// tick is the host's tick once ready, in its order.
func (h *fakeHost) tick(now time.Time) {
	if !h.ready {
		return
	}
	h.VoiceTick(now)
	h.FollowUpTick(now)
	h.PumpSpeech(now)
	h.updateStatus()
}

func (h *fakeHost) wake() (time.Time, bool) { return h.Wake() }

// detach is the host's unplug.
func (h *fakeHost) detach(now time.Time) {
	h.SpeechLost(now)
	h.VoiceLost()
	h.FollowUpLost()
	h.ready = false
}

func (h *fakeHost) takeTx() []byte {
	b := h.tx
	h.tx = nil
	return b
}

func (h *fakeHost) takeEffects() []any {
	e := h.effects
	h.effects = nil
	return e
}

// fakeMirror holds the prompts the CoreS3 would show.
type fakeMirror struct{ list []*Prompt }

func (m *fakeMirror) appeared(p approvals.Prompt, _ time.Time, suspended bool) {
	m.list = append(m.list, &Prompt{Prompt: p, ReqID: requestID(p.Source, p.ID), Suspended: suspended})
}

func (m *fakeMirror) oldest() *Prompt {
	if len(m.list) == 0 {
		return nil
	}
	return m.list[0]
}

func (m *fakeMirror) byReq(id string) *Prompt {
	for _, p := range m.list {
		if p.ReqID == id {
			return p
		}
	}
	return nil
}

// requestID is the dock mirror's requestId for a plain, short source and id.
func requestID(source, id string) string { return "approval-" + source + "-" + id }

var prompt = approvals.Prompt{Source: "desktop", ID: "toolu_01ABC", Tool: "Bash", Hint: "npm test", Detail: "npm test --workspaces"}

// sent parses what the host wrote.
func sent(t testing.TB, h *fakeHost) []wire.Frame {
	t.Helper()
	var p wire.Parser
	p.Feed(h.takeTx())
	var out []wire.Frame
	for f, ok := p.Next(); ok; f, ok = p.Next() {
		f.Payload = append([]byte(nil), f.Payload...)
		out = append(out, f)
	}
	return out
}

func ack(caps wire.Caps, max uint32) wire.Frame {
	return wire.HelloAckFrame(0, wire.HelloPayload{MaxPayload: max, Caps: caps})
}
