package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-pi/claude-pi/drivers/serial"
	"github.com/claude-pi/claude-pi/internal/pisystem"

	"github.com/claude-pi/claude-pi/boards"
)

// fakeRoot builds a root file system with the given files (contents may be
// empty) under t.TempDir().
func fakeRoot(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, s := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

var (
	coreS3 = func() ([]*serial.PortDetails, error) {
		return []*serial.PortDetails{{Name: "/dev/ttyACM0", IsUSB: true, VID: "303A", PID: "1001"}}, nil
	}
	noPorts     = func() ([]*serial.PortDetails, error) { return nil, nil }
	brokenPorts = func() ([]*serial.PortDetails, error) { return nil, errors.New("permission denied") }
)

const pirateCards = ` 0 [sndrpihifiberry]: RPi-simple - snd_rpi_hifiberry_dac
                      snd_rpi_hifiberry_dac
 1 [vc4hdmi        ]: vc4-hdmi - vc4-hdmi
                      vc4-hdmi
`

// healthyPirate is a Pirate Audio on Raspberry Pi OS with everything in
// place.
func healthyPirate() map[string]string {
	return map[string]string{
		"proc/device-tree/model":        "Raspberry Pi 4 Model B Rev 1.5\x00",
		"etc/rpi-issue":                 "Raspberry Pi reference 2025-11-24\n",
		"dev/spidev0.1":                 "",
		"dev/spidev0.0":                 "",
		"dev/gpiochip0":                 "",
		"sys/class/bluetooth/hci0/name": "",
		"proc/asound/cards":             pirateCards,
		"boot/firmware/config.txt":      "[all]\ndtparam=spi=on\ndtoverlay=hifiberry-dac # Pirate Audio\ngpio=25=op,dh\n",
	}
}

// asImage turns a fixture into the Claude_Pi image: its release file, and
// config.txt with the image's own overlays.
func asImage(f map[string]string) {
	delete(f, "etc/rpi-issue")
	f["etc/claude-pi-release"] = "VERSION=\"2026.12.01.120000+gabcdef12\"\n"
	f["boot/firmware/config.txt"] = "upstream_kernel=1\n[all]\ndtoverlay=claude-pi-spi0\ndtoverlay=claude-pi-i2s-dac\ngpio=25=op,dh\n"
}

// notPi is a laptop or container: no device tree, no Pi OS files.
func notPi(f map[string]string) {
	delete(f, "etc/rpi-issue")
	delete(f, "proc/device-tree/model")
	delete(f, "boot/firmware/config.txt")
}

func TestDoctor(t *testing.T) {
	tests := []struct {
		name   string
		board  string
		edit   func(map[string]string)
		ports  func() ([]*serial.PortDetails, error)
		failed []string // check names that must FAIL
		fixes  []string // text each failure's fix must contain, in order
		warned []string // check names that must WARN
		wfixes []string // text each warning's fix must contain, in order
	}{
		{name: "all good", board: "pirate-audio", ports: coreS3},
		{name: "all good on the image", board: "pirate-audio", ports: coreS3, edit: asImage},
		{name: "spi off", board: "pirate-audio", ports: coreS3,
			edit:   func(f map[string]string) { delete(f, "dev/spidev0.1") },
			failed: []string{"SPI"}, fixes: []string{"claude-pi setup --board pirate-audio (adds dtparam=spi=on"}},
		{name: "spi off on the image", board: "pirate-audio", ports: coreS3,
			edit:   func(f map[string]string) { asImage(f); delete(f, "dev/spidev0.1") },
			failed: []string{"SPI"}, fixes: []string{"dtoverlay=claude-pi-spi0"}},
		{name: "only CE0 present is still missing CE1", board: "display-hat-mini", ports: coreS3,
			edit:   func(f map[string]string) { delete(f, "dev/spidev0.1") },
			failed: []string{"SPI"}, fixes: []string{"dtparam=spi=on"}},
		{name: "no gpio, no bluetooth", board: "waveshare-lcd13", ports: coreS3,
			edit: func(f map[string]string) {
				delete(f, "dev/gpiochip0")
				delete(f, "sys/class/bluetooth/hci0/name")
			},
			failed: []string{"GPIO", "Bluetooth"}, fixes: []string{"gpiochip", "dtoverlay=disable-bt"}},
		{name: "a HAT board off a Pi", board: "waveshare-lcd13", ports: coreS3,
			edit: func(f map[string]string) {
				notPi(f)
				delete(f, "dev/spidev0.0")
				delete(f, "dev/gpiochip0")
			},
			failed: []string{"SPI", "GPIO"}, fixes: []string{"not a Raspberry Pi", "not a Raspberry Pi"}},
		{name: "dac overlay missing: config.txt fails, audio warns", board: "pirate-audio", ports: coreS3,
			edit: func(f map[string]string) {
				f["proc/asound/cards"] = " 0 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones\n"
				f["boot/firmware/config.txt"] = "dtparam=spi=on\n#dtoverlay=hifiberry-dac\n"
			},
			failed: []string{"config.txt"}, fixes: []string{"dtoverlay=hifiberry-dac; gpio=25=op,dh"},
			warned: []string{"audio"}, wfixes: []string{"adds dtoverlay=hifiberry-dac"}},
		{name: "dac overlay off on the image", board: "pirate-audio", ports: coreS3,
			edit: func(f map[string]string) {
				asImage(f)
				delete(f, "proc/asound/cards")
				f["boot/firmware/config.txt"] = "[all]\ndtoverlay=claude-pi-spi0\n#dtoverlay=claude-pi-i2s-dac\n"
			},
			failed: []string{"config.txt"}, fixes: []string{"dtoverlay=claude-pi-i2s-dac; gpio=25=op,dh"},
			warned: []string{"audio"}, wfixes: []string{"no DMA"}},
		{name: "no audio at all on a board without a DAC only warns", board: "display-hat-mini", ports: coreS3,
			edit:   func(f map[string]string) { delete(f, "proc/asound/cards") },
			warned: []string{"audio"}, wfixes: []string{"dtparam=audio=on"}},
		{name: "legacy config path", board: "display-hat-mini", ports: coreS3,
			edit: func(f map[string]string) {
				delete(f, "boot/firmware/config.txt")
				f["boot/config.txt"] = "dtparam=spi=on\n"
			}},
		{name: "no config.txt", board: "pirate-audio", ports: coreS3,
			edit:   func(f map[string]string) { delete(f, "boot/firmware/config.txt") },
			failed: []string{"config.txt"}, fixes: []string{"boot partition mounted"}},
		{name: "no CoreS3 only warns", board: "pirate-audio", ports: noPorts,
			warned: []string{"CoreS3"}, wfixes: []string{"USB data port"}},
		{name: "serial listing fails only warns", board: "pirate-audio", ports: brokenPorts,
			warned: []string{"CoreS3"}, wfixes: []string{"/sys/class/tty"}},
		{name: "sim needs no SPI or GPIO", board: "sim", ports: coreS3,
			edit: func(f map[string]string) {
				delete(f, "dev/spidev0.1")
				delete(f, "dev/gpiochip0")
			}},
		{name: "sim off a Pi needs no Bluetooth and no audio", board: "sim", ports: noPorts,
			edit: func(f map[string]string) {
				notPi(f)
				delete(f, "sys/class/bluetooth/hci0/name")
				delete(f, "proc/asound/cards")
			},
			warned: []string{"Bluetooth", "audio", "CoreS3"}, wfixes: []string{"USB Bluetooth adapter", "USB sound card", "USB"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := healthyPirate()
			if tt.edit != nil {
				tt.edit(files)
			}
			p, err := boards.Lookup(tt.board)
			if err != nil {
				t.Fatal(err)
			}
			cs := doctor{root: fakeRoot(t, files), enumerate: tt.ports}.run(p)
			var failed, fixes, warned, wfixes []string
			for _, c := range cs {
				switch {
				case !c.ok && c.optional:
					warned = append(warned, c.name)
					wfixes = append(wfixes, c.fix)
				case !c.ok:
					failed = append(failed, c.name)
					fixes = append(fixes, c.fix)
				}
			}
			if strings.Join(failed, ",") != strings.Join(tt.failed, ",") {
				t.Fatalf("failed checks %v, want %v (%+v)", failed, tt.failed, cs)
			}
			if strings.Join(warned, ",") != strings.Join(tt.warned, ",") {
				t.Fatalf("warned checks %v, want %v (%+v)", warned, tt.warned, cs)
			}
			for i, want := range tt.fixes {
				if !strings.Contains(fixes[i], want) {
					t.Errorf("%s fix %q lacks %q", failed[i], fixes[i], want)
				}
			}
			for i, want := range tt.wfixes {
				if !strings.Contains(wfixes[i], want) {
					t.Errorf("%s fix %q lacks %q", warned[i], wfixes[i], want)
				}
			}
			var out bytes.Buffer
			n := printChecks(&out, p, cs)
			if n != len(tt.failed) || strings.Count(out.String(), "FAIL") != n || strings.Count(out.String(), "WARN") != len(tt.warned) {
				t.Errorf("report counts %d failures:\n%s", n, out.String())
			}
		})
	}
}

func TestDetectSystem(t *testing.T) {
	pi5 := map[string]string{"proc/device-tree/model": "Raspberry Pi 5 Model B Rev 1.0\x00"}
	for _, tc := range []struct {
		name  string
		files map[string]string
		kind  pisystem.Kind
		desc  string
	}{
		{"the image", map[string]string{"etc/claude-pi-release": "VERSION=\"2026.12.01.1+gab\"\n", "proc/device-tree/model": "Raspberry Pi 3 Model B Rev 1.2\x00"},
			pisystem.ClaudePiImage, "Claude_Pi image 2026.12.01.1+gab on Raspberry Pi 3 Model B Rev 1.2"},
		{"Pi OS on a Pi 5", map[string]string{"etc/rpi-issue": "", "etc/os-release": "VERSION_CODENAME=trixie\n", "proc/device-tree/model": pi5["proc/device-tree/model"]},
			pisystem.RaspberryPiOS, "Raspberry Pi OS (trixie) on Raspberry Pi 5 Model B Rev 1.0"},
		{"Pi OS by its apt source", map[string]string{"etc/apt/sources.list.d/raspi.sources": ""}, pisystem.RaspberryPiOS,
			"Raspberry Pi OS on an unknown machine (no /proc/device-tree/model)"},
		{"Ubuntu on a Pi", map[string]string{"etc/os-release": "PRETTY_NAME=\"Ubuntu 24.04 LTS\"\n", "proc/device-tree/model": "Raspberry Pi 4 Model B\x00"},
			pisystem.OtherPi, "Ubuntu 24.04 LTS on Raspberry Pi 4 Model B"},
		{"an arm board", map[string]string{"proc/device-tree/model": "Pine64 RockPro64\x00"}, pisystem.NotAPi, "not a Raspberry Pi (Pine64 RockPro64)"},
		{"a laptop", map[string]string{}, pisystem.NotAPi, "not a Raspberry Pi (no Raspberry Pi device tree)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := pisystem.Detect(fakeRoot(t, tc.files))
			if s.Kind != tc.kind || s.Describe() != tc.desc {
				t.Errorf("kind %v %q, want %v %q", s.Kind, s.Describe(), tc.kind, tc.desc)
			}
		})
	}
	if !pisystem.Detect(fakeRoot(t, pi5)).IsPi5() {
		t.Error("a Pi 5 is not a Pi 5")
	}
}

