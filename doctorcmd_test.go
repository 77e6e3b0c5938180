package main

import (
	"bytes"
	"context"
	"errors"
	"github.com/claude-pi/claude-pi/drivers/serial"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

func healthyPirate() map[string]string {
	return map[string]string{
		"dev/spidev0.1":                 "",
		"dev/spidev0.0":                 "",
		"dev/gpiochip0":                 "",
		"sys/class/bluetooth/hci0/name": "",
		"proc/asound/cards":             pirateCards,
		"boot/firmware/config.txt":      "[all]\ndtparam=spi=on\ndtoverlay=hifiberry-dac # Pirate Audio\ngpio=25=op,dh\n",
	}
}

func TestDoctor(t *testing.T) {
	tests := []struct {
		name   string
		board  string
		edit   func(map[string]string)
		ports  func() ([]*serial.PortDetails, error)
		failed []string // check names that must FAIL
		fixes  []string // text each failure's fix must contain, in order
		warn   bool     // CoreS3 WARN
	}{
		{name: "all good", board: "pirate-audio", ports: coreS3},
		{name: "spi off", board: "pirate-audio", ports: coreS3,
			edit:   func(f map[string]string) { delete(f, "dev/spidev0.1") },
			failed: []string{"SPI"}, fixes: []string{"add dtparam=spi=on"}},
		{name: "only CE0 present is still missing CE1", board: "display-hat-mini", ports: coreS3,
			edit:   func(f map[string]string) { delete(f, "dev/spidev0.1") },
			failed: []string{"SPI"}, fixes: []string{"dtparam=spi=on"}},
		{name: "no gpio, no bluetooth", board: "waveshare-lcd13", ports: coreS3,
			edit: func(f map[string]string) {
				delete(f, "dev/gpiochip0")
				delete(f, "sys/class/bluetooth/hci0/name")
			},
			failed: []string{"GPIO", "Bluetooth"}, fixes: []string{"gpiochip0", "rfkill unblock bluetooth"}},
		{name: "dac overlay missing", board: "pirate-audio", ports: coreS3,
			edit: func(f map[string]string) {
				f["proc/asound/cards"] = " 0 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones\n"
				f["boot/firmware/config.txt"] = "dtparam=spi=on\n#dtoverlay=hifiberry-dac\n"
			},
			failed: []string{"audio", "config.txt"},
			fixes:  []string{"dtoverlay=hifiberry-dac", "dtoverlay=hifiberry-dac; gpio=25=op,dh"}},
		{name: "no audio at all on a board without a DAC", board: "display-hat-mini", ports: coreS3,
			edit:   func(f map[string]string) { delete(f, "proc/asound/cards") },
			failed: []string{"audio"}, fixes: []string{"dtparam=audio=on"}},
		{name: "legacy config path", board: "display-hat-mini", ports: coreS3,
			edit: func(f map[string]string) {
				delete(f, "boot/firmware/config.txt")
				f["boot/config.txt"] = "dtparam=spi=on\n"
			}},
		{name: "no config.txt", board: "pirate-audio", ports: coreS3,
			edit:   func(f map[string]string) { delete(f, "boot/firmware/config.txt") },
			failed: []string{"config.txt"}, fixes: []string{"boot partition mounted"}},
		{name: "no CoreS3 only warns", board: "pirate-audio", ports: noPorts, warn: true},
		{name: "serial listing fails only warns", board: "pirate-audio", ports: brokenPorts, warn: true},
		{name: "sim needs no SPI or GPIO", board: "sim", ports: coreS3,
			edit: func(f map[string]string) {
				delete(f, "dev/spidev0.1")
				delete(f, "dev/gpiochip0")
			}},
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
			var failed, fixes []string
			warned := false
			for _, c := range cs {
				switch {
				case !c.ok && c.optional:
					warned = true
				case !c.ok:
					failed = append(failed, c.name)
					fixes = append(fixes, c.fix)
				}
			}
			if strings.Join(failed, ",") != strings.Join(tt.failed, ",") {
				t.Fatalf("failed checks %v, want %v (%+v)", failed, tt.failed, cs)
			}
			for i, want := range tt.fixes {
				if !strings.Contains(fixes[i], want) {
					t.Errorf("%s fix %q lacks %q", failed[i], fixes[i], want)
				}
			}
			if warned != tt.warn {
				t.Errorf("CoreS3 warned = %v, want %v", warned, tt.warn)
			}
			var out bytes.Buffer
			n := printChecks(&out, p, cs)
			if n != len(tt.failed) || strings.Count(out.String(), "FAIL") != n || strings.Count(out.String(), "fix: ") < n {
				t.Errorf("report counts %d failures:\n%s", n, out.String())
			}
		})
	}
}

func TestAsoundCards(t *testing.T) {
	got := asoundCards(pirateCards + "--- no soundcards ---\n")
	if strings.Join(got, ",") != "sndrpihifiberry,vc4hdmi" {
		t.Errorf("asoundCards = %q", got)
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
	if !strings.Contains(out.String(), "board waveshare-lcd13") || (err == nil && strings.Contains(out.String(), "FAIL")) {
		t.Errorf("doctor on this machine: %v\n%s", err, out.String())
	}
}
