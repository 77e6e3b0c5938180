package dock

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/actors/approvals"
	buddyactor "github.com/claude-pi/claude-pi/actors/buddy"
	"github.com/claude-pi/claude-pi/actors/dock/voice"
	"github.com/claude-pi/claude-pi/actors/lan"
	"github.com/claude-pi/claude-pi/drivers/serial"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
	"github.com/claude-pi/claude-pi/supervisor"
)

// Messages from the actor's own goroutines. gen ties port messages to one
// opening, so a late message from a closed port is ignored.
type (
	tick    struct{ at time.Time }
	hotplug struct{ ev serial.Event }
	opened  struct {
		gen  int
		port *serial.Port
	}
	openFailed struct {
		gen int
		err error
	}
	rx struct {
		gen  int
		data []byte
	}
	rxEnd struct {
		gen int
		err error
	}
	reopen   struct{ gen int }
	synthCtx struct {
		ctx    context.Context
		cancel context.CancelFunc
	}
	synthResult struct {
		utt   uint64
		index int
		pcm   []byte
		err   error
	}
)

// Actor is the dock service. It is exported only so its type shows in logs;
// use New.
type Actor struct {
	h    *supervisor.Handle
	opts Options
	host *host
	subs *supervisor.Subscribers
	// published is the State last sent to subscribers.
	published State
	// speaking is what Options.Speaking was last told.
	speaking bool

	system *actor.ActorSystem
	self   *actor.PID
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	trust   *trust
	gen     int
	fails   int // opening failures in a row, for the back-off
	port    *serial.Port
	opening bool
	// plugged is every ESP32-S3 the watcher lists, by path: they all
	// report 303a:1001, so the accepted CoreS3 may have strangers beside it.
	plugged map[string]serial.Plugged
	// device is the accepted CoreS3 the dock talks to (or the --dock-port
	// path); nil while none is plugged. A stranger never becomes it.
	device *serial.Plugged
	parser wire.Parser

	timerStop func() bool
	timerAt   time.Time
	synths    map[uint64]synthCtx
	stts      map[uint64]context.CancelFunc
	stopped   bool
	// Stack-chan's tools (tools.go): long polls held for a catalog change,
	// and who asked for each call in flight.
	held  []heldPoll
	calls map[string]*actor.PID
}

// Receive handles the lifecycle, the approvals and buddy messages, and the
// messages of the actor's own goroutines.
func (a *Actor) Receive(c actor.Context) {
	if a.host != nil && a.subs.Receive(c, func() any { return a.state() }) {
		return
	}
	now := a.opts.Now()
	switch m := c.Message().(type) {
	case *actor.Started:
		a.start(c)
	case *actor.Stopping:
		a.stopped = true
		a.markSpeaking(false)
		a.cancel()
		a.cancelTimer()
		a.closePort()
	case *actor.Stopped:
		a.wg.Wait()
	case GetState:
		c.Respond(a.state())
	case supervisor.Reload:
		a.reload()

	case approvals.Pending:
		a.host.mirror.pending(m.Prompts, now)
	case approvals.PromptAppeared:
		a.host.mirror.appeared(m.Prompt, now, true)
	case approvals.PromptResolved:
		a.host.mirror.resolve(m.Prompt, resolvedMessage(m.How, m.By))
	case approvals.PromptRearmed:
		a.host.mirror.rearmed(m.Prompt)
	case approvals.LinkChanged:
		a.host.mirror.link(m.Source, m.Up, now)
	case approvals.PromptDecided, approvals.DecideResult:
	case buddyactor.State:
		a.buddyState(m, now)
	case buddyactor.Turn:
		a.turn(Turn(m.Event), now)
	case Turn:
		a.turn(m, now)
	case lan.State:
		a.host.lanState(m, now)
	case lan.GetCatalog:
		a.getCatalog(c, m)
	case lan.CallTool:
		a.callTool(c, m, now)
	case holdExpired:
		a.answerHeld(c, m.at)
	case lan.Reply:
		// A terminal session's reply is said like the desktop's turns; a
		// follow-up answers it only if it is said (voice/followup.go).
		before := a.host.NextUtt()
		if text, err := json.Marshal(m.Text); err == nil {
			a.turn(Turn{Role: "assistant", Content: text}, now)
		}
		a.host.FollowUpReply(m, a.host.QueuedSince(before), now)

	case AcceptDock:
		a.accept(m, now)
	case RefuseDock:
		if d, _, _ := a.asker(); d != nil && d.Serial == m.Serial {
			a.trust.refused[m.Serial] = true
			a.h.Logger().Info("CoreS3 refused on the Pi's screen; replug it to be asked again", "serial", shownSerial(m.Serial))
		}

	case tick:
		if m.at.Equal(a.timerAt) {
			a.timerStop, a.timerAt = nil, time.Time{}
		}
		if a.port != nil {
			a.receive(nil, now) // a cut-off frame may be due to be given up on
		}
		a.host.tick(now)
	case hotplug:
		a.hotplug(m.ev, now)
	case opened:
		a.opened(m, now)
	case openFailed:
		if m.gen == a.gen {
			a.opening = false
			a.openFailed(m.err)
		}
	case reopen:
		if m.gen == a.gen && a.port == nil && !a.opening {
			a.open()
		}
	case rx:
		if m.gen == a.gen {
			a.receive(m.data, now)
		}
	case rxEnd:
		if m.gen == a.gen {
			a.lost(m.err, now)
		}
	case synthResult:
		a.host.SynthDone(m.utt, m.index, m.pcm, m.err, now)
	case sttResult:
		if cancel, ok := a.stts[m.job]; ok {
			cancel()
			delete(a.stts, m.job)
		}
		a.host.Recognized(m.job, m.text, m.err, now)
	default:
		return
	}
	a.flush(c)
}

