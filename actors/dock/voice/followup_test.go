package voice

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/lan"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
	"github.com/claude-pi/claude-pi/protocols/stackchan/session"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// fuRig drives a ready host with STT through follow-ups, keeping what it
// told the lan service and the EVENT bytes it wrote. Its speaker is a
// session.Dock: replies are said at one second of audio per sentence,
// in the time the rig is told to let pass (speak).
type fuRig struct {
	t       *testing.T
	h       *fakeHost
	now     time.Time
	outs    []string // FollowUpOut as "session state[ text]"
	tx      []byte
	n       int // conversation requestIds
	speaker session.Dock
	synth   []SynthOut      // synthesis the host asked for, answered by speak
	replies []session.Reply // the speaker's credit and DONE, for the host
	stopAt  time.Time       // the last reply's Stop
}

func newFuRig(t *testing.T) *fuRig {
	t0 := time.Unix(1000, 0)
	h := readyFakeHost(fakeHostConfig{speakAssistant: true,
		Config: Config{SpeakConversation: true, HasTTS: true, Voice: true, ListenFor: time.Second, Token: "t"}},
		wire.FirmwareCaps, t0)
	return &fuRig{t: t, h: h, now: t0}
}

func (r *fuRig) drain() {
	tx := r.h.takeTx()
	r.tx = append(r.tx, tx...)
	var p wire.Parser
	p.Feed(tx)
	for f, ok := p.Next(); ok; f, ok = p.Next() {
		var o session.Outcome
		code, _ := f.Control()
		switch {
		case f.Type == wire.TypeSpeakerPCM:
			o = r.speaker.SpeakerPCM(f.StreamID, f.SampleRate, f.Sequence, len(f.Payload))
		case f.Type == wire.TypeControl && code >= wire.CtrlSpeakerStart && code <= wire.CtrlSpeakerText:
			o, _ = r.speaker.Control(code, f.StreamID, f.SampleRate, f.Payload)
		}
		r.replies = append(r.replies, o.Replies...)
	}
	for _, e := range r.h.takeEffects() {
		switch o := e.(type) {
		case FollowUpOut:
			s := o.Session + " " + o.State
			if o.Text != "" {
				s += " " + o.Text
			}
			r.outs = append(r.outs, s)
		case SynthOut:
			r.synth = append(r.synth, o)
		case CancelSynthOut:
			r.synth = slices.DeleteFunc(r.synth, func(s SynthOut) bool { return s.Utt == o.Utt })
		}
	}
}

func (r *fuRig) at(d time.Duration) { r.now = r.now.Add(d) }

// offer is a Stop with a reply, as the actor takes lan.Reply: the reply
// is queued to be said, then offered for a follow-up.
func (r *fuRig) offer(session, computer, project, text string, window time.Duration) {
	before := r.h.speech.nextUtt
	if r.h.cfg.speakAssistant {
		r.h.say(utterance{kind: sayAssistant, text: text}, r.now)
	}
	r.stopAt = r.now
	r.h.FollowUpReply(lan.Reply{Session: session, Computer: computer, Project: project, Text: text, FollowUp: window},
		r.h.speech.queuedSince(before), r.now)
	r.drain()
}

// reply is a one-sentence reply, said to its end.
func (r *fuRig) reply(session string, window time.Duration) {
	r.offer(session, "", "", "Done.", window)
	r.speakUntil(func() bool { return r.h.speech.cur == nil }, time.Minute)
}

// speakUntil lets the speaker play in 20 ms steps until done says so or
// for at most d: synthesis is answered at the start of a step, with one
// second of audio per sentence.
func (r *fuRig) speakUntil(done func() bool, d time.Duration) {
	const step = 20 * time.Millisecond
	for end := r.now.Add(d); !done() && r.now.Before(end); {
		for _, s := range r.synth {
			r.h.SynthDone(s.Utt, s.Index, make([]byte, 2*s.Rate), nil, r.now)
		}
		r.synth = nil
		r.drain()
		r.at(step)
		r.replies = append(r.replies, r.speaker.Advance(step).Replies...)
		replies := r.replies
		r.replies = nil
		for _, x := range replies {
			switch x.Code {
			case wire.CtrlSpeakerCredit:
				r.h.SpeakerCredit(x.StreamID, x.Value, r.now)
			case wire.CtrlSpeakerDone:
				r.h.SpeakerDone(x.StreamID, r.now)
			}
		}
		r.h.tick(r.now)
		r.drain()
	}
	if !done() {
		r.t.Fatalf("not done after %v of speech", d)
	}
}

