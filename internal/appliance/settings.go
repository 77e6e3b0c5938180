package appliance

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/claude-pi/claude-pi/actors/dock"
	"github.com/claude-pi/claude-pi/actors/lan"
	"github.com/claude-pi/claude-pi/actors/ui"
	"github.com/claude-pi/claude-pi/boards"
	drv "github.com/claude-pi/claude-pi/drivers/ble"
	"github.com/claude-pi/claude-pi/drivers/ble/hci"
	blesim "github.com/claude-pi/claude-pi/drivers/ble/sim"
	"github.com/claude-pi/claude-pi/drivers/serial"
	"github.com/claude-pi/claude-pi/supervisor"
)

// Host is what the defaults depend on, gathered once so tests can fake it.
type Host struct {
	PiModel string // non-empty on a Raspberry Pi
	// HAT is the board the HAT's ID EEPROM names, if any, for board auto.
	HAT    boards.Detection
	Getenv func(string) string
	Home   string
}

// ThisHost is the machine this runs on.
func ThisHost() Host {
	model, _ := boards.PiModel("/")
	home, _ := os.UserHomeDir()
	return Host{PiModel: model, HAT: boards.Detect("/"), Getenv: os.Getenv, Home: home}
}

// Settings is the configuration resolved for one board: every default
// filled in, every value checked.
type Settings struct {
	// Version is this build's, for the info screen; the caller sets it.
	Version string

	configPath    string
	board         string
	boardHow      string // how board was chosen, for the log
	dataDir       string
	controlSocket string
	controlGroup  string
	http          string // "" = off
	logLevel      slog.Level
	ble           BLEConfig
	dock          DockConfig // speak_* and assistant_max filled in
	tts           TTSConfig  // engine, voice and speed filled in
	voice         voiceSettings
	lan           lanSettings
	screenTimeout time.Duration
	policies      map[string]supervisor.Policy
}

// simulated reports whether the board is the simulator, which serves the
// link on a socket and the screen on a web page.
func (s Settings) simulated() bool { return s.board == "sim" }

// BoardHow says how the board was chosen: set in the configuration, or
// by board auto (and from what).
func (s Settings) BoardHow() string { return s.boardHow }

// Resolve picks the board, fills the board's defaults into c and
// validates the result. Errors name the key and say how to fix it.
func Resolve(c Config, configPath string, h Host) (_ Settings, err error) {
	s := Settings{configPath: configPath, controlGroup: c.ControlGroup, ble: c.BLE, dock: c.Dock}
	fail := func(err error) (Settings, error) {
		return Settings{}, fmt.Errorf("config %s: %w", configPath, err)
	}

	board := c.Board
	if board == "" {
		board = "auto"
	}
	if !slices.Contains(BoardNames, board) {
		return fail(fmt.Errorf("board = %q: unknown board (boards: %s)", board, strings.Join(BoardNames, ", ")))
	}
	s.boardHow = fmt.Sprintf("set: board = %q", board)
	if board == "auto" {
		// On a Pi the appliance is meant to drive real hardware; quietly
		// running the simulator there would look like broken hardware. A
		// HAT that names itself (its ID EEPROM) is the one exception.
		switch {
		case h.PiModel != "" && h.HAT.Board != "":
			board, s.boardHow = h.HAT.Board, "board auto: "+h.HAT.How
		case h.PiModel != "":
			return fail(fmt.Errorf("board auto: no HAT configured: set board = \"pirate-audio\" (or another HAT: %s) in %s, "+
				"or board = \"sim\" to run the simulator on this %s (not chosen by itself: %s)",
				strings.Join(HATNames(), ", "), configPath, h.PiModel, h.HAT.How))
		default:
			board, s.boardHow = "sim", "board auto: not a Raspberry Pi, so the simulator"
		}
	}
	s.board = board

	s.dataDir, s.controlSocket = AppliancePaths(c, h)
	if err := validateSocketPath("control_socket", s.controlSocket); err != nil {
		return fail(err)
	}
	if s.simulated() {
		s.http = SimHTTP
	}
	if c.HTTP != nil {
		s.http = *c.HTTP
	}
	if s.http == "off" {
		s.http = ""
	}
	if s.http != "" {
		if !s.simulated() {
			// The page draws the sim framebuffer and presses sim buttons;
			// a HAT has neither, and exposing buttons on a LAN is no default.
			return fail(fmt.Errorf("http = %q: the web page draws the simulator's screen and buttons; on board %s set http = \"off\" (for the sim screen with a real radio, run board \"sim\" with [ble] backend = \"bluez\")", s.http, board))
		}
		if err := validateAddr("http", s.http); err != nil {
			return fail(err)
		}
	}

	level := c.LogLevel
	if level == "" {
		level = "info"
	}
	if !slices.Contains(logLevels, level) {
		return fail(fmt.Errorf("log_level = %q: want one of %s", level, strings.Join(logLevels, ", ")))
	}
	_ = s.logLevel.UnmarshalText([]byte(level))

	if err := resolveBLE(&s.ble, s.simulated(), board); err != nil {
		return fail(err)
	}
	if err := resolveDock(&s.dock); err != nil {
		return fail(err)
	}
	if s.tts, err = resolveTTS(c.TTS); err != nil {
		return fail(err)
	}
	if s.voice, err = resolveVoice(c.Voice); err != nil {
		return fail(err)
	}
	if s.screenTimeout, err = resolveScreenTimeout(c.UI); err != nil {
		return fail(err)
	}
	if s.lan, err = resolveLAN(c.LAN); err != nil {
		return fail(err)
	}

	s.policies = make(map[string]supervisor.Policy, len(ServiceNames))
	for _, name := range ServiceNames {
		p, err := c.policy(name)
		if err != nil {
			return fail(err)
		}
		s.policies[name] = p
	}
	return s, nil
}

