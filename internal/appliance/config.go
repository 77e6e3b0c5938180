package appliance

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/claude-pi/claude-pi/boards"
	"github.com/claude-pi/claude-pi/supervisor"
)

// DefaultConfigPath is where the appliance's configuration lives on a Pi.
const DefaultConfigPath = "/etc/claude-pi/config.toml"

// Config is the appliance's configuration file. An empty string means
// "the board's default" (see defaults); HTTP is a pointer because "" there
// means "off", which must differ from "not set".
type Config struct {
	Board         string  `toml:"board"`
	DataDir       string  `toml:"data_dir"`
	ControlSocket string  `toml:"control_socket"`
	ControlGroup  string  `toml:"control_group"`
	HTTP          *string `toml:"http"`
	LogLevel      string  `toml:"log_level"`

	BLE      BLEConfig                `toml:"ble"`
	Dock     DockConfig               `toml:"dock"`
	TTS      TTSConfig                `toml:"tts"`
	Voice    VoiceConfig              `toml:"voice"`
	LAN      LANConfig                `toml:"lan"`
	UI       UIConfig                 `toml:"ui"`
	Services map[string]ServiceConfig `toml:"services"`
}

// BLEConfig is the [ble] table.
type BLEConfig struct {
	Name      string `toml:"name"`
	Security  string `toml:"security"`
	NUSListen string `toml:"nus_listen"`
	MTU       int    `toml:"mtu"`
	Backend   string `toml:"backend"`
	Adapter   string `toml:"adapter"`
}

// DockConfig is the [dock] table. The pointers tell "unset" from false:
// unset DTR/RTS leave the line as the kernel left it, unset speak_* and
// approvals mean on, unset volume is never sent.
type DockConfig struct {
	Port              string `toml:"port"`
	Serial            string `toml:"serial"`
	DTR               *bool  `toml:"dtr"`
	RTS               *bool  `toml:"rts"`
	SpeakPrompts      *bool  `toml:"speak_prompts"`
	SpeakAssistant    *bool  `toml:"speak_assistant"`
	SpeakConversation *bool  `toml:"speak_conversation"`
	AssistantMax      int    `toml:"assistant_max"`
	Approvals         *bool  `toml:"approvals"`
	Volume            *int   `toml:"volume"`
}

// LANConfig is the [lan] table: the API Claude Code's hooks reach the Pi
// by. Empty Listen keeps it off.
type LANConfig struct {
	Listen      string    `toml:"listen"`
	PairTimeout *Duration `toml:"pair_timeout"`
	MaxWait     *Duration `toml:"max_wait"`
}

// UIConfig is the [ui] table: the screen.
type UIConfig struct {
	ScreenTimeout *Duration `toml:"screen_timeout"`
}

// TTSConfig is the [tts] table: the voice the dock speaks with.
type TTSConfig struct {
	Engine      string `toml:"engine"`
	Voice       string `toml:"voice"`
	Speed       int    `toml:"speed"`
	PiperBinary string `toml:"piper_binary"`
	PiperModel  string `toml:"piper_model"`
}

// VoiceConfig is the [voice] table: approving the pending prompt by voice
// after a conversation.start from the CoreS3. Empty STTCommand is off.
type VoiceConfig struct {
	STTCommand    string `toml:"stt_command"`
	ListenSeconds int    `toml:"listen_seconds"`
	// FollowUp turns on spoken follow-ups to terminal sessions: a head
	// swipe within FollowUpSeconds (default 10) of a reply, and the
	// sentence heard goes to the session as its next message.
	FollowUp        bool `toml:"follow_up"`
	FollowUpSeconds int  `toml:"follow_up_seconds"`
}

// ServiceConfig is a [services.NAME] table: overrides of the service's
// restart policy. Unset fields keep supervisor.DefaultPolicy's values.
type ServiceConfig struct {
	Autostart   *bool     `toml:"autostart"`
	MaxRestarts *int      `toml:"max_restarts"`
	Window      *Duration `toml:"window"`
	BackoffMin  *Duration `toml:"backoff_min"`
	BackoffMax  *Duration `toml:"backoff_max"`
	RetryFatal  *Duration `toml:"retry_fatal"`
}

// Duration is a time.Duration written as a string such as "60s". A bare
// number is rejected: the TOML library would read 60 as 60 nanoseconds.
type Duration time.Duration

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("invalid duration %q: write it as a string with a unit, e.g. \"60s\" or \"250ms\"", b)
	}
	*d = Duration(v)
	return nil
}

// Known names, in one place so that validation, help and the example agree.
var (
	BoardNames    = append([]string{"auto"}, boards.Names()...)
	securityModes = []string{"bonded", "open"}
	bleBackends   = []string{"sim", "bluez", "hci"}
	ttsEngines    = []string{"espeak-ng", "piper", "off"}
	logLevels     = []string{"debug", "info", "warn", "error"}
)

// Sim defaults, then the Pi's and the board-independent ones.
const (
	SimHTTP      = "127.0.0.1:8330"
	SimNUSListen = "127.0.0.1:8331"

	piDataDir       = "/var/lib/claude-pi"
	piControlSocket = "/run/supervisor.sock" // where Debian's supervisorctl looks

	defaultVoice = "en-us"
	defaultSpeed = 160 // a little slower than espeak-ng's 175: the CoreS3's speaker is small
)