func (a *Actor) start(c actor.Context) {
	a.system, a.self = c.ActorSystem(), c.Self()
	a.ctx, a.cancel = context.WithCancel(context.Background())
	a.synths = make(map[uint64]synthCtx)
	a.stts = make(map[uint64]context.CancelFunc)
	a.calls = make(map[string]*actor.PID)
	a.plugged = make(map[string]serial.Plugged)
	token := make([]byte, 4)
	_, _ = rand.Read(token)
	trust, err := loadTrust(a.opts.DataDir, a.opts, a.opts.Now())
	if err != nil {
		a.h.Logger().Warn("accepted docks forgotten", "err", err)
	}
	a.trust = trust
	a.host = newHost(hostConfig{
		Config: voice.Config{
			SpeakConversation: !a.opts.MuteConversation, HasTTS: a.opts.Synth != nil,
			Token: hex.EncodeToString(token), Log: a.h.Logger(),
			// A display-only dock decides nothing, by tap or by voice.
			Voice: len(a.opts.STT) > 0 && a.opts.Synth != nil && !a.opts.DisplayOnly, ListenFor: a.opts.ListenFor,
		},
		speakPrompts: !a.opts.MutePrompts, speakAssistant: !a.opts.MuteAssistant,
		assistantMax: a.opts.AssistantMax, displayOnly: a.opts.DisplayOnly, volume: a.opts.Volume,
	})
	self := supervisor.ServicePID(a.system, a.h.Name())
	c.Send(supervisor.ServicePID(a.system, a.opts.Approvals), supervisor.Subscribe{PID: self})
	c.Send(supervisor.ServicePID(a.system, a.opts.Buddy), supervisor.Subscribe{PID: self})
	c.Send(supervisor.ServicePID(a.system, a.opts.LAN), supervisor.Subscribe{PID: self})
	if a.opts.Port != "" {
		a.device = &serial.Plugged{Path: a.opts.Port}
		a.open()
		return
	}
	w := &serial.Watcher{Enumerate: a.opts.Serial.Enumerate, Interval: a.opts.WatchInterval,
		Serial: a.opts.Serial.Serial, Logger: a.h.Logger()}
	events := w.Watch(a.ctx)
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		for ev := range events {
			a.system.Root.Send(a.self, hotplug{ev: ev})
		}
	}()
}

