package dock

import (
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/actors/approvals"
	buddyactor "github.com/claude-pi/claude-pi/actors/buddy"
	"github.com/claude-pi/claude-pi/drivers/tts"
	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
	"github.com/claude-pi/claude-pi/supervisor"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// recorder is a stand-in for the approvals and buddy services: it keeps
// every message it receives, and answers a Decide as approvals would.
type recorder struct{ supervisortest.Recorder }

func newRecorder() *recorder {
	r := &recorder{}
	r.Answer = func(m any) (any, bool) {
		_, ok := m.(approvals.Decide)
		return approvals.DecideResult{OK: true}, ok
	}
	return r
}

func (r *recorder) decides() []approvals.Decide {
	return supervisortest.Of[approvals.Decide](&r.Recorder)
}

// rig is a supervisor tree with the dock, recorders for approvals and buddy,
// and a fake CoreS3 behind a fake enumerator.
type rig struct {
	t       *testing.T
	tree    *supervisor.Tree
	core    *fakeCore
	appr    *recorder
	bud     *recorder
	lan     *recorder
	synth   *tts.Fake
	dockPID *actor.PID
}

func newRig(t *testing.T, caps wire.Caps, knobs func(*fakeCore), opts Options) *rig {
	t.Helper()
	r := &rig{t: t, core: newFakeCore(t, caps), appr: newRecorder(), bud: newRecorder(), lan: newRecorder()}
	if knobs != nil {
		knobs(r.core)
	}
	r.core.build()
	if _, ok := opts.Synth.(noSynth); ok {
		opts.Synth = nil
	} else if opts.Synth == nil {
		r.synth = &tts.Fake{CharDuration: 8 * time.Millisecond}
		opts.Synth = r.synth
	}
	opts.Serial.Settle = time.Millisecond
	opts.Serial.Enumerate = r.core.enumerate
	if opts.WatchInterval == 0 {
		opts.WatchInterval = 20 * time.Millisecond
	}
	opts.Retry = 50 * time.Millisecond
	if opts.DataDir == "" && opts.Serial.Serial == "" {
		// Pinned in the configuration is accepted: the tests about the
		// protocol need no screen. The trust tests set DataDir instead.
		opts.Serial.Serial = fakeSerial
	}
	// Registered first, so it runs after the tree's shutdown.
	t.Cleanup(r.core.unplug)
	r.tree = supervisortest.Start(t,
		supervisor.Service{Name: "approvals", Policy: supervisor.DefaultPolicy, New: r.appr.New},
		supervisor.Service{Name: "buddy", Policy: supervisor.DefaultPolicy, New: r.bud.New},
		supervisor.Service{Name: "lan", Policy: supervisor.DefaultPolicy, New: r.lan.New},
		supervisor.Service{Name: "dock", DependsOn: []string{"approvals", "buddy", "lan"}, Policy: supervisor.DefaultPolicy, New: New(opts)},
	)
	r.dockPID = supervisor.ServicePID(r.tree.System(), "dock")
	return r
}

func (r *rig) send(m any) { r.tree.System().Root.Send(r.dockPID, m) }

func (r *rig) description() string {
	p, _ := r.tree.Process("dock")
	return p.Description
}

func (r *rig) state() State {
	v, err := r.tree.System().Root.RequestFuture(r.dockPID, GetState{}, 2*time.Second).Result()
	if err != nil {
		r.t.Fatal(err)
	}
	return v.(State)
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	supervisortest.WaitFor(t, what, ok)
}

func noViolations(t *testing.T, f *fakeCore) {
	t.Helper()
	for _, v := range f.Violations() {
		t.Errorf("fake CoreS3 saw: %s", v)
	}
}

var prompt = approvals.Prompt{Source: "desktop", ID: "toolu_01ABC", Tool: "Bash", Hint: "npm test", Detail: "npm test --workspaces"}

func TestHandshakeWithGarbageAndApprovalRoundTrip(t *testing.T) {
	r := newRig(t, wire.FirmwareCaps, func(f *fakeCore) { f.garbage = true }, Options{MutePrompts: true})
	if d := r.description(); d != "waiting for a CoreS3" {
		t.Errorf("description before plug = %q", d)
	}
	r.core.plug()
	waitFor(t, "EVENT ready", func() bool { return strings.Contains(r.description(), "EVENT ready") })
	if d := r.description(); !strings.HasPrefix(d, "CoreS3 303a:1001 SN 3C84…, EVENT ready") {
		t.Errorf("description = %q", d)
	}
	// task.status idle goes out on every new EVENT transport.
	waitFor(t, "task.status", func() bool { return len(eventsOf[appevent.TaskStatus](r.core)) == 1 })

	sent := time.Now()
	r.send(approvals.PromptAppeared{Prompt: prompt})
	waitFor(t, "approval.request", func() bool { return len(eventsOf[appevent.ApprovalRequest](r.core)) > 0 })
	var at time.Time
	r.core.snapshot(func() { at = r.core.eventAt[len(r.core.eventAt)-1] })
	t.Logf("latency prompt → approval.request on the port: %v", at.Sub(sent))
	req := eventsOf[appevent.ApprovalRequest](r.core)[0]
	want := appevent.NewApprovalRequest("approval-desktop-toolu_01ABC", appevent.KindCommand, "Bash", "npm test", "npm test\nnpm test --workspaces")
	if req != want {
		t.Errorf("approval.request = %+v, want %+v", req, want)
	}

	// The user taps OK; the firmware resends its response until resolved.
	for range 3 {
		r.core.Send(appevent.NewApprovalResponse(req.RequestID, appevent.Approve))
	}
	waitFor(t, "a Decide", func() bool { return len(r.appr.decides()) > 0 })
	r.send(approvals.PromptDecided{Prompt: prompt, Decision: approvals.AllowOnce, By: "CoreS3"})
	r.send(approvals.PromptResolved{Prompt: prompt, How: approvals.ApprovedHere, By: "CoreS3"})
	waitFor(t, "approval.resolved", func() bool { return len(eventsOf[appevent.ApprovalResolved](r.core)) > 0 })
	// A late response for the resolved request gets approval.resolved again.
	// (">= 2": the resends above may still be on their way, and each one
	// that lands after the resolution is answered the same way.)
	r.core.Send(appevent.NewApprovalResponse(req.RequestID, appevent.Approve))
	waitFor(t, "approval.resolved again", func() bool { return len(eventsOf[appevent.ApprovalResolved](r.core)) >= 2 })
	// No sleep for "no second Decide": the dock answered the late
	// response, so any Decide it sent is in approvals' mailbox, which Sync
	// drains.
	r.state()
	supervisortest.Sync(t, r.tree, "approvals")

	// Each response after the resolution gets exactly one approval.resolved:
	// the late one, plus at most the two resends that did not cause the
	// Decide. More would be the dock answering a response twice.
	if n := len(eventsOf[appevent.ApprovalResolved](r.core)); n < 2 || n > 4 {
		t.Errorf("%d approval.resolved, want 1 for the resolution and 1 per response after it (2 to 4)", n)
	}
	d := r.appr.decides()
	if len(d) != 1 {
		t.Fatalf("%d Decides, want exactly 1: %+v", len(d), d)
	}
	if d[0] != (approvals.Decide{Source: "desktop", ID: "toolu_01ABC", Decision: approvals.AllowOnce, By: "CoreS3"}) {
		t.Errorf("Decide = %+v", d[0])
	}
	for _, res := range eventsOf[appevent.ApprovalResolved](r.core) {
		if res != appevent.NewApprovalResolved(req.RequestID, "approved on CoreS3") {
			t.Errorf("approval.resolved = %+v", res)
		}
	}
	if n := len(eventsOf[appevent.ApprovalRequest](r.core)); n != 1 {
		t.Errorf("%d approval.request after approval.presented, want 1", n)
	}
	if hellos := r.core.Hellos(); hellos != 1 {
		t.Errorf("%d HELLOs, want 1 (the garbage and CRC error cost only themselves)", hellos)
	}
	noViolations(t, r.core)
}

func TestApprovalResendSuspendAndDeny(t *testing.T) {
	r := newRig(t, wire.FirmwareCaps, func(f *fakeCore) { f.noPresent = true }, Options{MutePrompts: true})
	r.core.plug()
	waitFor(t, "EVENT ready", func() bool { return strings.Contains(r.description(), "EVENT ready") })
	edit := approvals.Prompt{Source: "desktop", ID: strings.Repeat("ü", 100), Tool: "Edit", Hint: "src/main.go"}
	r.send(approvals.PromptAppeared{Prompt: edit})
	// No approval.presented: resent every 2 s.
	waitFor(t, "a resent approval.request", func() bool { return len(eventsOf[appevent.ApprovalRequest](r.core)) >= 2 })
	req := eventsOf[appevent.ApprovalRequest](r.core)[0]
	if req.Kind != appevent.KindFileChange || len(req.RequestID) > maxRequestID || req.RequestID != requestID("desktop", edit.ID) {
		t.Errorf("approval.request = %+v", req)
	}
	r.core.Send(appevent.NewApprovalPresented(req.RequestID))
	r.send(approvals.LinkChanged{Source: "desktop", Up: false})
	waitFor(t, "approval.suspended", func() bool { return len(eventsOf[appevent.ApprovalSuspended](r.core)) == 1 })
	n := len(eventsOf[appevent.ApprovalRequest](r.core))
	r.send(approvals.LinkChanged{Source: "desktop", Up: true})
	waitFor(t, "re-presented", func() bool { return len(eventsOf[appevent.ApprovalRequest](r.core)) == n+1 })
	r.core.Send(appevent.NewApprovalResponse(req.RequestID, appevent.Decline))
	waitFor(t, "a Decide", func() bool { return len(r.appr.decides()) == 1 })
	if d := r.appr.decides()[0]; d.Decision != approvals.Deny || d.By != "CoreS3" {
		t.Errorf("Decide = %+v", d)
	}
	r.send(approvals.PromptResolved{Prompt: edit, How: approvals.DeniedHere, By: "CoreS3"})
	waitFor(t, "approval.resolved", func() bool { return len(eventsOf[appevent.ApprovalResolved](r.core)) == 1 })
	if m := eventsOf[appevent.ApprovalResolved](r.core)[0].Message; m != "denied on CoreS3" {
		t.Errorf("message = %q", m)
	}
	noViolations(t, r.core)
}

// A tap on a prompt whose source is reconnecting (approvals holds it and
// would refuse it with ErrReconnecting) is not sent, and does not use up
// the CoreS3's one answer: after the link is back, its tap is sent.
//
// Every wait is on something the fake CoreS3 received, in the order the
// dock handled it: approval.suspended proves the dock knows the link is
// down before the tap; and a response for an unknown request after the
// tap, answered with approval.resolved, proves the dock has handled the
// tap (the core's lines reach the dock in order) before anything is
// asserted about Decides.
func TestTapWhileReconnectingIsNotSent(t *testing.T) {
	r := newRig(t, wire.FirmwareCaps, nil, Options{MutePrompts: true})
	r.core.plug()
	waitFor(t, "EVENT ready", func() bool { return strings.Contains(r.description(), "EVENT ready") })
	r.send(approvals.PromptAppeared{Prompt: prompt})
	waitFor(t, "approval.request", func() bool { return len(eventsOf[appevent.ApprovalRequest](r.core)) == 1 })
	req := eventsOf[appevent.ApprovalRequest](r.core)[0]
	// What approvals publishes when buddy reports the BLE link dropped
	// with a hold.
	r.send(approvals.LinkChanged{Source: "desktop", Up: false})
	r.send(approvals.PromptReconnecting{Prompt: prompt, Until: time.Now().Add(15 * time.Second)})
	waitFor(t, "approval.suspended", func() bool { return len(eventsOf[appevent.ApprovalSuspended](r.core)) == 1 })
	if s := eventsOf[appevent.ApprovalSuspended](r.core)[0]; s != appevent.NewApprovalSuspended(req.RequestID) {
		t.Fatalf("approval.suspended = %+v, want it for %s", s, req.RequestID)
	}

	const probe = "approval-desktop-probe"
	tapped := func(d appevent.Decision) {
		t.Helper()
		n := len(eventsOf[appevent.ApprovalResolved](r.core))
		r.core.Send(appevent.NewApprovalResponse(req.RequestID, d))
		r.core.Send(appevent.NewApprovalResponse(probe, appevent.Approve))
		waitFor(t, "the probe answered", func() bool {
			res := eventsOf[appevent.ApprovalResolved](r.core)
			return len(res) > n && res[len(res)-1].RequestID == probe
		})
	}
	for range 3 { // the firmware resends its answer every 2 s
		tapped(appevent.Approve)
	}
	supervisortest.Sync(t, r.tree, "approvals")
	if d := r.appr.decides(); len(d) != 0 {
		t.Fatalf("taps while reconnecting made %+v", d)
	}
	for _, res := range eventsOf[appevent.ApprovalResolved](r.core) {
		if res.RequestID == req.RequestID {
			t.Fatalf("the held prompt was resolved on the CoreS3: %+v", res)
		}
	}

	// The desktop's heartbeat confirms the prompt: presented again, and the
	// CoreS3's answer (it resends it) now goes to approvals, once.
	n := len(eventsOf[appevent.ApprovalRequest](r.core))
	r.send(approvals.LinkChanged{Source: "desktop", Up: true})
	r.send(approvals.PromptRestored{Prompt: prompt})
	waitFor(t, "re-presented", func() bool { return len(eventsOf[appevent.ApprovalRequest](r.core)) > n })
	tapped(appevent.Decline)
	tapped(appevent.Decline)
	supervisortest.Sync(t, r.tree, "approvals")
	d := r.appr.decides()
	if len(d) != 1 || d[0] != (approvals.Decide{Source: "desktop", ID: prompt.ID, Decision: approvals.Deny, By: "CoreS3"}) {
		t.Fatalf("Decides after the restore = %+v, want one deny by CoreS3", d)
	}
	noViolations(t, r.core)
}

func TestFirmwareWithoutEventIsAudioOnly(t *testing.T) {
	r := newRig(t, wire.FirmwareCaps&^wire.CapEvent, nil, Options{})
	r.core.plug()
	waitFor(t, "audio-only description", func() bool { return strings.Contains(r.description(), audioOnlyNote) })
	r.send(approvals.PromptAppeared{Prompt: prompt})
	r.send(buddyactor.State{Connected: true, Snapshot: &pbuddy.Heartbeat{Total: 1, Running: 1}})
	// The announcement is still spoken: audio works.
	waitFor(t, "speech", func() bool {
		var n int
		r.core.snapshot(func() { n = len(r.core.dones) })
		return n == 1
	})
	if ev := r.core.Events(); len(ev) != 0 {
		t.Errorf("events sent to firmware without EVENT: %v", ev)
	}
	r.core.snapshot(func() {
		if len(r.core.captions) == 0 || !strings.HasPrefix(r.core.captions[0], "Claude wants to run Bash: npm test") {
			t.Errorf("captions = %q", r.core.captions)
		}
	})
	noViolations(t, r.core)
}

func TestSpeechInSmallCreditSteps(t *testing.T) {
	r := newRig(t, wire.FirmwareCaps, func(f *fakeCore) { f.creditStep = 1000 }, Options{AssistantMax: 1000})
	r.core.plug()
	waitFor(t, "EVENT ready", func() bool { return strings.Contains(r.description(), "EVENT ready") })
	var ru0 runtimeUsage
	ru0.read()
	text := "First sentence is here " + strings.Repeat("and it goes on ", 20) + ". Second one follows " + strings.Repeat("with more words ", 20) + "! And a third?"
	r.send(buddyactor.Turn{Event: pbuddy.TurnEvent{Role: "assistant", Content: []byte(`[{"type":"text","text":"` + text + `"}]`)}})
	waitFor(t, "SPEAKER_DONE", func() bool {
		var n int
		r.core.snapshot(func() { n = len(r.core.dones) })
		return n == 1
	})
	var ru1 runtimeUsage
	ru1.read()
	var bytes int64
	r.core.snapshot(func() {
		bytes = r.core.pcmBytes
		if len(r.core.captions) != 2 || !strings.HasPrefix(r.core.captions[0], "First sentence is here and") {
			t.Errorf("captions = %q", r.core.captions)
		}
	})
	secs := float64(bytes) / 48000
	t.Logf("sent %.2f s of 24 kHz speech; process CPU %.2f ms per second of speech (incl. the fake CoreS3 and tts.Fake); max credit wait %v",
		secs, float64(ru1.cpu-ru0.cpu)/float64(time.Millisecond)/secs, r.state().MaxCreditWait)
	waitFor(t, "STATUS IDLE after speaking", func() bool {
		var st []wire.Status
		r.core.snapshot(func() { st = append(st, r.core.statuses...) })
		return len(st) >= 2 && st[len(st)-2] == wire.StatusSpeaking && st[len(st)-1] == wire.StatusIdle
	})
	noViolations(t, r.core)
}

func TestErrorOnSpeakerStreamFailsOnlyThatStream(t *testing.T) {
	r := newRig(t, wire.FirmwareCaps, func(f *fakeCore) { f.errorAfter = 2 }, Options{})
	r.core.plug()
	waitFor(t, "EVENT ready", func() bool { return strings.Contains(r.description(), "EVENT ready") })
	r.send(Turn{Role: "assistant", Content: []byte(`"One long sentence that takes a while to say out loud."`)})
	waitFor(t, "the ERROR", func() bool {
		var n int
		r.core.snapshot(func() { n = r.core.pcm[1] })
		return n >= 2
	})
	waitFor(t, "the speaker session to fail", func() bool { return strings.HasSuffix(r.description(), ", idle") })
	// The link and approvals still work; the next utterance uses a new stream.
	r.core.snapshot(func() { r.core.errorAfter = 0 })
	r.send(approvals.PromptAppeared{Prompt: prompt})
	waitFor(t, "approval.request", func() bool { return len(eventsOf[appevent.ApprovalRequest](r.core)) == 1 })
	waitFor(t, "the announcement", func() bool {
		var n int
		r.core.snapshot(func() { n = len(r.core.dones) })
		return n == 1
	})
	r.core.snapshot(func() {
		if len(r.core.starts) != 2 || r.core.starts[0] == r.core.starts[1] || r.core.dones[0] != r.core.starts[1] {
			t.Errorf("starts %v dones %v", r.core.starts, r.core.dones)
		}
	})
	if n := r.core.Hellos(); n != 1 {
		t.Errorf("%d HELLOs: an ERROR must not reset the link", n)
	}
}

func TestUnplugAndReplugMidSpeech(t *testing.T) {
	r := newRig(t, wire.FirmwareCaps, nil, Options{MutePrompts: true})
	r.core.plug()
	waitFor(t, "EVENT ready", func() bool { return strings.Contains(r.description(), "EVENT ready") })
	r.send(approvals.PromptAppeared{Prompt: prompt})
	r.send(Turn{Role: "assistant", Content: []byte(`"` + strings.Repeat("Speaking for a long time now. ", 6) + `"`)})
	waitFor(t, "PCM", func() bool {
		var n int
		r.core.snapshot(func() { n = len(r.core.pcm) })
		return n > 0
	})
	before := runtime.NumGoroutine()
	r.core.unplug()
	waitFor(t, "waiting description", func() bool { return r.description() == "waiting for a CoreS3" })
	r.core.plug()
	waitFor(t, "EVENT ready again", func() bool { return strings.Contains(r.description(), "EVENT ready") })
	// The pending approval is restored on the new transport.
	waitFor(t, "approval.request again", func() bool { return len(eventsOf[appevent.ApprovalRequest](r.core)) >= 2 })
	r.send(Turn{Role: "assistant", Content: []byte(`"Back again."`)})
	waitFor(t, "speech after replug", func() bool {
		var n int
		r.core.snapshot(func() { n = len(r.core.dones) })
		return n == 1
	})
	if after := runtime.NumGoroutine(); after > before+4 {
		t.Errorf("goroutines %d → %d after a replug", before, after)
	}
	noViolations(t, r.core)
}

func TestConversationRetriedWithSameID(t *testing.T) {
	r := newRig(t, wire.FirmwareCaps, nil, Options{MutePrompts: true})
	r.core.plug()
	waitFor(t, "EVENT ready", func() bool { return strings.Contains(r.description(), "EVENT ready") })
	r.send(buddyactor.State{Connected: true, Snapshot: &pbuddy.Heartbeat{Total: 2, Running: 1}})
	r.send(approvals.PromptAppeared{Prompt: prompt})
	r.core.Send(appevent.NewConversationStart("conversation-a1b2c3d4-1"))
	r.core.Send(appevent.NewConversationStart("conversation-a1b2c3d4-1"))
	r.core.Send(appevent.NewConversationStop("conversation-a1b2c3d4-1"))
	waitFor(t, "three results", func() bool { return len(eventsOf[appevent.ConversationResult](r.core)) == 3 })
	res := eventsOf[appevent.ConversationResult](r.core)
	ok := appevent.NewConversationResult("conversation-a1b2c3d4-1", true, appevent.StateSpeaking, "")
	if res[0] != ok || res[1] != ok {
		t.Errorf("results = %+v", res[:2])
	}
	if res[2].Success || res[2].State != appevent.StateBlocked || res[2].Error == "" {
		t.Errorf("other operation with the same id = %+v, want blocked", res[2])
	}
	waitFor(t, "the summary spoken", func() bool {
		var n int
		r.core.snapshot(func() { n = len(r.core.dones) })
		return n == 1
	})
	joined := ""
	for _, q := range r.synth.Requests() {
		joined += q.Text + " "
	}
	if !strings.Contains(joined, "Claude has 2 sessions, 1 running.") || !strings.Contains(joined, "approval to run Bash: npm test") {
		t.Errorf("summary spoken once = %q", joined)
	}
	if strings.Count(joined, "Claude has 2 sessions") != 1 {
		t.Errorf("summary spoken more than once: %q", joined)
	}
	// task.status running from the snapshot.
	waitFor(t, "task.status running", func() bool {
		ts := eventsOf[appevent.TaskStatus](r.core)
		return len(ts) > 0 && ts[len(ts)-1].State == appevent.TaskRunning
	})
}

func TestConversationWithoutTTSIsBlocked(t *testing.T) {
	r := newRig(t, wire.FirmwareCaps, nil, Options{Synth: noSynth{}})
	r.core.plug()
	waitFor(t, "EVENT ready", func() bool { return strings.Contains(r.description(), "EVENT ready") })
	r.core.Send(appevent.NewConversationStart("c-1"))
	waitFor(t, "a result", func() bool { return len(eventsOf[appevent.ConversationResult](r.core)) == 1 })
	if res := eventsOf[appevent.ConversationResult](r.core)[0]; res.Success || res.State != appevent.StateBlocked || res.Error == "" {
		t.Errorf("result = %+v", res)
	}
}

// noSynth is replaced by nil in newRig's options so the dock has no TTS.
type noSynth struct{ *tts.Fake }

// runtimeUsage is the process's CPU time (user + system).
type runtimeUsage struct{ cpu time.Duration }

func (u *runtimeUsage) read() {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		u.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
}

// TestStatePublished: a subscriber hears the State at once, every change
// (the CoreS3 plugged, unplugged) without asking, and the port closing
// when the dock stops.
func TestStatePublished(t *testing.T) {
	r := newRig(t, wire.FirmwareCaps, nil, Options{MutePrompts: true})
	states := func() []State { return supervisortest.Of[State](&r.bud.Recorder) }
	last := func() State { s := states(); return s[len(s)-1] }
	r.send(supervisor.Subscribe{PID: supervisor.ServicePID(r.tree.System(), "buddy")})
	waitFor(t, "the State on subscribing", func() bool { return len(states()) == 1 })
	if s := last(); s.Connected || s.Description != "waiting for a CoreS3" {
		t.Fatalf("first State %+v, want a dock waiting for its CoreS3", s)
	}
	r.core.plug()
	waitFor(t, "a ready State", func() bool { s := states(); return len(s) > 1 && last().Ready && last().Event })
	r.core.unplug()
	waitFor(t, "a disconnected State", func() bool { return !last().Connected })
	r.core.plug()
	waitFor(t, "connected again", func() bool { return last().Ready })
	if err := r.tree.StopProcess("dock", true); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the port closed on Stopping", func() bool { s := last(); return !s.Connected && !s.Ready && !s.Event })
}

// Options.Speaking (the busy marker an upgrade's restart and a reboot wait
// on) is on while an utterance plays and off once it is done.
func TestSpeakingIsToldWhileAnUtterancePlays(t *testing.T) {
	var mu sync.Mutex
	var told []bool
	speaking := func(on bool) { mu.Lock(); told = append(told, on); mu.Unlock() }
	got := func() []bool { mu.Lock(); defer mu.Unlock(); return append([]bool(nil), told...) }
	r := newRig(t, wire.FirmwareCaps, nil, Options{MutePrompts: true, Speaking: speaking})
	r.core.plug()
	waitFor(t, "EVENT ready", func() bool { return strings.Contains(r.description(), "EVENT ready") })
	if g := got(); len(g) != 0 {
		t.Fatalf("before any speech: told %v", g)
	}
	r.send(Turn{Role: "assistant", Content: []byte(`"A short reply."`)})
	waitFor(t, "speaking on", func() bool { g := got(); return len(g) >= 1 && g[0] })
	waitFor(t, "the utterance done", func() bool {
		var n int
		r.core.snapshot(func() { n = len(r.core.dones) })
		return n == 1
	})
	waitFor(t, "speaking off", func() bool { g := got(); return len(g) == 2 && !g[1] })
}
