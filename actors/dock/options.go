package dock

import (
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/actors/approvals"
	buddyactor "github.com/claude-pi/claude-pi/actors/buddy"
	"github.com/claude-pi/claude-pi/actors/lan"
	"github.com/claude-pi/claude-pi/drivers/serial"
	"github.com/claude-pi/claude-pi/drivers/tts"
	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
	"github.com/claude-pi/claude-pi/supervisor"
)

// Options configures the dock service. The zero value discovers any CoreS3,
// speaks nothing (no Synth) and mirrors approvals.
type Options struct {
	// Port is a device path that bypasses discovery (--dock-port); tests
	// pass a pty slave here. Empty means: watch for USB 303a:1001.
	Port string
	// Serial configures discovery and opening: pinned serial number
	// (config dock.serial), DTR/RTS, settle time, a fake enumerator.
	Serial serial.Opts
	// WatchInterval is the hotplug scan period; zero means one second.
	WatchInterval time.Duration
	// Retry is the back-off before reopening after a failed open or
	// handshake; zero means 2 s.
	Retry time.Duration

	// Synth speaks; nil means no text-to-speech, and conversation.start is
	// answered "blocked".
	Synth tts.Synth
	// MutePrompts, MuteAssistant and MuteConversation turn off one kind of
	// speech each: the prompt announcement ("Claude wants to run Bash: npm
	// test"), assistant text from turn events, the conversation answer.
	MutePrompts, MuteAssistant, MuteConversation bool
	// Speaking, when set, is told when the CoreS3 starts and stops
	// speaking (an utterance playing), and false when the service stops:
	// the appliance keeps the updates' busy marker with it, so an upgrade
	// or a reboot never cuts a sentence off.
	Speaking func(on bool)
	// AssistantMax is how many characters of assistant text are spoken at
	// most; zero means 200.
	AssistantMax int

	// STT is the speech-to-text command line (config voice.stt_command,
	// split by SplitCommand; never run through a shell). It gets the path
	// of a 16 kHz mono 16-bit WAV as its last argument and prints the
	// recognized text. Empty means no voice approval: a conversation ends
	// after its spoken summary.
	STT []string
	// ListenFor is how long an answer is listened for; zero means 5 s.
	ListenFor time.Duration
	// STTTimeout bounds one STT run; zero means 15 s.
	STTTimeout time.Duration

	// Approvals, Buddy and LAN are the service names to subscribe to;
	// empty means approvals.ServiceName, buddy.ServiceName and
	// lan.ServiceName (whose terminal sessions light task.status).
	Approvals, Buddy, LAN string

	// DataDir holds TrustFile, the docks accepted on the Pi's screen.
	// Empty remembers acceptances until the service restarts.
	DataDir string
	// DisplayOnly (config dock.approvals = false) mirrors prompts but
	// never decides one: the CoreS3's approval.response is logged and
	// answered with approval.resolved saying so.
	DisplayOnly bool
	// Volume (config dock.volume, 0..100) is sent as the claude_pi.settings
	// extension at every EVENT handshake and when ReadVolume finds it
	// changed; nil sends nothing, so the CoreS3 keeps the volume set on it.
	Volume *int

	// ReadVolume, when set, re-reads dock.volume on supervisor.Reload
	// (`supervisorctl signal HUP dock`), so a changed volume reaches the
	// CoreS3 without a restart.
	ReadVolume func() (*int, error)

	// Now and AfterFunc replace the clock and timers in tests.
	Now       func() time.Time
	AfterFunc func(d time.Duration, f func()) (stop func() bool)
}

// Turn is a transcript message from the desktop. The buddy actor publishes
// every turn event to its subscribers as buddy.Turn, which the dock treats
// as this. Assistant text is spoken, shortened, unless MuteAssistant.
type Turn pbuddy.TurnEvent

// GetState asks for the dock's State (answered with Respond), for
// /api/state. A supervisor.Subscribe gets the State at once, then each
// change (including the port closing on Stopping).
type GetState struct{}

// State is the dock as /api/state and the UI show it.
type State struct {
	// Connected: a CoreS3 port is open.
	Connected bool
	// Path and Serial name the CoreS3 the dock talks to: an accepted one,
	// never a stranger plugged beside it ("" when there is none).
	Path, Serial string
	// Ready: the handshake is done; Event: approvals can be mirrored.
	Ready, Event bool
	// Description is the supervisorctl line.
	Description string
	// Pending is the number of approvals mirrored on the CoreS3.
	Pending int
	// MaxCreditWait is the longest time PCM waited for speaker credit.
	MaxCreditWait time.Duration
	// NewDock is a plugged CoreS3 waiting to be accepted on the Pi's
	// screen; its port stays closed until then.
	NewDock NewDock
	// DisplayOnly: dock.approvals = false, the CoreS3 decides nothing.
	DisplayOnly bool
}

// NewDock is a dock asking to be accepted. Serial is what AcceptDock and
// RefuseDock must carry; Shown is all of it made safe to draw (what trust
// compares). Looks is its USB product and manufacturer as shown. Was is
// set when its serial number was accepted before under other USB
// strings: how it looked then (a copied serial, or another board).
type NewDock struct {
	Asking        bool
	Serial, Shown string
	Looks, Was    string
}

// CheckVolume validates config dock.volume.
func CheckVolume(v *int) error {
	if v != nil && (*v < 0 || *v > appevent.MaxVolume) {
		return fmt.Errorf("dock.volume = %d: want 0..%d (0 is silent), or leave it unset to keep the volume set on the CoreS3", *v, appevent.MaxVolume)
	}
	return nil
}

// Defaults for zero Options, exported so that the configuration file's
// help and checks use the same values.
const (
	DefaultAssistantMax = 200
	DefaultListenFor    = 5 * time.Second
)

// New returns the supervisor.Service constructor of the "dock" service, the
// USB host of a Stack-chan CoreS3. Nothing survives a restart: the CoreS3 is
// re-handshaken and the approvals actor re-sends its pending prompts on the
// new subscription.
func New(opts Options) func(h *supervisor.Handle) actor.Actor {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.AfterFunc == nil {
		opts.AfterFunc = func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }
	}
	if opts.Retry == 0 {
		opts.Retry = 2 * time.Second
	}
	if opts.AssistantMax == 0 {
		opts.AssistantMax = DefaultAssistantMax
	}
	if opts.ListenFor <= 0 {
		opts.ListenFor = DefaultListenFor
	}
	if opts.STTTimeout <= 0 {
		opts.STTTimeout = 15 * time.Second
	}
	if opts.Approvals == "" {
		opts.Approvals = approvals.ServiceName
	}
	if opts.Buddy == "" {
		opts.Buddy = buddyactor.ServiceName
	}
	if opts.LAN == "" {
		opts.LAN = lan.ServiceName
	}
	// Subscribers outlive incarnations: the ui subscribed once with its
	// ServicePID and must hear the dock again after a restart.
	subs := &supervisor.Subscribers{}
	return func(h *supervisor.Handle) actor.Actor {
		return &Actor{h: h, opts: opts, subs: subs}
	}
}
