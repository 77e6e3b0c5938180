package dock

import (
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/claude-pi/claude-pi/drivers/serial"
	"math"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
	"github.com/claude-pi/claude-pi/protocols/stackchan/event"
	"github.com/claude-pi/claude-pi/protocols/stackchan/session"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// fakeCore is a CoreS3 on a pty, running the firmware side of the protocol
// from protocols/stackchan: HELLO checks, session.Dock with simulated
// playback, EVENT reassembly and v1 decoding. It records what the host sent
// and every rule the host broke.
type fakeCore struct {
	t    testing.TB
	caps wire.Caps

	// Knobs, set before plug.
	garbage      bool          // garbage and a CRC-broken frame before each HELLO_ACK
	creditStep   int           // >0: hand out the guard's credit in steps of this many bytes
	errorAfter   int           // >0: ERROR AUDIO_OUTPUT on the speaker after this many PCM frames
	noPresent    bool          // never answer approval.request with approval.presented
	playbackTick time.Duration // simulated output step; 0 means 5 ms
	micFrames    int           // MICROPHONE_PCM frames per tick once capturing (a 440 Hz tone)
	lostMicStops int           // drop this many MIC_STOPs before answering one

	mu      sync.Mutex
	master  *os.File
	slave   *os.File
	path    string
	dock    session.Dock
	parser  wire.Parser
	reasm   event.Reassembler
	ids     event.IDs
	seq     uint32
	helloed bool

	hellos    int
	statuses  []wire.Status
	events    []appevent.Event
	eventAt   []time.Time
	starts    []uint16 // SPEAKER_START stream ids
	aborts    []uint16
	dones     []uint16
	captions  []string
	pcm       map[uint16]int // PCM frames per stream
	nextSeq   map[uint16]uint32
	granted   map[uint16]int64 // credit given to the host per stream
	sent      map[uint16]int64 // PCM bytes the host sent per stream
	owed      map[uint16]int   // guard credit not yet handed out (creditStep)
	owedRate  map[uint16]uint32
	errorsFw  []string // host rule violations seen by the firmware
	micStarts []uint16
	micStops  []uint16
	micSent   int // MICROPHONE_PCM frames sent
	tonePhase int
	pcmBytes  int64

	done chan struct{}
	wg   sync.WaitGroup
}

func newFakeCore(t testing.TB, caps wire.Caps) *fakeCore {
	return &fakeCore{t: t, caps: caps, pcm: map[uint16]int{}, nextSeq: map[uint16]uint32{},
		granted: map[uint16]int64{}, sent: map[uint16]int64{}, owed: map[uint16]int{}, owedRate: map[uint16]uint32{}}
}

// plug creates a fresh pty: the "USB device" the enumerator reports.
func (f *fakeCore) plug() {
	master, slave, err := pty.Open()
	if err != nil {
		f.t.Skipf("no pty: %v", err)
	}
	f.mu.Lock()
	f.master, f.slave, f.path = master, slave, slave.Name()
	f.dock.Reset()
	f.parser.Reset()
	f.reasm.Reset()
	f.ids, f.seq, f.helloed = event.IDs{}, 0, false
	f.done = make(chan struct{})
	f.mu.Unlock()
	f.wg.Add(2)
	go f.readLoop(master)
	go f.playLoop(f.done)
}

// unplug closes the pty master: the host's next read fails as on a USB detach.
func (f *fakeCore) unplug() {
	f.mu.Lock()
	m, s, done := f.master, f.slave, f.done
	f.master, f.slave, f.path = nil, nil, ""
	f.mu.Unlock()
	if m == nil {
		return
	}
	close(done)
	m.Close()
	s.Close()
	f.wg.Wait()
}

// enumerate is the fake sysfs: one CoreS3 while plugged.
func (f *fakeCore) enumerate() ([]*serial.PortDetails, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.path == "" {
		return nil, nil
	}
	return []*serial.PortDetails{{Name: f.path, IsUSB: true, VID: "303A", PID: "1001", SerialNumber: "3C84CE0012AB"}}, nil
}

func (f *fakeCore) readLoop(m *os.File) {
	defer f.wg.Done()
	buf := make([]byte, 8192)
	for {
		n, err := m.Read(buf)
		if n > 0 {
			f.mu.Lock()
			f.parser.Feed(buf[:n])
			for fr, ok := f.parser.Next(); ok; fr, ok = f.parser.Next() {
				f.handle(fr)
			}
			f.mu.Unlock()
		}
		if err != nil {
			return // EIO before the host opens is not expected: the slave stays open
		}
	}
}

func (f *fakeCore) playLoop(done chan struct{}) {
	defer f.wg.Done()
	step := f.playbackTick
	if step == 0 {
		step = 5 * time.Millisecond
	}
	t := time.NewTicker(step)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		f.mu.Lock()
		f.replies(f.dock.Advance(step))
		f.release()
		f.capture()
		f.mu.Unlock()
	}
}

