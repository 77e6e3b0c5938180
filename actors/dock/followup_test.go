package dock

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/lan"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// fuRig drives a ready host with STT through follow-ups, keeping what it
// told the lan service and the EVENT bytes it wrote.
type fuRig struct {
	t    *testing.T
	h    *host
	now  time.Time
	outs []string // followUpOut as "session state[ text]"
	tx   []byte
	n    int // conversation requestIds
}

func newFuRig(t *testing.T) *fuRig {
	t0 := time.Unix(1000, 0)
	h := newHost(hostConfig{speakAssistant: true, speakConversation: true, hasTTS: true, voice: true,
		listenFor: time.Second, assistantMax: 200, token: "t", log: slog.New(slog.DiscardHandler)})
	h.attach(t0)
	h.frame(ack(wire.FirmwareCaps, 4096), t0)
	h.takeTx()
	h.takeEffects()
	return &fuRig{t: t, h: h, now: t0}
}

func (r *fuRig) drain() {
	r.tx = append(r.tx, r.h.takeTx()...)
	for _, e := range r.h.takeEffects() {
		if o, ok := e.(followUpOut); ok {
			s := o.Session + " " + o.State
			if o.Text != "" {
				s += " " + o.Text
			}
			r.outs = append(r.outs, s)
		}
	}
}

func (r *fuRig) at(d time.Duration) { r.now = r.now.Add(d) }

func (r *fuRig) reply(session string, window time.Duration) {
	r.h.followUpReply(lan.Reply{Session: session, Text: "Done.", FollowUp: window}, r.now)
	r.drain()
}

func (r *fuRig) swipe(op convOp) {
	r.n++
	r.h.conversation(fmt.Sprintf("c-%d", r.n), op, r.now)
	r.drain()
}

// hear plays the cue to its end, streams a second of microphone audio,
// and answers the STT job with text (or err).
func (r *fuRig) hear(text string, err error) {
	h := r.h
	if h.voice.phase != voiceAwaitSpeech || h.voice.prompt != followUpPrompt {
		r.t.Fatalf("no follow-up cue waiting (voice phase %d)", h.voice.phase)
	}
	h.voiceSpoken(h.voice.utt, true, r.now)
	id := controls(sent(r.t, h), wire.CtrlMicStart)[0].StreamID
	h.frame(wire.MicStartedFrame(id, 0), r.now)
	for i := range int(time.Second / (20 * time.Millisecond)) {
		h.frame(wire.Frame{Type: wire.TypeMicPCM, StreamID: id, Sequence: uint32(i), SampleRate: 16000, Payload: make([]byte, 640)}, r.now)
	}
	h.frame(wire.MicStoppedFrame(id, 0), r.now)
	var job uint64
	for _, e := range h.takeEffects() {
		if s, ok := e.(sttOut); ok {
			job = s.Job
		}
	}
	if job == 0 {
		r.t.Fatal("no STT job after the follow-up's recording")
	}
	h.recognized(job, text, err, r.now)
	r.drain()
}

func (r *fuRig) event(e appevent.Event) {
	b, err := appevent.Marshal(e)
	if err != nil {
		r.t.Fatal(err)
	}
	ev, err := appevent.DecodeInbound(b, appevent.FirmwareToHost)
	if err != nil {
		r.t.Fatal(err)
	}
	switch e := ev.(type) {
	case appevent.ApprovalPresented:
		if !r.h.fu.presented(e.RequestID, r.now) {
			r.h.mirror.presented(e.RequestID)
		}
	case appevent.ApprovalResponse:
		if !r.h.followUpResponse(e, r.now) {
			r.h.mirror.response(e, r.now)
		}
	}
	r.drain()
}

func (r *fuRig) tick(d time.Duration) {
	r.at(d)
	r.h.tick(r.now)
	r.drain()
}

const card = "followup-t-1"

