package e2e

// The Pi's own way out of a stuck Bluetooth pairing, end to end on the sim
// appliance: the sim's buttons through the web API, the ui, the ble
// service and its sim backend, and /api/state as a script reads the
// screen. The sim link cannot pair, so the answer is "nothing to forget";
// drivers/ble/bluez/vmtest runs the same presses against bluetoothd.

import (
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/ui"
	"github.com/claude-pi/claude-pi/internal/appliance/appliancetest/fakedesktop"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

func TestForgetPairingFromButtonsE2E(t *testing.T) {
	e2e(t)
	a := startApplianceWith(t, nil)
	screen := func() (string, map[string]any) {
		st := a.APIState(t)
		f, _ := st["forget"].(map[string]any)
		s, _ := st["shows"].(string)
		return s, f
	}

	// With a prompt pending nothing reaches the forget screen: the Links
	// page never shows, and a hold decides nothing either.
	d := a.Dial(t, &fakedesktop.Options{StatusEvery: 200 * time.Millisecond, Debounce: 20 * time.Millisecond})
	d.SetPrompt("req_forget", "Bash", "git push")
	a.awaitPrompt(t, "req_forget")
	a.Press(t, "X")
	a.Hold(t, "A")
	supervisortest.Within(t, 5*time.Second, "both presses handled", func() bool { return a.UIStats(t).Presses >= 2 })
	if s, f := screen(); s != string(ui.ScreenApproval) || f != nil {
		t.Fatalf("next and a hold with a prompt pending: shows %q, forget %v; want the prompt, untouched", s, f)
	}
	if n := a.UIStats(t).Decisions; n != 0 {
		t.Fatalf("the hold decided the prompt (%d decisions)", n)
	}
	d.ClearPrompt()
	supervisortest.Within(t, 15*time.Second, "the prompt gone", func() bool { return len(a.UIView(t).Prompts) == 0 })

	a.Press(t, "X")
	supervisortest.Within(t, 5*time.Second, "the Links page", func() bool { v := a.UIView(t); return v.Screen == ui.ScreenInfo && v.Page == 1 })
	a.Hold(t, "A")
	supervisortest.Within(t, 5*time.Second, "the question", func() bool { s, f := screen(); return s == string(ui.ScreenForget) && f["step"] == "asking" })
	before := a.UIStats(t).Presses
	a.Press(t, "A")
	supervisortest.Within(t, 5*time.Second, "the short press handled", func() bool { return a.UIStats(t).Presses == before+1 })
	if _, f := screen(); f["step"] != "asking" {
		t.Fatalf("a short A on the question: forget %v, want still asking", f)
	}
	a.Hold(t, "A")
	supervisortest.Within(t, 5*time.Second, "the answer", func() bool { _, f := screen(); return f["step"] == "done" })
	if _, f := screen(); f["noBonds"] != true || f["removed"] != 0.0 || f["err"] != nil {
		t.Fatalf("the sim link's answer %v, want noBonds (it cannot pair)", f)
	}
	if got := a.Logs.String(); !strings.Contains(got, "no bonds to forget") {
		t.Fatalf("the ble service logged no answer:\n%s", got)
	}
	a.Press(t, "B")
	supervisortest.Within(t, 5*time.Second, "the Links page back", func() bool { s, f := screen(); return s == string(ui.ScreenInfo) && f == nil })
}
