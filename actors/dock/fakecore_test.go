package dock

import (
	"sync"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/dock/docktest"
	"github.com/claude-pi/claude-pi/drivers/serial"
	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
	"github.com/claude-pi/claude-pi/protocols/stackchan/session"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// fakeCore is docktest's CoreS3 behind a fake enumerator (plug, unplug),
// with the knobs and records the dock's tests need on top: line noise
// before HELLO_ACK, a speaker that fails, lost MIC_STOPs, and what the host
// started, stopped and captioned. Its records are read under snapshot.
type fakeCore struct {
	*docktest.Core // set by build
	t              testing.TB
	caps           wire.Caps

	// Knobs, set before build.
	garbage      bool                                   // garbage and a CRC-broken frame before each HELLO_ACK
	creditStep   int                                    // >0: hand out the guard's credit in steps of this many bytes
	noPresent    bool                                   // never answer approval.request with approval.presented
	playbackTick time.Duration                          // simulated output step; 0 means 5 ms
	micFrames    int                                    // MICROPHONE_PCM frames per tick once capturing (a 440 Hz tone)
	raw          func(fw docktest.Firmware, msg []byte) // plays the firmware's tool session (tools_test.go)
	// Knobs read under snapshot at any time.
	errorAfter   int // >0: ERROR AUDIO_OUTPUT on the speaker after this many PCM frames
	lostMicStops int // drop this many MIC_STOPs before answering one

	statuses  []wire.Status
	eventAt   []time.Time
	starts    []uint16 // SPEAKER_START stream ids
	aborts    []uint16
	dones     []uint16
	captions  []string
	pcm       map[uint16]int   // PCM frames per stream
	sent      map[uint16]int64 // PCM bytes per stream
	micStarts []uint16
	micStops  []uint16
	// micStopsAnswered is len(micStops) when one was let through to be
	// answered with MIC_STOPPED; later ones crossed that answer in flight.
	micStopsAnswered int
	pcmBytes         int64

	// others are boards the fake sysfs lists beside the CoreS3 (other
	// ESP32-S3s, all 303a:1001); set with setOthers.
	othersMu sync.Mutex
	others   []*serial.PortDetails
}

// setOthers replaces the boards listed beside the CoreS3.
func (f *fakeCore) setOthers(ps ...*serial.PortDetails) {
	f.othersMu.Lock()
	defer f.othersMu.Unlock()
	f.others = ps
}

// stranger is an ESP32-S3 that is not the fake CoreS3: same USB ids, its
// own path and serial number, the CoreS3's USB strings.
func stranger(path, sn string) *serial.PortDetails {
	return &serial.PortDetails{Name: path, IsUSB: true, VID: "303A", PID: "1001", SerialNumber: sn,
		Product: fakeProduct, Manufacturer: fakeManufacturer}
}

func newFakeCore(t testing.TB, caps wire.Caps) *fakeCore {
	return &fakeCore{t: t, caps: caps, pcm: map[uint16]int{}, sent: map[uint16]int64{}}
}

// build makes the CoreS3, unplugged, from the knobs.
func (f *fakeCore) build() {
	f.Core = docktest.NewWith(f.t, docktest.Options{
		Caps: f.caps, Unplugged: true, Tick: f.playbackTick, NoPresent: f.noPresent,
		CreditStep: f.creditStep, MicFrames: f.micFrames,
		Hooks: docktest.Hooks{Hello: f.hello, Control: f.control, Status: f.status,
			PCM: f.speakerPCM, Reply: f.reply, Event: f.event, Raw: f.raw},
	})
}

// plug attaches the CoreS3 on a fresh pty: the "USB device" the enumerator reports.
func (f *fakeCore) plug() { f.Plug() }

// unplug detaches it: the host's next read fails as on a USB detach.
func (f *fakeCore) unplug() { f.Unplug() }

// enumerate is the fake sysfs: one CoreS3 while plugged, and the others.
func (f *fakeCore) enumerate() ([]*serial.PortDetails, error) {
	f.othersMu.Lock()
	out := append([]*serial.PortDetails(nil), f.others...)
	f.othersMu.Unlock()
	if path := f.Path(); path != "" {
		out = append(out, &serial.PortDetails{Name: path, IsUSB: true, VID: "303A", PID: "1001", SerialNumber: fakeSerial,
			Product: fakeProduct, Manufacturer: fakeManufacturer})
	}
	return out, nil
}

// The fake CoreS3's USB serial number and strings (an ESP32-S3's own).
const (
	fakeSerial       = "3C84CE0012AB"
	fakeProduct      = "USB JTAG/serial debug unit"
	fakeManufacturer = "Espressif"
)

// snapshot runs fn under the lock the hooks run under, for assertions.
func (f *fakeCore) snapshot(fn func()) { f.Locked(fn) }

// eventsOf returns the received events of type T.
func eventsOf[T appevent.Event](f *fakeCore) []T { return docktest.Of[T](f.Core) }

func (f *fakeCore) hello(fw docktest.Firmware) {
	if f.garbage {
		bad, _ := wire.AppendFrame(nil, wire.ErrorFrame(0, 0, wire.ErrBusy))
		bad[len(bad)-1] ^= 0xFF // CRC error: must cost only this frame
		fw.WriteRaw(append([]byte("\xff\x00CS\x02garbage"), bad...))
	}
}

func (f *fakeCore) status(_ docktest.Firmware, s wire.Status) { f.statuses = append(f.statuses, s) }

func (f *fakeCore) control(fw docktest.Firmware, code wire.Control, fr wire.Frame) (drop bool) {
	switch code {
	case wire.CtrlSpeakerStart:
		f.starts = append(f.starts, fr.StreamID)
	case wire.CtrlSpeakerAbort:
		f.aborts = append(f.aborts, fr.StreamID)
	case wire.CtrlMicStart:
		f.micStarts = append(f.micStarts, fr.StreamID)
	case wire.CtrlMicStop:
		f.micStops = append(f.micStops, fr.StreamID)
		if f.lostMicStops > 0 {
			f.lostMicStops--
			return true // lost on the way: the host must resend
		}
		if f.micStopsAnswered == 0 {
			f.micStopsAnswered = len(f.micStops)
		}
	case wire.CtrlSpeakerText:
		f.captions = append(f.captions, string(fr.Payload))
		if f.pcm[fr.StreamID] == 0 && f.sent[fr.StreamID] > 0 {
			fw.Violation("caption after PCM without a sentence boundary")
		}
	}
	return false
}

func (f *fakeCore) speakerPCM(fw docktest.Firmware, fr wire.Frame) {
	id := fr.StreamID
	f.sent[id] += int64(len(fr.Payload))
	f.pcmBytes += int64(len(fr.Payload))
	f.pcm[id]++
	if f.errorAfter > 0 && f.pcm[id] == f.errorAfter {
		_, o := fw.Dock().Speaker.ForceStop(wire.ErrAudioOutput)
		fw.Reply(o)
	}
}

func (f *fakeCore) reply(_ docktest.Firmware, r session.Reply) {
	if r.Code == wire.CtrlSpeakerDone {
		f.dones = append(f.dones, r.StreamID)
	}
}

func (f *fakeCore) event(docktest.Firmware, appevent.Event) {
	f.eventAt = append(f.eventAt, time.Now())
}