// release hands out owed credit in creditStep increments, one per tick.
func (f *fakeCore) release() {
	for id, n := range f.owed {
		if n <= 0 {
			continue
		}
		inc := min(n, f.creditStep)
		f.owed[id] -= inc
		f.granted[id] += int64(inc)
		f.write(wire.SpeakerCreditFrame(id, f.next(), f.owedRate[id], uint32(inc)))
	}
}

func (f *fakeCore) next() uint32 { f.seq++; return f.seq - 1 }

func (f *fakeCore) violation(format string, args ...any) {
	f.errorsFw = append(f.errorsFw, fmt.Sprintf(format, args...))
}

func (f *fakeCore) handle(fr wire.Frame) {
	switch fr.Type {
	case wire.TypeControl:
		f.control(fr)
	case wire.TypeSpeakerPCM:
		f.speakerPCM(fr)
	case wire.TypeEvent:
		f.eventFrame(fr)
	default:
		f.violation("unexpected frame type %v", fr.Type)
	}
}

func (f *fakeCore) control(fr wire.Frame) {
	code, _ := fr.Control()
	switch code {
	case wire.CtrlHello:
		neg, err := wire.CheckHello(fr, f.caps)
		if err != nil {
			f.violation("bad HELLO: %v", err)
			f.write(wire.ErrorFrame(0, f.next(), wire.ErrInvalidRequest))
			return
		}
		if h := wire.HelloPayload(neg.Ack()); h.MaxPayload != wire.MaxPayload {
			f.violation("HELLO max payload %d", h.MaxPayload)
		}
		f.hellos++
		f.helloed = true
		f.dock.Reset()
		f.reasm.Reset()
		clear(f.owed)
		if f.garbage {
			bad, _ := wire.AppendFrame(nil, wire.ErrorFrame(0, 0, wire.ErrBusy))
			bad[len(bad)-1] ^= 0xFF // CRC error: must cost only this frame
			f.writeRaw(append([]byte("\xff\x00CS\x02garbage"), bad...))
		}
		f.write(wire.HelloAckFrame(f.next(), neg.Ack()))
		return
	case wire.CtrlStatus:
		s, err := wire.FirmwareCheckStatus(fr, f.caps)
		if err != nil {
			f.violation("STATUS: %v", err)
			return
		}
		if s == wire.StatusListening && !f.dock.Mic.Started() {
			f.violation("STATUS LISTENING before MIC_STARTED")
		}
		f.statuses = append(f.statuses, s)
		return
	}
	if !f.helloed {
		f.violation("%v before HELLO", code)
		return
	}
	switch code {
	case wire.CtrlSpeakerStart:
		f.starts = append(f.starts, fr.StreamID)
		f.nextSeq[fr.StreamID] = 0
	case wire.CtrlSpeakerAbort:
		f.aborts = append(f.aborts, fr.StreamID)
	case wire.CtrlMicStart:
		f.micStarts = append(f.micStarts, fr.StreamID)
	case wire.CtrlMicStop:
		f.micStops = append(f.micStops, fr.StreamID)
		if f.lostMicStops > 0 {
			f.lostMicStops--
			return // lost on the way: the host must resend
		}
	case wire.CtrlSpeakerText:
		f.captions = append(f.captions, string(fr.Payload))
		if f.pcm[fr.StreamID] == 0 && f.sent[fr.StreamID] > 0 {
			f.violation("caption after PCM without a sentence boundary")
		}
	}
	o, ok := f.dock.Control(code, fr.StreamID, fr.SampleRate, fr.Payload)
	if !ok {
		f.violation("unexpected control %v", code)
		return
	}
	if o.Result == session.Invalid || o.Result == session.Busy {
		f.violation("%v on stream %d: %v", code, fr.StreamID, o.Result)
	}
	f.replies(o)
}

func (f *fakeCore) speakerPCM(fr wire.Frame) {
	id := fr.StreamID
	if fr.Sequence != f.nextSeq[id] {
		f.violation("PCM sequence gap on stream %d: got %d, want %d", id, fr.Sequence, f.nextSeq[id])
	}
	f.nextSeq[id] = fr.Sequence + 1
	f.sent[id] += int64(len(fr.Payload))
	f.pcmBytes += int64(len(fr.Payload))
	if f.creditStep > 0 && f.sent[id] > f.granted[id] {
		f.violation("stream %d: %d PCM bytes sent, only %d granted", id, f.sent[id], f.granted[id])
	}
	if max := session.SpeakerFrameBytes(fr.SampleRate); len(fr.Payload) > max {
		f.violation("PCM frame of %d bytes above 80 ms (%d)", len(fr.Payload), max)
	}
	f.pcm[id]++
	o := f.dock.SpeakerPCM(id, fr.SampleRate, fr.Sequence, len(fr.Payload))
	if o.Result != session.Accepted {
		f.violation("PCM seq %d on stream %d: %v", fr.Sequence, id, o.Result)
	}
	f.replies(o)
	if f.errorAfter > 0 && f.pcm[id] == f.errorAfter {
		_, o := f.dock.Speaker.ForceStop(wire.ErrAudioOutput)
		f.replies(o)
	}
}