// hotplug keeps every plugged board apart: only the loss of the device in
// use closes the port, and a stranger only ever asks on the Pi's screen.
func (a *Actor) hotplug(ev serial.Event, now time.Time) {
	log := a.h.Logger()
	switch e := ev.(type) {
	case serial.Plugged:
		a.plugged[e.Path] = e
		switch v, _ := a.trust.check(e); {
		case v != known:
			log.Info("board plugged that is not an accepted CoreS3: it gets nothing unless accepted on the Pi's screen",
				"path", e.Path, "serial", shownSerial(e.Serial), "usb", shownLooks(looksOf(e)))
		case a.device == nil:
			log.Info("CoreS3 plugged", "path", e.Path, "serial", e.Serial)
		default:
			log.Info("another accepted CoreS3 plugged; it takes over when the one in use is unplugged", "path", e.Path, "inUse", a.device.Path)
		}
		a.adopt(now)
	case serial.Unplugged:
		gone, ok := a.plugged[e.Path]
		if !ok {
			return
		}
		delete(a.plugged, e.Path)
		if !a.pluggedSerial(gone.Serial) {
			a.trust.unplugged(gone)
		}
		if a.device == nil || a.device.Path != e.Path {
			log.Info("board unplugged; the CoreS3 in use is not affected", "path", e.Path)
			return
		}
		log.Info("CoreS3 unplugged", "path", e.Path)
		a.device = nil
		a.lost(nil, now)
		a.adopt(now)
	}
}

// pluggedSerial reports whether a board with serial sn is still plugged.
func (a *Actor) pluggedSerial(sn string) bool {
	for _, d := range a.plugged {
		if d.Serial == sn {
			return true
		}
	}
	return false
}

// pluggedPaths is the plugged boards' paths in order: the lowest path is
// taken first, so the choice is stable across events.
func (a *Actor) pluggedPaths() []string {
	return slices.Sorted(maps.Keys(a.plugged))
}

// adopt starts talking to an accepted plugged board when the dock has none.
func (a *Actor) adopt(now time.Time) {
	if a.device != nil || a.opts.Port != "" || a.stopped {
		return
	}
	for _, path := range a.pluggedPaths() {
		d := a.plugged[path]
		if !a.trust.trusted(d) {
			continue
		}
		if err := a.trust.recordLooks(d, now); err != nil {
			a.h.Logger().Warn("accepted dock's USB names not recorded", "err", err)
		}
		a.device, a.fails = &d, 0
		a.gen++
		a.open()
		return
	}
}

// asker is the board the Pi's screen asks about: the first plugged one
// (by path) that is new or looks different and was not refused, with the
// trustVerdict and, for a different one, how it looked when accepted.
func (a *Actor) asker() (*serial.Plugged, trustVerdict, looks) {
	if a.opts.Port != "" {
		return nil, known, looks{}
	}
	for _, path := range a.pluggedPaths() {
		d := a.plugged[path]
		v, was := a.trust.check(d)
		if (v == unknown || v == different) && !a.trust.refused[d.Serial] {
			return &d, v, was
		}
	}
	return nil, known, looks{}
}

// open opens the current device in a goroutine (the settle pause is 0.5 s),
// once it is accepted.
func (a *Actor) open() {
	if a.device == nil || a.stopped || !a.trust.trusted(*a.device) {
		return
	}
	a.opening = true
	gen, path, opts := a.gen, a.device.Path, a.opts.Serial
	if opts.Logger == nil {
		opts.Logger = a.h.Logger()
	}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		p, err := serial.OpenPath(a.ctx, path, &opts)
		if err != nil {
			a.system.Root.Send(a.self, openFailed{gen: gen, err: err})
			return
		}
		a.system.Root.Send(a.self, opened{gen: gen, port: p})
	}()
}

