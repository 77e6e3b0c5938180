package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/claude-pi/claude-pi/boards"
	"github.com/claude-pi/claude-pi/internal/appliance"
)

// TestDoctorPrintsPins: `claude-pi doctor --board NAME` lists every GPIO of
// the profile, which is where help config sends a user for the wiring.
func TestDoctorPrintsPins(t *testing.T) {
	for _, name := range appliance.HATNames() {
		p, err := boards.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		// The checks fail on this machine (no SPI, no HAT); the pins are
		// printed whatever they found.
		run(context.Background(), []string{"doctor", "--board", name}, nil, &out, &out)
		text := out.String()
		if !strings.Contains(text, "pins of "+name+":") || !strings.Contains(text, p.Display.Device()) {
			t.Errorf("doctor --board %s does not list the pins:\n%s", name, text)
		}
		for _, u := range p.Pins() {
			if !strings.Contains(text, u.Pin) || !strings.Contains(text, u.Use) {
				t.Errorf("doctor --board %s does not list %s (%s)", name, u.Pin, u.Use)
			}
		}
	}
	var out bytes.Buffer
	run(context.Background(), []string{"doctor", "--board", "sim"}, nil, &out, &out)
	if !strings.Contains(out.String(), "pins: none") {
		t.Errorf("doctor --board sim lists pins:\n%s", out.String())
	}
}

// TestConfigHelpNamesRealCommands: every `claude-pi WORD` that the example
// configuration mentions is a command.
func TestConfigHelpNamesRealCommands(t *testing.T) {
	for _, line := range strings.Split(ExampleConfig, "\n") {
		for _, part := range strings.Split(line, "`claude-pi ")[1:] {
			word, _, _ := strings.Cut(part, " ")
			word = strings.TrimRight(word, "`")
			if _, ok := lookupCommand(commandTable(), word); !ok {
				t.Errorf("the example configuration points to `claude-pi %s`, which is no command: %s", word, strings.TrimSpace(line))
			}
		}
	}
}
