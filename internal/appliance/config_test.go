package appliance

import (
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/claude-pi/claude-pi/boards"
	"github.com/claude-pi/claude-pi/supervisor"
)

// laptop is a host that is not a Pi, with fixed XDG directories.
func laptop() Host {
	env := map[string]string{"XDG_STATE_HOME": "/home/u/.state", "XDG_RUNTIME_DIR": "/run/user/1000"}
	return Host{Getenv: func(k string) string { return env[k] }, Home: "/home/u"}
}

func TestDefaults(t *testing.T) {
	s, err := Resolve(Config{}, DefaultConfigPath, laptop())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, got, want string }{
		{"board", s.board, "sim"},
		{"data_dir", s.dataDir, "/home/u/.state/claude-pi"},
		{"control_socket", s.controlSocket, "/run/user/1000/claude-pi/supervisor.sock"},
		{"http", s.http, "127.0.0.1:8330"},
		{"ble.name", s.ble.Name, "Claude_Pi"},
		{"ble.security", s.ble.Security, "bonded"},
		{"ble.nus_listen", s.ble.NUSListen, "127.0.0.1:8331"},
		{"log_level", s.logLevel.String(), "INFO"},
	} {
		if tt.got != tt.want {
			t.Errorf("%s = %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	if s.ble.MTU != 185 {
		t.Errorf("ble.mtu = %d, want 185", s.ble.MTU)
	}
	for _, name := range ServiceNames {
		if s.policies[name] != supervisor.DefaultPolicy {
			t.Errorf("policy %s = %+v, want DefaultPolicy", name, s.policies[name])
		}
	}

	// Without XDG variables: the home directory, and the socket in data_dir.
	h := laptop()
	h.Getenv = func(string) string { return "" }
	s, err = Resolve(Config{}, DefaultConfigPath, h)
	if err != nil {
		t.Fatal(err)
	}
	if s.dataDir != "/home/u/.local/state/claude-pi" || s.controlSocket != "/home/u/.local/state/claude-pi/supervisor.sock" {
		t.Errorf("no XDG: data_dir %q, control_socket %q", s.dataDir, s.controlSocket)
	}
}

func TestMissingConfig(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.toml")
	if _, err := LoadConfig(missing, false); err != nil {
		t.Errorf("missing default file: %v, want defaults", err)
	}
	if _, err := LoadConfig(missing, true); err == nil || !strings.Contains(err.Error(), "nope.toml") {
		t.Errorf("missing --config file: err = %v, want an error naming it", err)
	}
}

func TestConfigFileAndOverrides(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	writeFile(t, path, `
board = "sim"
data_dir = "/srv/cp"
http = "off"
log_level = "debug"
[ble]
name = "Claude_Pi-3F9A"
security = "open"
mtu = 247
[dock]
serial = "ABC123"
[services.audio]
autostart = false
[services.ble]
max_restarts = 2
window = "30s"
backoff_min = "1s"
backoff_max = "4s"
`)
	c, err := LoadConfig(path, true)
	if err != nil {
		t.Fatal(err)
	}
	// What run's --data-dir, --http and --nus-listen set (the cli's
	// TestRunFlagsOverrideTheFile checks they do).
	httpFlag := "127.0.0.1:9000"
	c.DataDir, c.HTTP, c.BLE.NUSListen = "/tmp/x", &httpFlag, "unix:/tmp/nus.sock"
	s, err := Resolve(c, path, laptop())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, got, want string }{
		{"data_dir (flag)", s.dataDir, "/tmp/x"},
		{"http (flag)", s.http, "127.0.0.1:9000"},
		{"nus_listen (flag)", s.ble.NUSListen, "unix:/tmp/nus.sock"},
		{"control_socket (default)", s.controlSocket, "/run/user/1000/claude-pi/supervisor.sock"},
		{"ble.name", s.ble.Name, "Claude_Pi-3F9A"},
		{"ble.security", s.ble.Security, "open"},
		{"dock.serial", s.dock.Serial, "ABC123"},
		{"log_level", s.logLevel.String(), "DEBUG"},
	} {
		if tt.got != tt.want {
			t.Errorf("%s = %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	if s.ble.MTU != 247 {
		t.Errorf("mtu = %d", s.ble.MTU)
	}
	if s.policies["audio"].Autostart {
		t.Error("services.audio.autostart = false was ignored")
	}
	want := supervisor.Policy{Autostart: true, MaxRestarts: 2, Window: 30 * time.Second, BackoffMin: time.Second, BackoffMax: 4 * time.Second,
		RetryFatal: supervisor.DefaultPolicy.RetryFatal}
	if s.policies["ble"] != want {
		t.Errorf("ble policy = %+v, want %+v", s.policies["ble"], want)
	}

	// http = "off" in the file is off; so is "" (what --http "" sets).
	c, _ = LoadConfig(path, true)
	empty := ""
	for _, h := range []*string{c.HTTP, &empty} {
		c.HTTP = h
		if s, err := Resolve(c, path, laptop()); err != nil || s.http != "" {
			t.Errorf("http %q: http = %q, %v; want off", *h, s.http, err)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name, file string
		want       []string // all must appear in the error
	}{
		{"unknown top-level key", "board = \"sim\"\nservces = 1\n", []string{`unknown key "servces"`, "(line 2)"}},
		{"unknown nested key", "[ble]\nname = \"Claude_X\"\nmtuu = 3\n", []string{`unknown key "ble.mtuu"`, "(line 3)"}},
		{"unknown service", "[services.blee]\nautostart = true\n", []string{`unknown service "blee"`, "ble, approvals, buddy"}},
		{"unknown service key", "[services.ble]\nrestarts = 3\n", []string{`unknown key "services.ble.restarts"`, "(line 2)"}},
		{"syntax", "board = \n", []string{"line 1"}},
		{"wrong type", "ble = 3\n", []string{"ble"}},
		{"duration without unit", "[services.ble]\nwindow = 60\n", []string{`"60s"`}},
		{"duration garbage", "[services.ble]\nwindow = \"soon\"\n", []string{`"soon"`, "window"}},
		{"bad board", "board = \"pi5\"\n", []string{`board = "pi5"`, "auto, display-hat-mini, pirate-audio, sim, waveshare-lcd13"}},
		{"web page on a HAT", "board = \"pirate-audio\"\nhttp = \"127.0.0.1:8330\"\n", []string{"http", "simulator", `http = "off"`}},
		{"bad backend", "[ble]\nbackend = \"btstack\"\n", []string{"ble.backend", "sim, bluez, hci"}},
		{"hci bonded", "[ble]\nbackend = \"hci\"\n", []string{"hci", `ble.security = "open"`}},
		{"assistant_max small", "[dock]\nassistant_max = 5\n", []string{"dock.assistant_max", "20..4000"}},
		{"dtr not a bool", "[dock]\ndtr = \"yes\"\n", []string{"dtr"}},
		{"dtr low alone holds reset", "[dock]\ndtr = false\n", []string{"DTR=0 RTS=1", "reset", "set both false"}},
		{"rts low alone holds download", "[dock]\nrts = false\n", []string{"DTR=1 RTS=0", "download", "set both false"}},
		{"volume out of range", "[dock]\nvolume = 101\n", []string{"dock.volume = 101", "0..100"}},
		{"bad lan listen", "[lan]\nlisten = \"7787\"\n", []string{"lan.listen", "host:port"}},
		{"zero lan wait", "[lan]\nmax_wait = \"0s\"\n", []string{"lan.max_wait", "positive"}},
		{"short screen timeout", "[ui]\nscreen_timeout = \"1s\"\n", []string{"ui.screen_timeout", "5s or longer"}},
		{"bad engine", "[tts]\nengine = \"say\"\n", []string{"tts.engine", "espeak-ng, piper, off"}},
		{"piper without model", "[tts]\nengine = \"piper\"\n", []string{"tts.piper_model", ".onnx"}},
		{"bad speed", "[tts]\nspeed = 1000\n", []string{"tts.speed", "80..450"}},
		{"listen too long", "[voice]\nlisten_seconds = 31\n", []string{"voice.listen_seconds", "1..30"}},
		{"listen negative", "[voice]\nlisten_seconds = -1\n", []string{"voice.listen_seconds"}},
		{"stt unterminated quote", "[voice]\nstt_command = \"whisper '-m\"\n", []string{"voice.stt_command", "unterminated '"}},
		{"stt empty program", "[voice]\nstt_command = \"'' -f\"\n", []string{"voice.stt_command", "program name is empty"}},
		{"voice with a flag", "[tts]\nvoice = \"--stdout\"\n", []string{"tts.voice", "en-us"}},
		{"bad http", "http = \"8330\"\n", []string{`http = "8330"`, "host:port"}},
		{"bad http port", "http = \"127.0.0.1:http\"\n", []string{"port"}},
		{"bad nus", "[ble]\nnus_listen = \"unix:rel.sock\"\n", []string{"ble.nus_listen", "absolute"}},
		{"bad name", "[ble]\nname = \"Pi\"\n", []string{"ble.name", "Claude"}},
		{"long name", "[ble]\nname = \"Claude_Pi_with_a_long_name\"\n", []string{"ble.name", "keep it to 20"}},
		{"bad security", "[ble]\nsecurity = \"none\"\n", []string{"ble.security", "bonded"}},
		{"bad mtu", "[ble]\nmtu = 600\n", []string{"ble.mtu", "23..517"}},
		{"sim link on a HAT", "board = \"pirate-audio\"\nhttp = \"off\"\n[ble]\nbackend = \"sim\"\n", []string{"ble.backend", "board sim"}},
		{"bad adapter", "[ble]\nadapter = \"/org/bluez/hci1\"\n", []string{"ble.adapter", "hci0"}},
		{"bad log level", "log_level = \"loud\"\n", []string{"log_level", "debug, info"}},
		{"relative dock port", "[dock]\nport = \"ttyACM0\"\n", []string{"dock.port", "/dev/ttyACM0"}},
		{"negative restarts", "[services.dock]\nmax_restarts = -1\n", []string{"services.dock.max_restarts"}},
		{"zero window", "[services.dock]\nwindow = \"0s\"\n", []string{"services.dock.window", "positive"}},
		{"backoff order", "[services.ui]\nbackoff_min = \"10s\"\nbackoff_max = \"1s\"\n", []string{"services.ui", "backoff_max"}},
		{"long socket", "control_socket = \"/" + strings.Repeat("x", 120) + "\"\n", []string{"control_socket", "107"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.toml")
			writeFile(t, path, tt.file)
			c, err := LoadConfig(path, true)
			if err == nil {
				_, err = Resolve(c, path, laptop())
			}
			if err == nil {
				t.Fatalf("no error for %q", tt.file)
			}
			for _, w := range append(tt.want, path) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestBoardAutoOnAPi(t *testing.T) {
	h := laptop()
	h.PiModel = "Raspberry Pi Zero 2 W Rev 1.0"
	_, err := Resolve(Config{}, DefaultConfigPath, h)
	if err == nil || !strings.Contains(err.Error(), `no HAT configured: set board = "pirate-audio"`) || !strings.Contains(err.Error(), DefaultConfigPath) {
		t.Fatalf("auto on a Pi: err = %v", err)
	}
	if s, err := Resolve(Config{Board: "sim"}, DefaultConfigPath, h); err != nil || s.board != "sim" {
		t.Errorf("board sim on a Pi = %q, %v; want sim", s.board, err)
	}
	if _, got := AppliancePaths(Config{}, h); got != "/run/supervisor.sock" {
		t.Errorf("status socket on a Pi = %q, want /run/supervisor.sock", got)
	}
}

// A HAT that names itself (its ID EEPROM) is chosen by board auto, and the
// log says how; without one the error says why it could not be.
func TestBoardAutoByHATEEPROM(t *testing.T) {
	h := laptop()
	h.PiModel = "Raspberry Pi 4 Model B Rev 1.5"
	h.HAT = boards.Detection{Board: "display-hat-mini", How: `chosen by the HAT's ID EEPROM (vendor "V", product "P")`}
	s, err := Resolve(Config{}, DefaultConfigPath, h)
	if err != nil || s.board != "display-hat-mini" || s.simulated() || s.dataDir != "/var/lib/claude-pi" {
		t.Fatalf("auto with an EEPROM = %q, %v", s.board, err)
	}
	if s.BoardHow() != `board auto: chosen by the HAT's ID EEPROM (vendor "V", product "P")` {
		t.Errorf("BoardHow = %q", s.BoardHow())
	}
	if s, err := Resolve(Config{Board: "pirate-audio"}, DefaultConfigPath, h); err != nil || s.board != "pirate-audio" || s.BoardHow() != `set: board = "pirate-audio"` {
		t.Errorf("a set board wins over the EEPROM: %q, %q, %v", s.board, s.BoardHow(), err)
	}
	h.HAT = boards.Detection{How: "no HAT ID EEPROM (no /proc/device-tree/hat)"}
	if _, err := Resolve(Config{}, DefaultConfigPath, h); err == nil || !strings.Contains(err.Error(), "(not chosen by itself: no HAT ID EEPROM") {
		t.Fatalf("auto without an EEPROM: err = %v", err)
	}
	if s, err := Resolve(Config{}, DefaultConfigPath, laptop()); err != nil || s.BoardHow() != "board auto: not a Raspberry Pi, so the simulator" {
		t.Errorf("auto off a Pi: %q, %v", s.BoardHow(), err)
	}
}

// TestHATBoardDefaults: every HAT board is accepted and gets the Pi's
// defaults, on a Pi or not (a HAT can be configured before the Pi boots).
func TestHATBoardDefaults(t *testing.T) {
	pi := laptop()
	pi.PiModel = "Raspberry Pi 4 Model B Rev 1.5"
	for _, name := range HATNames() {
		for _, h := range []Host{pi, laptop()} {
			s, err := Resolve(Config{Board: name}, DefaultConfigPath, h)
			if err != nil {
				t.Fatalf("board %s: %v", name, err)
			}
			if s.board != name || s.simulated() || s.dataDir != "/var/lib/claude-pi" ||
				s.controlSocket != "/run/supervisor.sock" || s.http != "" || s.ble.Backend != "bluez" {
				t.Errorf("board %s: board %q data_dir %q control_socket %q http %q backend %q", name,
					s.board, s.dataDir, s.controlSocket, s.http, s.ble.Backend)
			}
		}
	}
	if len(HATNames()) != 3 {
		t.Errorf("HAT boards = %v, want the three in boards", HATNames())
	}
	// hci with open security is accepted.
	s, err := Resolve(Config{Board: "pirate-audio", BLE: BLEConfig{Backend: "hci", Security: "open"}}, DefaultConfigPath, pi)
	if err != nil || s.ble.Backend != "hci" {
		t.Errorf("hci + open: %q, %v", s.ble.Backend, err)
	}
}

// TestDockAndTTSDefaults: speech is on unless switched off, and the keys
// reach the dock's options.
func TestDockAndTTSDefaults(t *testing.T) {
	s, err := Resolve(Config{}, DefaultConfigPath, laptop())
	if err != nil {
		t.Fatal(err)
	}
	if s.tts != (TTSConfig{Engine: "espeak-ng", Voice: "en-us", Speed: 160, PiperBinary: "piper"}) {
		t.Errorf("tts defaults = %+v", s.tts)
	}
	o := dockOptions(s.dock, s.voice, nil, slog.Default())
	if o.MutePrompts || o.MuteAssistant || o.MuteConversation || o.AssistantMax != 200 || o.Port != "" ||
		o.Serial.DTR != nil || o.Serial.RTS != nil {
		t.Errorf("dock defaults = %+v", o)
	}

	path := filepath.Join(t.TempDir(), "config.toml")
	writeFile(t, path, "[dock]\nport = \"/dev/ttyACM3\"\nserial = \"3C84\"\ndtr = false\nrts = false\nspeak_assistant = false\nassistant_max = 80\n[tts]\nengine = \"off\"\n")
	c, err := LoadConfig(path, true)
	if err != nil {
		t.Fatal(err)
	}
	if s, err = Resolve(c, path, laptop()); err != nil {
		t.Fatal(err)
	}
	synth, err := buildSynth(s.tts, slog.Default())
	if err != nil || synth != nil {
		t.Errorf("engine off: synth %v, %v; want none", synth, err)
	}
	o = dockOptions(s.dock, s.voice, nil, slog.Default())
	if o.Port != "/dev/ttyACM3" || o.Serial.Serial != "3C84" || o.Serial.DTR == nil || *o.Serial.DTR || o.Serial.RTS == nil || *o.Serial.RTS ||
		o.MutePrompts || !o.MuteAssistant || o.MuteConversation || o.AssistantMax != 80 {
		t.Errorf("dock options = %+v", o)
	}

	// [voice]: off by default (no STT, 5 s); the command is split like a
	// shell's words without a shell, its path last at run time.
	if o.STT != nil || o.ListenFor != 5*time.Second {
		t.Errorf("voice defaults: STT %q, listen %v", o.STT, o.ListenFor)
	}
	writeFile(t, path, "[voice]\nstt_command = \"/opt/stt/run --model 'base en' -q x $HOME\"\nlisten_seconds = 12\n")
	if c, err = LoadConfig(path, true); err != nil {
		t.Fatal(err)
	}
	if s, err = Resolve(c, path, laptop()); err != nil {
		t.Fatal(err)
	}
	o = dockOptions(s.dock, s.voice, nil, slog.Default())
	if want := []string{"/opt/stt/run", "--model", "base en", "-q", "x", "$HOME"}; !slices.Equal(o.STT, want) || o.ListenFor != 12*time.Second {
		t.Errorf("voice options: STT %q listen %v, want %q 12s", o.STT, o.ListenFor, want)
	}

	// piper with a model that is not there stops start-up, naming the key.
	_, err = buildSynth(TTSConfig{Engine: "piper", PiperModel: "/nonexistent/voice.onnx", PiperBinary: "piper"}, slog.Default())
	if err == nil || !strings.Contains(err.Error(), "tts.piper_model") {
		t.Errorf("missing piper model: %v", err)
	}
}

// uncommented returns the example with every commented-out key and table
// header switched on, which is how a user edits it.
func uncommented(example string) string {
	re := regexp.MustCompile(`(?m)^# ?([a-z_]+ = |\[)`)
	return re.ReplaceAllString(example, "$1")
}

func TestExampleConfig(t *testing.T) {
	// As shipped (everything commented out) it is valid.
	var c Config
	b, err := os.ReadFile("../../claude-pi.example.toml")
	if err != nil {
		t.Fatal(err)
	}
	exampleConfig := string(b)
	if err := parseConfig("example", exampleConfig, &c); err != nil {
		t.Fatal(err)
	}
	// Uncommented it is valid too, covers every key, and its values are
	// the defaults it claims to show.
	text := uncommented(exampleConfig)
	c = Config{}
	md, err := toml.Decode(text, &c)
	if err != nil {
		t.Fatalf("uncommented example: %v\n%s", err, text)
	}
	if err := parseConfig("example", text, &Config{}); err != nil {
		t.Fatal(err)
	}
	for _, key := range configKeys(reflect.TypeFor[Config](), nil) {
		for i, k := range key {
			if k == "*" {
				key[i] = "ble" // the example shows one service table
			}
		}
		if !md.IsDefined(key...) {
			t.Errorf("example does not document key %q", strings.Join(key, "."))
		}
	}
	got, err := Resolve(c, "example", laptop())
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Resolve(Config{}, "example", laptop())
	// dtr and rts have no default (unset leaves the line alone), so the
	// example shows the value a user would set.
	if got.dock.DTR == nil || !*got.dock.DTR || got.dock.RTS == nil || !*got.dock.RTS {
		t.Errorf("example dtr/rts = %v/%v, want true/true", got.dock.DTR, got.dock.RTS)
	}
	got.dock.DTR, got.dock.RTS = nil, nil
	// volume has no default either (unset: the CoreS3 keeps its own).
	if got.dock.Volume == nil {
		t.Errorf("example volume unset, want a value shown")
	}
	got.dock.Volume = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("example's values differ from the defaults:\n got %+v\nwant %+v", got, want)
	}
}

// configKeys lists the TOML key paths of a config struct; map keys are "*".
func configKeys(t reflect.Type, prefix []string) [][]string {
	var keys [][]string
	for f := range t.Fields() {
		name := f.Tag.Get("toml")
		path := append(append([]string(nil), prefix...), name)
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft.Kind() == reflect.Struct && ft != reflect.TypeFor[Duration]():
			keys = append(keys, configKeys(ft, path)...)
		case ft.Kind() == reflect.Map:
			keys = append(keys, configKeys(ft.Elem(), append(path, "*"))...)
		default:
			keys = append(keys, path)
		}
	}
	return keys
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestAppliancePathsAreRunsPaths: status and pair --local find the data
// directory and socket where run keeps them, for every board on a laptop
// and on a Pi (they once disagreed for a HAT board configured off a Pi).
func TestAppliancePathsAreRunsPaths(t *testing.T) {
	pi := laptop()
	pi.PiModel = "Raspberry Pi 4 Model B Rev 1.5"
	for _, h := range []Host{laptop(), pi} {
		for _, board := range append([]string{"", "auto"}, boards.Names()...) {
			for _, c := range []Config{{Board: board}, {Board: board, DataDir: "/srv/cp"}, {Board: board, ControlSocket: "/tmp/x.sock"}} {
				s, err := Resolve(c, "test.toml", h)
				if err != nil {
					continue // run refuses it (board auto on a Pi)
				}
				dir, sock := AppliancePaths(c, h)
				if dir != s.dataDir || sock != s.controlSocket {
					t.Errorf("pi %q, %+v: AppliancePaths %s %s, run uses %s %s", h.PiModel, c, dir, sock, s.dataDir, s.controlSocket)
				}
			}
		}
	}
}

// TestHostileHATBoardListensNowhere: on a HAT board, by default, the
// appliance opens no TCP port: no web page, no NUS socket, no LAN API.
func TestHostileHATBoardListensNowhere(t *testing.T) {
	s, err := Resolve(Config{Board: "display-hat-mini"}, "test.toml", laptop())
	if err != nil {
		t.Fatal(err)
	}
	if s.http != "" || s.lan.listen != "" || s.simulated() {
		t.Fatalf("board display-hat-mini listens by default: http %q, lan %q, sim %v", s.http, s.lan.listen, s.simulated())
	}
	if s.ble.Backend == "sim" {
		t.Fatalf("board display-hat-mini serves NUS on a socket (backend %q at %q)", s.ble.Backend, s.ble.NUSListen)
	}

}

// TestUIUpdatesOnHATsOnly: the Pi's screen reads the Pi's update status;
// the sim, on a developer's machine, has no System page.
func TestUIUpdatesOnHATsOnly(t *testing.T) {
	sim, err := Resolve(Config{Board: "sim"}, DefaultConfigPath, laptop())
	if err != nil {
		t.Fatal(err)
	}
	if uiUpdates(sim) != nil {
		t.Error("the sim reads the update status: its System page would describe the developer's machine")
	}
	for _, name := range HATNames() {
		s, err := Resolve(Config{Board: name}, DefaultConfigPath, laptop())
		if err != nil {
			t.Fatalf("board %s: %v", name, err)
		}
		if uiUpdates(s) == nil {
			t.Errorf("board %s: no update status for the System page", name)
		}
	}
}