func (a *Actor) opened(m opened, now time.Time) {
	if m.gen != a.gen || a.stopped {
		m.port.Close()
		return
	}
	a.opening, a.port, a.fails = false, m.port, 0
	a.parser.Reset()
	a.h.Logger().Info("CoreS3 port open; handshaking", "port", m.port.String())
	gen, p := a.gen, m.port
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		buf := make([]byte, 8192)
		for {
			n, err := p.Read(buf)
			if n > 0 {
				a.system.Root.Send(a.self, rx{gen: gen, data: append([]byte(nil), buf[:n]...)})
			}
			if err != nil {
				a.system.Root.Send(a.self, rxEnd{gen: gen, err: err})
				return
			}
		}
	}()
	a.host.attach(now)
}

// receive parses what the CoreS3 sent; data may be nil when only time
// passed. The parser gives up on a cut-off frame wire.StaleAfter after its
// first byte (wire's README, "Cut-off frames").
func (a *Actor) receive(data []byte, now time.Time) {
	a.parser.FeedAt(now, data)
	for f, ok := a.parser.Next(); ok; f, ok = a.parser.Next() {
		a.host.frame(f, now)
	}
}

// lost handles an unplug, a dead port or a write failure.
func (a *Actor) lost(err error, now time.Time) {
	if err != nil && !errors.Is(err, serial.ErrClosed) {
		a.h.Logger().Warn("CoreS3 link lost", "err", err)
	}
	a.closePort()
	a.host.detach(now)
	if a.device != nil {
		// Still listed (or a --dock-port path): a reset or a transient
		// error, so reopen rather than wait for a Plugged that never comes.
		a.retryLater()
	}
}

func (a *Actor) closePort() {
	if a.port != nil {
		a.port.Close()
		a.port = nil
	}
	a.gen++
	a.opening = false
}

// retryLater reopens the device after the back-off, if it is still there.
func (a *Actor) retryLater() { a.retryAfter(a.opts.Retry) }

func (a *Actor) retryAfter(d time.Duration) {
	if a.stopped {
		return
	}
	gen := a.gen
	system, self := a.system, a.self
	a.opts.AfterFunc(d, func() { system.Root.Send(self, reopen{gen: gen}) })
}

// firstRetry is the first back-off after a failed open. Right after a
// replug the node exists before udev has applied its group (permission
// denied for a few tens of ms), so the retries start short and double up
// to Retry: the dock is ready as soon as the rule lands, and only a
// failure that outlasts the ramp is worth a warning.
const firstRetry = 50 * time.Millisecond

// retryDelay is the back-off after the fails-th failed open in a row
// (0-based): 50 ms, 100, 200, ... up to retry.
func retryDelay(fails int, retry time.Duration) time.Duration {
	return min(firstRetry<<min(fails, 16), retry)
}

func (a *Actor) openFailed(err error) {
	d := retryDelay(a.fails, a.opts.Retry)
	a.fails++
	if d < a.opts.Retry && errors.Is(err, fs.ErrPermission) {
		a.h.Logger().Debug("CoreS3 port not openable yet (udev applying its rule?); retrying soon", "err", err, "after", d)
	} else {
		a.h.Logger().Warn("opening the CoreS3 port failed", "err", err, "after", d)
	}
	a.retryAfter(d)
}

// asking reports whether a plugged board waits for the Pi's screen.
func (a *Actor) asking() bool {
	d, _, _ := a.asker()
	return d != nil
}

// accept takes the Pi screen's yes for the board asking there and
// remembers it. It is used at once unless the dock already talks to an
// accepted CoreS3, which keeps running.
func (a *Actor) accept(m AcceptDock, now time.Time) {
	d, _, _ := a.asker()
	if d == nil || d.Serial != m.Serial {
		a.h.Logger().Info("dock acceptance for a dock no longer asking ignored", "serial", shownSerial(m.Serial))
		return
	}
	if err := a.trust.accept(*d, now); err != nil {
		a.h.Logger().Warn("accepted dock not remembered", "err", err)
	}
	a.h.Logger().Info("CoreS3 accepted on the Pi's screen", "serial", shownSerial(m.Serial), "path", d.Path)
	if a.device != nil && a.device.Path != d.Path {
		a.h.Logger().Info("the CoreS3 in use keeps running; the accepted one takes over when it is unplugged", "inUse", a.device.Path)
	}
	a.adopt(now)
}