// LoadConfig reads the file at path. With explicit false, a missing file is
// the empty configuration (the default path on a laptop); with explicit
// true it is an error, because the user asked for that file.
func LoadConfig(path string, explicit bool) (Config, error) {
	var c Config
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && !explicit {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("config: %w", err)
	}
	if err := parseConfig(path, string(data), &c); err != nil {
		return c, err
	}
	return c, nil
}

// parseConfig decodes data strictly: an unknown key is an error naming it,
// because a misspelt key silently falling back to a default is the bug
// users cannot find.
func parseConfig(path, data string, c *Config) error {
	md, err := toml.Decode(data, c)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			if pe.LastKey != "" {
				return fmt.Errorf("config %s: line %d: %s: %s", path, pe.Position.Line, pe.LastKey, pe.Message)
			}
			return fmt.Errorf("config %s: line %d: %s", path, pe.Position.Line, pe.Message)
		}
		return fmt.Errorf("config %s: %v", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0]
		where := ""
		if n := lineOf(data, k); n > 0 {
			where = fmt.Sprintf(" (line %d)", n)
		}
		return fmt.Errorf("config %s: unknown key %q%s: see claude-pi help config for the keys", path, k.String(), where)
	}
	for name := range c.Services {
		if !slices.Contains(ServiceNames, name) {
			return fmt.Errorf("config %s: [services.%s]: unknown service %q (services: %s)",
				path, name, name, strings.Join(ServiceNames, ", "))
		}
	}
	return nil
}

// lineOf finds the line where key is written, for error messages; the TOML
// library keeps key positions private. It returns 0 if it cannot tell.
func lineOf(data string, key toml.Key) int {
	last := key[len(key)-1]
	table := strings.Join(key[:len(key)-1], ".")
	inTable := table == ""
	for i, line := range strings.Split(data, "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "[") {
			h := strings.Trim(l, "[] \t")
			if h == key.String() {
				return i + 1
			}
			inTable = h == table
			continue
		}
		if inTable || table == "" {
			if k, _, ok := strings.Cut(l, "="); ok && strings.Trim(strings.TrimSpace(k), `"'`) == last {
				return i + 1
			}
		}
	}
	return 0
}

// validateAddr checks a host:port listen address. Port 0 picks a free port.
func validateAddr(key, addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s = %q: want host:port, e.g. %q (%v)", key, addr, "127.0.0.1:8330", err)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("%s = %q: port %q is not a number 0..65535", key, addr, port)
	}
	if host != "" && net.ParseIP(host) == nil && host != "localhost" {
		return fmt.Errorf("%s = %q: host %q is not an IP address or localhost", key, addr, host)
	}
	return nil
}

// validateNUSListen checks the sim's BLE stand-in address: host:port for
// TCP or unix:/path for a unix socket.
func validateNUSListen(addr string) error {
	if p, ok := strings.CutPrefix(addr, "unix:"); ok {
		if !filepath.IsAbs(p) {
			return fmt.Errorf("ble.nus_listen = %q: a unix socket needs an absolute path, e.g. unix:/run/claude-pi/nus.sock", addr)
		}
		return validateSocketPath("ble.nus_listen", p)
	}
	return validateAddr("ble.nus_listen", addr)
}

// validateSocketPath rejects paths the kernel cannot bind: sun_path holds
// 107 bytes and a NUL.
func validateSocketPath(key, p string) error {
	if p == "" {
		return fmt.Errorf("%s: empty path", key)
	}
	if len(p) > 107 {
		return fmt.Errorf("%s = %q: %d bytes is longer than a unix socket path may be (107); choose a shorter path", key, p, len(p))
	}
	return nil
}

// policy returns the restart policy for a service: the defaults with the
// [services.NAME] overrides applied, validated with the key names.
func (c Config) policy(name string) (supervisor.Policy, error) {
	p := supervisor.DefaultPolicy
	sc, ok := c.Services[name]
	if !ok {
		return p, nil
	}
	key := "services." + name
	if sc.Autostart != nil {
		p.Autostart = *sc.Autostart
	}
	if sc.MaxRestarts != nil {
		if *sc.MaxRestarts < 0 {
			return p, fmt.Errorf("%s.max_restarts = %d: must be 0 or more", key, *sc.MaxRestarts)
		}
		p.MaxRestarts = *sc.MaxRestarts
	}
	for _, d := range []struct {
		name string
		v    *Duration
		dst  *time.Duration
	}{
		{"window", sc.Window, &p.Window},
		{"backoff_min", sc.BackoffMin, &p.BackoffMin},
		{"backoff_max", sc.BackoffMax, &p.BackoffMax},
		{"retry_fatal", sc.RetryFatal, &p.RetryFatal},
	} {
		if d.v == nil {
			continue
		}
		if *d.v <= 0 {
			return p, fmt.Errorf("%s.%s = %q: must be positive", key, d.name, time.Duration(*d.v))
		}
		*d.dst = time.Duration(*d.v)
	}
	if p.BackoffMax < p.BackoffMin {
		return p, fmt.Errorf("%s: backoff_max %v is below backoff_min %v: raise backoff_max", key, p.BackoffMax, p.BackoffMin)
	}
	return p, nil
}