func (f *fakeCore) eventFrame(fr wire.Frame) {
	if !f.caps.Has(wire.CapEvent) {
		f.violation("EVENT frame sent to firmware without EVENT")
		f.write(wire.ErrorFrame(fr.StreamID, f.next(), wire.ErrInvalidRequest))
		return
	}
	msg, done, err := f.reasm.Add(fr)
	if err != nil {
		f.violation("EVENT: %v", err)
		return
	}
	if !done {
		return
	}
	ev, err := appevent.DecodeInbound(msg, appevent.HostToFirmware)
	if err != nil {
		f.violation("event %s: %v", msg, err)
		return
	}
	f.events = append(f.events, ev)
	f.eventAt = append(f.eventAt, time.Now())
	if r, ok := ev.(appevent.ApprovalRequest); ok && !f.noPresent {
		f.sendEvent(appevent.NewApprovalPresented(r.RequestID))
	}
}

// replies sends the guard's answers, holding credit back in creditStep mode.
func (f *fakeCore) replies(o session.Outcome) {
	for _, r := range o.Replies {
		switch r.Code {
		case wire.CtrlSpeakerCredit:
			if f.creditStep > 0 {
				f.owed[r.StreamID] += int(r.Value)
				f.owedRate[r.StreamID] = r.SampleRate
				continue
			}
			f.granted[r.StreamID] += int64(r.Value)
			f.write(wire.SpeakerCreditFrame(r.StreamID, f.next(), r.SampleRate, r.Value))
		case wire.CtrlSpeakerDone:
			f.dones = append(f.dones, r.StreamID)
			f.write(wire.SpeakerDoneFrame(r.StreamID, f.next(), r.SampleRate))
		case wire.CtrlError:
			f.write(wire.ErrorFrame(r.StreamID, f.next(), wire.ErrorCode(r.Value)))
		default:
			f.write(wire.ControlFrame(r.Code, r.StreamID, f.next(), r.SampleRate, nil))
		}
	}
}

// sendEvent sends an application event from the firmware. Needs f.mu.
func (f *fakeCore) sendEvent(e appevent.Event) {
	b, err := appevent.Marshal(e)
	if err != nil {
		f.t.Errorf("fake CoreS3: %v", err)
		return
	}
	frames, err := event.Chunk(f.ids.Next(), b, wire.MaxPayload)
	if err != nil {
		f.t.Errorf("fake CoreS3: %v", err)
		return
	}
	for _, fr := range frames {
		f.write(fr)
	}
}

// send is sendEvent for the test goroutine.
func (f *fakeCore) send(e appevent.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sendEvent(e)
}

func (f *fakeCore) write(fr wire.Frame) {
	b, err := wire.AppendFrame(nil, fr)
	if err != nil {
		f.t.Errorf("fake CoreS3: %v", err)
		return
	}
	f.writeRaw(b)
}

func (f *fakeCore) writeRaw(b []byte) {
	if f.master == nil {
		return
	}
	if _, err := f.master.Write(b); err != nil && !errors.Is(err, os.ErrClosed) {
		f.t.Logf("fake CoreS3 write: %v", err)
	}
}

// snapshot runs fn under the lock, for assertions.
func (f *fakeCore) snapshot(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn()
}

// eventsOf returns the received events of type T.
func eventsOf[T appevent.Event](f *fakeCore) []T {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []T
	for _, e := range f.events {
		if v, ok := e.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

// capture is the simulated microphone: MIC_STARTED one tick after an
// accepted MIC_START (capture "opens"), then micFrames tone frames per tick.
func (f *fakeCore) capture() {
	if f.dock.Mic.Active() == 0 {
		return
	}
	if !f.dock.Mic.Started() {
		f.replies(f.dock.Mic.CaptureStarted())
		return
	}
	for range f.micFrames {
		s, seq, ok := f.dock.Mic.NextFrame()
		if !ok {
			return
		}
		pcm := make([]byte, session.MicFrameBytes)
		for i := 0; i < len(pcm); i += 2 {
			v := int16(8000 * math.Sin(2*math.Pi*440*float64(f.tonePhase)/session.MicRate))
			binary.LittleEndian.PutUint16(pcm[i:], uint16(v))
			f.tonePhase++
		}
		f.write(wire.Frame{Type: wire.TypeMicPCM, StreamID: s.StreamID, Sequence: seq, SampleRate: s.SampleRate, Payload: pcm})
		f.micSent++
	}
}