// saying reports whether the reply with text is being played.
func (r *fuRig) saying(text string) func() bool {
	return func() bool { c := r.h.speech.cur; return c != nil && c.sender != nil && c.text == text }
}

func (r *fuRig) swipe(op ConvOp) {
	r.n++
	r.h.Conversation(fmt.Sprintf("c-%d", r.n), op, r.now)
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
		if s, ok := e.(STTOut); ok {
			job = s.Job
		}
	}
	if job == 0 {
		r.t.Fatal("no STT job after the follow-up's recording")
	}
	h.Recognized(job, text, err, r.now)
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
	// As the host does; what is not the follow-up's would go to its
	// mirror, which has no prompts here.
	switch e := ev.(type) {
	case appevent.ApprovalPresented:
		r.h.FollowUpPresented(e.RequestID, r.now)
	case appevent.ApprovalResponse:
		r.h.FollowUpResponse(e, r.now)
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
			r.swipe(OpStart)
			r.hear("run the tests please", nil)
			r.tick(followUpConfirm) // not presented yet: not sent
			r.event(appevent.NewApprovalPresented(card))
			r.tick(followUpConfirm - time.Millisecond)
			r.tick(time.Millisecond)
		}, []string{"s1 listening", "s1 text run the tests please"}, true, followUpSent},
		{"OK on the card sends at once", func(r *fuRig) {
			r.reply("s1", w)
			r.swipe(OpStart)
			r.hear("ship it", nil)
			r.event(appevent.NewApprovalPresented(card))
			r.event(appevent.NewApprovalResponse(card, appevent.Approve))
			r.event(appevent.NewApprovalResponse(card, appevent.Approve)) // the firmware's resend
			r.tick(followUpConfirm)
		}, []string{"s1 listening", "s1 text ship it"}, true, followUpSent},
		{"NG on the card cancels", func(r *fuRig) {
			r.reply("s1", w)
			r.swipe(OpStart)
			r.hear("delete everything", nil)
			r.event(appevent.NewApprovalPresented(card))
			r.event(appevent.NewApprovalResponse(card, appevent.Decline))
			r.tick(followUpConfirm)
		}, []string{"s1 listening", "s1 none"}, true, followUpKept},
		{"a backward swipe cancels the card", func(r *fuRig) {
			r.reply("s1", w)
			r.swipe(OpStart)
			r.hear("delete everything", nil)
			r.event(appevent.NewApprovalPresented(card))
			r.swipe(OpStop)
			r.tick(followUpConfirm)
		}, []string{"s1 listening", "s1 none"}, true, followUpKept},
		{"a backward swipe while listening cancels", func(r *fuRig) {
			r.reply("s1", w)
			r.swipe(OpStart)
			r.swipe(OpStop)
		}, []string{"s1 listening", "s1 none"}, false, ""},
		{"nothing recognised", func(r *fuRig) {
			r.reply("s1", w)
			r.swipe(OpStart)
			r.hear("", nil)
		}, []string{"s1 listening", "s1 none"}, false, ""},
		{"the recogniser failed", func(r *fuRig) {
			r.reply("s1", w)
			r.swipe(OpStart)
			r.hear("", errors.New("voice.stt_command: no answer within 30s"))
		}, []string{"s1 listening", "s1 none"}, false, ""},
		{"never presented: never sent", func(r *fuRig) {
			r.reply("s1", w)
			r.swipe(OpStart)
			r.hear("run it", nil)
			r.tick(followUpShowFor)
		}, []string{"s1 listening", "s1 none"}, true, followUpKept},
		{"unplugged while shown", func(r *fuRig) {
			r.reply("s1", w)
			r.swipe(OpStart)
			r.hear("run it", nil)
			r.event(appevent.NewApprovalPresented(card))
			r.h.detach(r.now)
			r.drain()
			r.tick(followUpConfirm)
		}, []string{"s1 listening", "s1 none"}, true, ""},
		{"no swipe: the hook is let go before the lan's window ends", func(r *fuRig) {
			r.reply("s1", w)
			r.tick(r.stopAt.Add(w - followUpMargin - time.Millisecond).Sub(r.now))
			if len(r.outs) != 0 {
				t.Errorf("let go %v early", r.outs)
			}
			if at, ok := r.h.wake(); !ok || at.After(r.now.Add(time.Millisecond)) {
				t.Errorf("wake %v %v, want at the window's end", at, ok)
			}
			r.tick(time.Millisecond)
			r.swipe(OpStart) // after the window: the summary, not a follow-up
		}, []string{"s1 none"}, false, ""},
		{"follow-ups off: nothing armed", func(r *fuRig) {
			r.reply("s1", 0)
			r.swipe(OpStart)
		}, nil, false, ""},
		{"no microphone: the hook is let go at once", func(r *fuRig) {
			r.h.neg.Peer &^= wire.CapMicPCM
			r.reply("s1", w)
			r.swipe(OpStart)
		}, []string{"s1 none"}, false, ""},
		{"no STT: the hook is let go at once", func(r *fuRig) {
			r.h.cfg.Voice = false
			r.reply("s1", w)
		}, []string{"s1 none"}, false, ""},
		{"a newer reply re-arms for its session", func(r *fuRig) {
			r.reply("s1", w)
			r.reply("s2", w)
			r.swipe(OpStart)
			r.hear("go on", nil)
			r.event(appevent.NewApprovalResponse(card, appevent.Approve))
		}, []string{"s1 none", "s2 listening", "s2 text go on"}, true, followUpSent},
		{"a reply while one is heard is let go", func(r *fuRig) {
			r.reply("s1", w)
			r.swipe(OpStart)
			r.offer("s2", "", "", "Done too.", w)
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
			if tc.outs != nil && len(r.h.fu.offers) != 0 {
				t.Errorf("offers %v left at the end", r.h.fu.offers)
			}
		})
	}
}

