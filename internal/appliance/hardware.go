package appliance

import (
	"fmt"
	"log/slog"
	"os"
	"os/exec"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/godbus/dbus/v5"
	"periph.io/x/conn/v3/gpio"

	"github.com/claude-pi/claude-pi/actors/dock"
	"github.com/claude-pi/claude-pi/actors/ui"
	"github.com/claude-pi/claude-pi/boards"
	"github.com/claude-pi/claude-pi/drivers/audio"
	drv "github.com/claude-pi/claude-pi/drivers/ble"
	"github.com/claude-pi/claude-pi/drivers/ble/bluez"
	"github.com/claude-pi/claude-pi/drivers/ble/hci"
	"github.com/claude-pi/claude-pi/drivers/serial"
	"github.com/claude-pi/claude-pi/drivers/tts"
	"github.com/claude-pi/claude-pi/supervisor"
)

// buildSynth is the dock's voice from [tts]; nil for engine "off". A
// missing piper model stops start-up here, naming the key, rather than
// failing every utterance later. A missing espeak-ng only warns: the
// appliance is useful without speech.
func buildSynth(t TTSConfig, log *slog.Logger) (tts.Synth, error) {
	switch t.Engine {
	case "off":
		return nil, nil
	case "piper":
		if _, err := os.Stat(t.PiperModel); err != nil {
			return nil, fmt.Errorf("tts.piper_model: %w", err)
		}
		if _, err := exec.LookPath(t.PiperBinary); err != nil {
			return nil, fmt.Errorf("tts.piper_binary = %q: %w", t.PiperBinary, err)
		}
		return &tts.Piper{Binary: t.PiperBinary, Model: t.PiperModel}, nil
	}
	if _, err := exec.LookPath("espeak-ng"); err != nil {
		log.Warn("espeak-ng not installed: the dock will not speak (apt-get install espeak-ng, or set [tts] engine = \"off\")")
	}
	return &tts.Espeak{Voice: t.Voice, Speed: t.Speed}, nil
}

// dockOptions is the dock service's configuration from [dock] and [voice].
func dockOptions(d DockConfig, v voiceSettings, synth tts.Synth, log *slog.Logger) dock.Options {
	if len(v.stt) > 0 {
		if _, err := exec.LookPath(v.stt[0]); err != nil {
			log.Warn("voice.stt_command not found: voice approval will fail until it is installed", "command", v.stt[0], "err", err)
		}
		if synth == nil {
			log.Warn("voice.stt_command is set but [tts] engine is off: voice approval listens after a spoken summary, so it stays off")
		}
	}
	return dock.Options{
		STT:              v.stt,
		ListenFor:        v.listen,
		Port:             d.Port,
		Serial:           serial.Opts{Serial: d.Serial, DTR: d.DTR, RTS: d.RTS, Logger: log.With("actor", "dock")},
		Synth:            synth,
		MutePrompts:      !*d.SpeakPrompts,
		MuteAssistant:    !*d.SpeakAssistant,
		MuteConversation: !*d.SpeakConversation,
		AssistantMax:     d.AssistantMax,
		DisplayOnly:      !*d.Approvals,
		Volume:           d.Volume,
	}
}

// radioLink is the over-the-air link: BlueZ on the system bus, or go-ble
// on the raw HCI socket with [ble] backend = "hci".
func radioLink(b BLEConfig, sec drv.Security, log *slog.Logger) *drv.Reopening {
	log = log.With("actor", "ble")
	if b.Backend == "hci" {
		device, _ := hci.ParseAdapter(b.Adapter) // validated by Resolve; "" is hci0
		return &drv.Reopening{Open: func() (drv.Peripheral, func(), error) {
			p, err := hci.New(&hci.Options{Name: b.Name, Security: sec, Device: device, Logger: log})
			return p, func() {}, err
		}}
	}
	return &drv.Reopening{Pairs: true, Open: func() (drv.Peripheral, func(), error) {
		connect := func(o ...dbus.ConnOption) (*dbus.Conn, error) {
			conn, err := dbus.ConnectSystemBus(o...)
			if err != nil {
				return nil, fmt.Errorf("bluez: connecting to the D-Bus system bus: %w (is dbus running? is the user in the bluetooth group?)", err)
			}
			return conn, nil
		}
		p, conn, err := bluez.Dial(connect, &bluez.Options{Name: b.Name, Security: sec, Adapter: b.Adapter, Logger: log})
		if err != nil {
			return nil, nil, err
		}
		return p, func() { conn.Close() }, nil
	}}
}

// hatOpener opens a board's devices for the ui; openHAT on a Pi, a fake
// in tests.
type hatOpener func(boards.Profile) (ui.Devices, error)

// openHAT opens the real devices through boards.Open: the panel, the
// buttons, and aplay on the board's sound device behind its amplifier pin.
func openHAT(p boards.Profile) (ui.Devices, error) {
	hw, err := boards.Open(p, nil)
	if err != nil {
		return ui.Devices{}, err
	}
	// Copied field by field: a nil *st7789.Dev in an interface is not nil.
	d := ui.Devices{Audio: hatPlayer(p, hw.Amp), Close: hw.Close}
	if hw.Display != nil {
		d.Display = hw.Display
	}
	if hw.Buttons != nil {
		d.Input = hw.Buttons
	}
	return d, nil
}

// audioDevice is the ALSA device the board's chimes play on.
func audioDevice(p boards.Profile) string {
	if p.Audio != nil && p.Audio.Device != "" {
		return p.Audio.Device
	}
	return "default"
}

// hatPlayer plays the ui's chimes on the board's sound device, raising
// the amplifier pin (if any) only while one plays.
func hatPlayer(p boards.Profile, amp gpio.PinOut) audio.Player {
	return &audio.Aplay{Device: audioDevice(p), Amp: amp}
}

// uiRoles maps the board's buttons to the ui's roles.
func uiRoles(p boards.Profile) map[string]ui.Role {
	roles := make(map[string]ui.Role, len(p.Buttons))
	for _, b := range p.Buttons {
		if b.Role != boards.RoleNone {
			roles[b.Name] = ui.Role(b.Role)
		}
	}
	return roles
}

// hatUI is the ui service on a HAT board: the ui opens the hardware in
// each incarnation's Started (see ui.Config.Open) and drives the panel,
// the buttons by the profile's roles, and the board's speaker; cfg gives
// the rest (board name, data dir, version, clocks in tests).
func hatUI(p boards.Profile, open hatOpener, cfg ui.Config) func(*supervisor.Handle) actor.Actor {
	cfg.Roles = uiRoles(p)
	cfg.Open = func() (ui.Devices, error) { return open(p) }
	return ui.New(cfg)
}