func TestFollowUp(t *testing.T) {
	w := 10 * time.Second
	for _, tc := range []struct {
		name  string
		run   func(r *fuRig)
		outs  []string
		shown bool   // the card was sent to the CoreS3
		says  string // the last card resolution, "" for none
	}{
		{"heard, shown, sent once presented for followUpConfirm", func(r *fuRig) {
			r.reply("s1", w)
			r.at(2 * time.Second)
			r.swipe(opStart)
			r.hear("run the tests please", nil)
			r.tick(followUpConfirm) // not presented yet: not sent
			r.event(appevent.NewApprovalPresented(card))
			r.tick(followUpConfirm - time.Millisecond)
			r.tick(time.Millisecond)
		}, []string{"s1 listening", "s1 text run the tests please"}, true, followUpSent},
		{"OK on the card sends at once", func(r *fuRig) {
			r.reply("s1", w)
			r.swipe(opStart)
			r.hear("ship it", nil)
			r.event(appevent.NewApprovalPresented(card))
			r.event(appevent.NewApprovalResponse(card, appevent.Approve))
			r.event(appevent.NewApprovalResponse(card, appevent.Approve)) // the firmware's resend
			r.tick(followUpConfirm)
		}, []string{"s1 listening", "s1 text ship it"}, true, followUpSent},
		{"NG on the card cancels", func(r *fuRig) {
			r.reply("s1", w)
			r.swipe(opStart)
			r.hear("delete everything", nil)
			r.event(appevent.NewApprovalPresented(card))
			r.event(appevent.NewApprovalResponse(card, appevent.Decline))
			r.tick(followUpConfirm)
		}, []string{"s1 listening", "s1 none"}, true, followUpKept},
		{"a backward swipe cancels the card", func(r *fuRig) {
			r.reply("s1", w)
			r.swipe(opStart)
			r.hear("delete everything", nil)
			r.event(appevent.NewApprovalPresented(card))
			r.swipe(opStop)
			r.tick(followUpConfirm)
		}, []string{"s1 listening", "s1 none"}, true, followUpKept},
		{"a backward swipe while listening cancels", func(r *fuRig) {
			r.reply("s1", w)
			r.swipe(opStart)
			r.swipe(opStop)
		}, []string{"s1 listening", "s1 none"}, false, ""},
		{"nothing recognised", func(r *fuRig) {
			r.reply("s1", w)
			r.swipe(opStart)
			r.hear("", nil)
		}, []string{"s1 listening", "s1 none"}, false, ""},
		{"the recogniser failed", func(r *fuRig) {
			r.reply("s1", w)
			r.swipe(opStart)
			r.hear("", errors.New("voice.stt_command: no answer within 30s"))
		}, []string{"s1 listening", "s1 none"}, false, ""},
		{"never presented: never sent", func(r *fuRig) {
			r.reply("s1", w)
			r.swipe(opStart)
			r.hear("run it", nil)
			r.tick(followUpShowFor)
		}, []string{"s1 listening", "s1 none"}, true, followUpKept},
		{"unplugged while shown", func(r *fuRig) {
			r.reply("s1", w)
			r.swipe(opStart)
			r.hear("run it", nil)
			r.event(appevent.NewApprovalPresented(card))
			r.h.detach(r.now)
			r.drain()
			r.tick(followUpConfirm)
		}, []string{"s1 listening", "s1 none"}, true, ""},
		{"no swipe: the hook is let go before the lan's window ends", func(r *fuRig) {
			r.reply("s1", w)
			r.tick(w - followUpMargin - time.Millisecond)
			if len(r.outs) != 0 {
				t.Errorf("let go %v early", r.outs)
			}
			if at, ok := r.h.wake(); !ok || at.After(r.now.Add(time.Millisecond)) {
				t.Errorf("wake %v %v, want at the window's end", at, ok)
			}
			r.tick(time.Millisecond)
			r.swipe(opStart) // after the window: the summary, not a follow-up
		}, []string{"s1 none"}, false, ""},
		{"follow-ups off: nothing armed", func(r *fuRig) {
			r.reply("s1", 0)
			r.swipe(opStart)
		}, nil, false, ""},
		{"no microphone: the hook is let go at once", func(r *fuRig) {
			r.h.neg.Peer &^= wire.CapMicPCM
			r.reply("s1", w)
			r.swipe(opStart)
		}, []string{"s1 none"}, false, ""},
		{"no STT: the hook is let go at once", func(r *fuRig) {
			r.h.cfg.voice = false
			r.reply("s1", w)
		}, []string{"s1 none"}, false, ""},
		{"a newer reply re-arms for its session", func(r *fuRig) {
			r.reply("s1", w)
			r.reply("s2", w)
			r.swipe(opStart)
			r.hear("go on", nil)
			r.event(appevent.NewApprovalResponse(card, appevent.Approve))
		}, []string{"s1 none", "s2 listening", "s2 text go on"}, true, followUpSent},
		{"a reply while one is heard is let go", func(r *fuRig) {
			r.reply("s1", w)
			r.swipe(opStart)
			r.reply("s2", w)
			r.hear("go on", nil)
			r.event(appevent.NewApprovalResponse(card, appevent.Approve))
		}, []string{"s1 listening", "s2 none", "s1 text go on"}, true, followUpSent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newFuRig(t)
			tc.run(r)
			if !slices.Equal(r.outs, tc.outs) {
				t.Errorf("told the lan %q, want %q", r.outs, tc.outs)
			}
			if got := bytes.Contains(r.tx, []byte(`"type":"approval.request","requestId":"`+card+`"`)); got != tc.shown {
				t.Errorf("card sent %v, want %v", got, tc.shown)
			}
			resolved := []byte(`"type":"approval.resolved","requestId":"` + card + `"`)
			if tc.says == "" {
				if bytes.Contains(r.tx, resolved) {
					t.Error("the card was resolved")
				}
			} else if i := bytes.LastIndex(r.tx, resolved); i < 0 || !bytes.Contains(r.tx[i:], []byte(`"message":"`+tc.says+`"`)) {
				t.Errorf("card not resolved with %q", tc.says)
			}
			if r.h.fu.phase != fuIdle {
				t.Errorf("follow-up phase %d at the end, want idle", r.h.fu.phase)
			}
		})
	}
}

// TestFollowUpCardShowsTheTextAsHeard: the card's summary and detail are
// the recogniser's text, cut to what the hook would send.
func TestFollowUpCardShowsTheTextAsHeard(t *testing.T) {
	r := newFuRig(t)
	r.reply("s1", 10*time.Second)
	r.swipe(opStart)
	r.hear("are you not do this please", nil)
	want := `"title":"` + followUpTitle + `","summary":"are you not do this please","detail":"are you not do this please"`
	if !bytes.Contains(r.tx, []byte(want)) {
		t.Errorf("the card's EVENT bytes lack %s", want)
	}
	if r.h.fu.text != "are you not do this please" || hookbridge.Printable(r.h.fu.text, hookbridge.MaxFollowUp) != r.h.fu.text {
		t.Errorf("kept %q", r.h.fu.text)
	}
}