func TestDoctorCommand_usage(t *testing.T) {
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"doctor", "--board", "nope"}, nil, &out, &errb)
	if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), "pirate-audio") {
		t.Errorf("unknown board: %v (exit %d)", err, exitCode(err))
	}
	out.Reset()
	if err := run(context.Background(), []string{"help", "doctor"}, nil, &out, &errb); err != nil || !strings.Contains(out.String(), "--board") {
		t.Errorf("help doctor: %v\n%s", err, out.String())
	}
	out.Reset()
	// This machine is not a Pi with a HAT: the real command must run, print
	// a report and fail rather than crash.
	err = run(context.Background(), []string{"doctor", "--board", "waveshare-lcd13"}, nil, &out, &errb)
	if !strings.Contains(out.String(), "board waveshare-lcd13") || !strings.Contains(out.String(), "system: ") ||
		(err == nil && strings.Contains(out.String(), "FAIL")) {
		t.Errorf("doctor on this machine: %v\n%s", err, out.String())
	}
}

// doctor says how the board was chosen (issue 35 item 4), and when board
// auto cannot choose, why.
func TestDoctorSaysHowTheBoardWasChosen(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := doctorCommand(context.Background(), []string{"--board", "sim"}, nil, &out, &errOut); err != nil {
		t.Fatal(err, errOut.String())
	}
	if !strings.Contains(out.String(), "board chosen: set: --board sim\n") {
		t.Fatalf("stdout:\n%s", out.String())
	}
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte("board = \"auto\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := boards.ReadHAT("/"); ok {
		t.Skip("this machine has a HAT ID EEPROM")
	}
	err := doctorCommand(context.Background(), []string{"--config", cfg}, nil, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "board auto cannot choose: no HAT ID EEPROM") {
		t.Fatalf("err = %v", err)
	}
}