// reload re-reads what can change without a restart: dock.volume.
func (a *Actor) reload() {
	if a.opts.ReadVolume == nil {
		a.h.Logger().Info("reload: options come from the constructor; restart to change them")
		return
	}
	v, err := a.opts.ReadVolume()
	if err == nil {
		err = CheckVolume(v)
	}
	if err != nil {
		a.h.Logger().Warn("reload: volume not changed", "err", err)
		return
	}
	a.h.Logger().Info("reload: dock volume", "volume", volumeText(v))
	a.host.setVolume(v)
}

func (a *Actor) buddyState(s buddyactor.State, now time.Time) {
	d := voice.Desk{Known: true, Connected: s.Connected}
	if s.Snapshot != nil {
		d.Total, d.Running, d.Waiting, d.Msg = int(s.Snapshot.Total), int(s.Snapshot.Running), int(s.Snapshot.Waiting), s.Snapshot.Msg
	}
	a.host.SetDesk(d)
	a.host.updateTask(now)
}

func (a *Actor) turn(t Turn, now time.Time) {
	if t.Role != "assistant" || !a.host.cfg.speakAssistant {
		return
	}
	if text := voice.AssistantText(t.Content, a.opts.AssistantMax); text != "" {
		a.host.SayAssistant(text, now)
	}
}

// flush writes what the host produced, performs its effects, re-plans the
// timer and refreshes the description.
func (a *Actor) flush(c actor.Context) {
	for {
		a.host.pumpTools(a.opts.Now())
		tx, effects := a.host.takeTx(), a.host.takeEffects()
		if len(tx) == 0 && len(effects) == 0 {
			break
		}
		if len(tx) > 0 && a.port != nil {
			if _, err := a.port.Write(tx); err != nil {
				a.lost(err, a.opts.Now())
				continue
			}
		}
		for _, e := range effects {
			a.effect(c, e)
		}
	}
	a.answerHeld(c, time.Time{})
	a.plan()
	a.h.SetDescription(a.describe())
	a.markSpeaking(a.host.Speaking())
	if st := a.state(); st != a.published {
		a.published = st
		a.subs.Publish(c, st)
	}
}

// markSpeaking tells Options.Speaking when an utterance starts or ends.
func (a *Actor) markSpeaking(on bool) {
	if a.opts.Speaking != nil && on != a.speaking {
		a.speaking = on
		a.opts.Speaking(on)
	}
}

func (a *Actor) effect(c actor.Context, e any) {
	switch e := e.(type) {
	case decideOut:
		if a.opts.DisplayOnly {
			// The host never makes one for a display-only dock; this is
			// the one place every decision from the CoreS3 passes.
			a.h.Logger().Error("BUG: a display-only dock's decision dropped", "source", e.Source, "id", e.ID)
			return
		}
		d := approvals.DecisionOf(e.Approve) // the edge: the wire's bool
		by := e.By
		if by == "" {
			by = "CoreS3"
		}
		c.Send(supervisor.ServicePID(a.system, a.opts.Approvals),
			approvals.Decide{Source: e.Source, ID: e.ID, Decision: d, By: by, Answer: e.Answer})
	case toolResultOut:
		a.toolResult(c, e.Result)
	case voice.STTOut:
		a.recognize(e)
	case voice.CancelSTTOut:
		if cancel, ok := a.stts[e.Job]; ok {
			cancel()
			delete(a.stts, e.Job)
		}
	case synthOut:
		a.synthesize(e)
	case cancelSynthOut:
		if sc, ok := a.synths[e.Utt]; ok {
			sc.cancel()
			delete(a.synths, e.Utt)
		}
	case voice.FollowUpOut:
		c.Send(supervisor.ServicePID(a.system, a.opts.LAN), lan.FollowUp(e))
	case closeOut:
		a.h.Logger().Error("CoreS3 handshake failed; retrying", "err", e.Err, "after", a.opts.Retry)
		a.closePort()
		a.host.detach(a.opts.Now())
		a.retryLater()
	}
}