// AppliancePaths are the data directory and the control socket of `claude-pi
// run` with c on h: the one place they are worked out, for run itself and
// for the commands that reach a running appliance (status, pair --local).
// It never fails: where run would refuse board auto on a Pi, the Pi's
// paths are still the ones worth trying.
func AppliancePaths(c Config, h Host) (dataDir, socket string) {
	sim := c.Board == "sim" || (c.Board == "" || c.Board == "auto") && h.PiModel == ""
	dataDir, socket = c.DataDir, c.ControlSocket
	if dataDir == "" {
		dataDir = piDataDir
		if sim {
			dataDir = simDataDir(h)
		}
	}
	if socket == "" {
		socket = piControlSocket
		if sim {
			socket = simControlSocket(h, dataDir)
		}
	}
	return dataDir, socket
}

// simDataDir follows the XDG base directory spec: state, not config or
// cache, because bonds and counters are what the appliance keeps.
func simDataDir(h Host) string {
	if d := h.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "claude-pi")
	}
	return filepath.Join(h.Home, ".local", "state", "claude-pi")
}

func simControlSocket(h Host, dataDir string) string {
	if d := h.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		return filepath.Join(d, "claude-pi", "supervisor.sock")
	}
	return filepath.Join(dataDir, "supervisor.sock")
}

// HATNames lists the boards with real hardware, for error messages.
func HATNames() []string {
	var out []string
	for _, n := range boards.Names() {
		if n != "sim" {
			out = append(out, n)
		}
	}
	return out
}

// resolveBLE fills the [ble] defaults into b and checks it on board.
func resolveBLE(b *BLEConfig, simulated bool, board string) error {
	if b.Name == "" {
		b.Name = drv.DefaultName
	}
	if err := drv.ValidateName(b.Name); err != nil {
		return fmt.Errorf("ble.name: %w", err)
	}
	if b.Security == "" {
		b.Security = "bonded"
	}
	if !slices.Contains(securityModes, b.Security) {
		return fmt.Errorf("ble.security = %q: want \"bonded\" or \"open\"", b.Security)
	}
	if b.Backend == "" {
		b.Backend = "bluez"
		if simulated {
			b.Backend = "sim"
		}
	}
	if !slices.Contains(bleBackends, b.Backend) {
		return fmt.Errorf("ble.backend = %q: want one of %s", b.Backend, strings.Join(bleBackends, ", "))
	}
	if b.Backend == "sim" && !simulated {
		return fmt.Errorf("ble.backend = \"sim\" serves NUS on a socket and belongs to board sim; on board %s use \"bluez\" (the default)", board)
	}
	if b.Backend == "hci" && b.Security != "open" {
		return fmt.Errorf("ble.backend = \"hci\" cannot pair: set ble.security = \"open\" with it, or use backend \"bluez\"")
	}
	if _, err := hci.ParseAdapter(b.Adapter); err != nil {
		return fmt.Errorf("ble.adapter: %w", err)
	}
	if b.NUSListen == "" {
		b.NUSListen = SimNUSListen
	}
	if err := validateNUSListen(b.NUSListen); err != nil {
		return err
	}
	if b.MTU == 0 {
		b.MTU = blesim.DefaultMTU // what macOS negotiates; enough for the desktop's 180-byte writes
	}
	if b.MTU < 23 || b.MTU > 517 {
		return fmt.Errorf("ble.mtu = %d: an ATT MTU is 23..517", b.MTU)
	}
	return nil
}

// resolveDock fills the [dock] defaults into d and checks it.
func resolveDock(d *DockConfig) error {
	if d.Port != "" && !filepath.IsAbs(d.Port) {
		return fmt.Errorf("dock.port = %q: want an absolute device path such as /dev/ttyACM0, or empty to find the CoreS3 by its USB ids", d.Port)
	}
	on := func(p **bool) {
		if *p == nil {
			t := true
			*p = &t
		}
	}
	if _, err := serial.WantLines(d.DTR, d.RTS); err != nil {
		return err
	}
	if err := dock.CheckVolume(d.Volume); err != nil {
		return err
	}
	on(&d.Approvals)
	on(&d.SpeakPrompts)
	on(&d.SpeakAssistant)
	on(&d.SpeakConversation)
	if d.AssistantMax == 0 {
		d.AssistantMax = dock.DefaultAssistantMax
	}
	if d.AssistantMax < 20 || d.AssistantMax > 4000 {
		return fmt.Errorf("dock.assistant_max = %d: want 20..4000 characters", d.AssistantMax)
	}
	return nil
}