// TestFollowUpCardShowsTheTextAsHeard: the card names the session the
// follow-up goes to, and its summary and detail are the recogniser's text,
// cut to what the hook would send.
func TestFollowUpCardShowsTheTextAsHeard(t *testing.T) {
	r := newFuRig(t)
	r.offer("s1", "alice-mbp", "web", "Done.", 10*time.Second)
	r.speakUntil(func() bool { return r.h.speech.cur == nil }, time.Minute)
	r.swipe(OpStart)
	r.hear("are you not do this please", nil)
	summary := `To alice-mbp · web\nare you not do this please`
	want := `"title":"` + followUpTitle + `","summary":"` + summary + `","detail":"` + summary + `"`
	if !bytes.Contains(r.tx, []byte(want)) {
		t.Errorf("the card's EVENT bytes lack %s", want)
	}
	if r.h.fu.text != "are you not do this please" || hookbridge.Printable(r.h.fu.text, hookbridge.MaxFollowUp) != r.h.fu.text {
		t.Errorf("kept %q", r.h.fu.text)
	}
}

// TestFollowUpGoesToTheReplyHeard: two computers' sessions end their turns
// 1.5 s apart; their replies are said one after the other. A swipe
// answers the reply being said, or the one just said, and no other: the
// other session's hook is let go, and the card names the answered one.
func TestFollowUpGoesToTheReplyHeard(t *testing.T) {
	const (
		w      = 10 * time.Second
		replyA = "I pushed nothing yet. The branch is ready. Shall I push it?"
		replyB = "The tests pass."
		said   = "yes go ahead and push it"
	)
	ended := func(r *fuRig, text string) func() bool {
		return func() bool { c := r.h.speech.cur; return c == nil || c.text != text }
	}
	// both: A's Stop, 1.5 s of A's reply, then B's Stop.
	both := func(r *fuRig) {
		r.offer("sa", "alice-mbp", "web", replyA, w)
		r.speakUntil(r.saying(replyA), time.Second)
		r.at(1500*time.Millisecond - (r.now.Sub(r.stopAt)))
		r.offer("sb", "bob-laptop", "infra", replyB, w)
	}
	for _, tc := range []struct {
		name string
		run  func(r *fuRig)
		outs []string
		card string // the card's first line; "" for no card
	}{
		{"a swipe while A's reply is said goes to A", func(r *fuRig) {
			both(r)
			r.speakUntil(func() bool { return false == r.saying(replyB)() }, 500*time.Millisecond)
			if !r.saying(replyA)() {
				t.Fatal("A's reply is not being said at the swipe")
			}
			r.swipe(OpStart)
		}, []string{"sb none", "sa listening", "sa text " + said}, "To alice-mbp · web"},
		{"a swipe after A's reply, while B's is prepared, goes to A", func(r *fuRig) {
			both(r)
			r.speakUntil(ended(r, replyA), 10*time.Second)
			if c := r.h.speech.cur; c == nil || c.text != replyB || c.sender != nil {
				t.Fatal("B's reply is not being prepared at the swipe")
			}
			r.swipe(OpStart)
		}, []string{"sb none", "sa listening", "sa text " + said}, "To alice-mbp · web"},
		{"a swipe while B's reply is said goes to B", func(r *fuRig) {
			both(r)
			r.speakUntil(r.saying(replyB), 10*time.Second)
			r.swipe(OpStart)
		}, []string{"sa none", "sb listening", "sb text " + said}, "To bob-laptop · infra"},
		{"once B's reply was said, A's hook is let go and a swipe goes to B", func(r *fuRig) {
			both(r)
			r.speakUntil(func() bool { return r.h.speech.cur == nil }, 10*time.Second)
			if !slices.Equal(r.outs, []string{"sa none"}) {
				t.Errorf("after both replies told the lan %q, want A's hook let go", r.outs)
			}
			r.swipe(OpStart)
		}, []string{"sa none", "sb listening", "sb text " + said}, "To bob-laptop · infra"},
		{"a swipe before any reply is heard is no follow-up", func(r *fuRig) {
			both(r)
			r.h.AbortSpeech() // A's reply cut short: not heard to its end
			r.drain()
			r.swipe(OpStart)
			r.speakUntil(func() bool { return r.h.speech.cur == nil }, 20*time.Second)
		}, []string{"sa none", "sb none"}, ""},
		{"something said after the reply: its hook is let go", func(r *fuRig) {
			r.offer("sa", "alice-mbp", "web", replyA, w)
			r.speakUntil(func() bool { return r.h.speech.cur == nil }, 10*time.Second)
			r.h.say(utterance{kind: sayPrompt, text: "Claude wants to run a command."}, r.now)
			r.speakUntil(func() bool { return r.h.speech.cur == nil }, 10*time.Second)
			r.swipe(OpStart)
		}, []string{"sa none"}, ""},
		{"a reply that is not said is not offered", func(r *fuRig) {
			r.h.cfg.speakAssistant = false
			r.offer("sa", "alice-mbp", "web", replyA, w)
			r.swipe(OpStart)
		}, []string{"sa none"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newFuRig(t)
			tc.run(r)
			if r.h.fu.phase == fuVoice {
				r.hear(said, nil)
				r.event(appevent.NewApprovalPresented(card))
				r.event(appevent.NewApprovalResponse(card, appevent.Approve))
			}
			r.tick(w)
			if !slices.Equal(r.outs, tc.outs) {
				t.Errorf("told the lan %q, want %q", r.outs, tc.outs)
			}
			i := bytes.Index(r.tx, []byte(`"type":"approval.request","requestId":"`+card+`"`))
			switch {
			case tc.card == "" && i >= 0:
				t.Error("a card was shown")
			case tc.card != "" && (i < 0 || !bytes.Contains(r.tx[i:], []byte(`"summary":"`+tc.card+`\n`+said+`"`))):
				t.Errorf("no card starting %q", tc.card)
			}
			if r.h.fu.phase != fuIdle || len(r.h.fu.offers) != 0 {
				t.Errorf("phase %d, offers %v at the end, want idle and none", r.h.fu.phase, r.h.fu.offers)
			}
		})
	}
}