// synthesize runs one sentence through the Synth in a goroutine.
func (a *Actor) synthesize(s synthOut) {
	if a.opts.Synth == nil || a.stopped {
		return
	}
	// One context per utterance, for all its sentences: barge-in cancels
	// the sentence being synthesized.
	sc, ok := a.synths[s.Utt]
	if !ok {
		sc.ctx, sc.cancel = context.WithCancel(a.ctx)
		a.synths[s.Utt] = sc
	}
	ctx := sc.ctx
	synth, system, self := a.opts.Synth, a.system, a.self
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		pcm, err := synth.Synthesize(ctx, s.Text, s.Rate)
		if err == nil && pcm.Rate != s.Rate && len(pcm.Data) > 0 {
			err = fmt.Errorf("tts returned %d Hz, asked for %d", pcm.Rate, s.Rate)
		}
		system.Root.Send(self, synthResult{utt: s.Utt, index: s.Index, pcm: pcm.Data, err: err})
	}()
}

// plan keeps one timer armed for the host's next deadline.
func (a *Actor) plan() {
	at, ok := a.host.wake()
	if d, waiting := a.parser.Deadline(); waiting && a.port != nil && (!ok || d.Before(at)) {
		at, ok = d, true
	}
	if a.stopped || !ok {
		a.cancelTimer()
		return
	}
	if at.Equal(a.timerAt) {
		return
	}
	a.cancelTimer()
	a.timerAt = at
	system, self := a.system, a.self
	a.timerStop = a.opts.AfterFunc(max(0, at.Sub(a.opts.Now())), func() { system.Root.Send(self, tick{at: at}) })
}

func (a *Actor) cancelTimer() {
	if a.timerStop != nil {
		a.timerStop()
	}
	a.timerStop, a.timerAt = nil, time.Time{}
}

// describe is the supervisorctl line, e.g. "CoreS3 303a:1001 SN 3C84…,
// EVENT ready, speaking".
func (a *Actor) describe() string {
	if a.device != nil {
		if a.port == nil {
			return boardName(*a.device) + ", opening"
		}
		return boardName(*a.device) + ", " + a.host.activity()
	}
	if d, v, _ := a.asker(); d != nil {
		if v == different {
			return boardName(*d) + ", an accepted serial number under other USB names: waiting to be accepted again on the Pi's screen"
		}
		return boardName(*d) + ", waiting to be accepted on the Pi's screen"
	}
	for _, path := range a.pluggedPaths() {
		d := a.plugged[path]
		if v, _ := a.trust.check(d); v == unshowable {
			return boardName(d) + ", serial number too long to show on the Pi's screen (name it in dock.serial to use it)"
		}
		return boardName(d) + ", refused on the Pi's screen (replug it to be asked again)"
	}
	return "waiting for a CoreS3"
}

// boardName is a plugged board for the description.
func boardName(d serial.Plugged) string {
	if d.VID == "" {
		return "CoreS3 on " + d.Path
	}
	name := "CoreS3 " + strings.ToLower(d.VID+":"+d.PID)
	if sn := shownSerial(d.Serial); d.Serial != "" {
		if r := []rune(sn); len(r) > 4 {
			sn = string(r[:4]) + "…"
		}
		name += " SN " + sn
	}
	return name
}

func (a *Actor) state() State {
	// A closed port is never ready, even before the host notices (Stopping).
	up := a.port != nil
	s := State{Connected: up, Ready: up && a.host.phase == ready, Event: up && a.host.eventReady(),
		Description: a.describe(), Pending: a.host.mirror.count(), MaxCreditWait: a.host.MaxCreditWait(),
		DisplayOnly: a.opts.DisplayOnly}
	if a.device != nil {
		s.Path, s.Serial = a.device.Path, a.device.Serial
	}
	if d, v, was := a.asker(); d != nil {
		s.NewDock = NewDock{Asking: true, Serial: d.Serial, Shown: shownSerial(d.Serial), Looks: shownLooks(looksOf(*d))}
		if v == different {
			s.NewDock.Was = shownLooks(was)
		}
	}
	return s
}

func volumeText(v *int) string {
	if v == nil {
		return "unset (the CoreS3 keeps its own)"
	}
	return fmt.Sprint(*v)
}