// resolveTTS fills the [tts] defaults in and checks what can be checked
// without running an engine; a missing piper model is caught at start.
func resolveTTS(t TTSConfig) (TTSConfig, error) {
	if t.Engine == "" {
		t.Engine = "espeak-ng"
	}
	if !slices.Contains(ttsEngines, t.Engine) {
		return t, fmt.Errorf("tts.engine = %q: want one of %s", t.Engine, strings.Join(ttsEngines, ", "))
	}
	if t.Voice == "" {
		t.Voice = defaultVoice
	}
	if strings.ContainsAny(t.Voice, " \t\n") || strings.HasPrefix(t.Voice, "-") {
		return t, fmt.Errorf("tts.voice = %q: want an espeak-ng voice name such as \"en-us\" (see espeak-ng --voices)", t.Voice)
	}
	if t.Speed == 0 {
		t.Speed = defaultSpeed
	}
	if t.Speed < 80 || t.Speed > 450 {
		return t, fmt.Errorf("tts.speed = %d: espeak-ng speaks 80..450 words per minute", t.Speed)
	}
	if t.PiperBinary == "" {
		t.PiperBinary = "piper"
	}
	if t.Engine == "piper" && !filepath.IsAbs(t.PiperModel) {
		return t, fmt.Errorf("tts.piper_model = %q: engine \"piper\" needs the absolute path of a voice's .onnx file (its .onnx.json beside it)", t.PiperModel)
	}
	return t, nil
}

// voiceSettings is [voice] resolved: the STT command's words (nil = no
// voice approval) and how long an answer is listened for.
type voiceSettings struct {
	stt    []string
	listen time.Duration
	// followUp is the follow-up window ([voice] follow_up); 0 = off.
	followUp time.Duration
}

// resolveVoice splits voice.stt_command the way a shell would, without ever
// running one, and checks listen_seconds.
func resolveVoice(v VoiceConfig) (voiceSettings, error) {
	var s voiceSettings
	if v.ListenSeconds == 0 {
		v.ListenSeconds = int(dock.DefaultListenFor / time.Second)
	}
	if v.ListenSeconds < 1 || v.ListenSeconds > 30 {
		return s, fmt.Errorf("voice.listen_seconds = %d: want 1..30 seconds", v.ListenSeconds)
	}
	s.listen = time.Duration(v.ListenSeconds) * time.Second
	words, err := dock.SplitCommand(v.STTCommand)
	if err != nil {
		return s, fmt.Errorf("voice.stt_command = %q: %w (quote with ' or \" as in a shell; no shell runs it)", v.STTCommand, err)
	}
	if len(words) > 0 && words[0] == "" {
		return s, fmt.Errorf("voice.stt_command = %q: the program name is empty", v.STTCommand)
	}
	s.stt = words
	if s.followUp, err = resolveFollowUp(v, len(words) > 0); err != nil {
		return s, err
	}
	return s, nil
}

// resolveScreenTimeout is how long the screen stays on after the last
// press or prompt; under 5 s it would go dark while a prompt is read.
func resolveScreenTimeout(u UIConfig) (time.Duration, error) {
	if u.ScreenTimeout == nil {
		return ui.DefaultScreenTimeout, nil
	}
	if d := time.Duration(*u.ScreenTimeout); d < 5*time.Second {
		return 0, fmt.Errorf("ui.screen_timeout = %q: want 5s or longer", d)
	}
	return time.Duration(*u.ScreenTimeout), nil
}

// lanSettings is [lan] resolved.
type lanSettings struct {
	listen               string
	pairTimeout, maxWait time.Duration
}

func resolveLAN(l LANConfig) (lanSettings, error) {
	s := lanSettings{listen: l.Listen, pairTimeout: lan.DefaultPairTimeout, maxWait: lan.DefaultMaxWait}
	if s.listen == "off" {
		s.listen = ""
	}
	if s.listen != "" {
		if err := validateAddr("lan.listen", s.listen); err != nil {
			return s, err
		}
	}
	for _, d := range []struct {
		key string
		v   *Duration
		dst *time.Duration
	}{{"lan.pair_timeout", l.PairTimeout, &s.pairTimeout}, {"lan.max_wait", l.MaxWait, &s.maxWait}} {
		if d.v == nil {
			continue
		}
		if *d.v <= 0 {
			return s, fmt.Errorf("%s = %q: must be positive", d.key, time.Duration(*d.v))
		}
		*d.dst = time.Duration(*d.v)
	}
	return s, nil
}
