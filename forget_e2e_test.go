package main

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
	"github.com/claude-pi/claude-pi/boards/sim/desktop"
)

func TestForgetPairingFromButtonsE2E(t *testing.T) {
	e2e(t)
	a := startApplianceWith(t, nil)
	screen := func() (string, map[string]any) {
		st := a.apiState(t)
		f, _ := st["forget"].(map[string]any)
		s, _ := st["shows"].(string)
		return s, f
	}

	// With a prompt pending nothing reaches the forget screen: the Links
	// page never shows, and a hold decides nothing either.
	d := a.dial(t, &desktop.Options{StatusEvery: 200 * time.Millisecond, Debounce: 20 * time.Millisecond})
	d.SetPrompt("req_forget", "Bash", "git push")
	a.awaitPrompt(t, "req_forget")
	a.press(t, "X")
	a.hold(t, "A")
	poll(t, 5*time.Second, "both presses handled", func() bool { return a.uiView(t).Presses >= 2 })
	if s, f := screen(); s != string(ui.ScreenApproval) || f != nil {
		t.Fatalf("next and a hold with a prompt pending: shows %q, forget %v; want the prompt, untouched", s, f)
	}
	if v := a.uiView(t); v.Decisions != 0 {
		t.Fatalf("the hold decided the prompt (%d decisions)", v.Decisions)
	}
	d.ClearPrompt()
	poll(t, 15*time.Second, "the prompt gone", func() bool { return len(a.uiView(t).Prompts) == 0 })

	a.press(t, "X")
	poll(t, 5*time.Second, "the Links page", func() bool { v := a.uiView(t); return v.Screen == ui.ScreenInfo && v.Page == 1 })
	a.hold(t, "A")
	poll(t, 5*time.Second, "the question", func() bool { s, f := screen(); return s == string(ui.ScreenForget) && f["step"] == "asking" })
	before := a.uiView(t).Presses
	a.press(t, "A")
	poll(t, 5*time.Second, "the short press handled", func() bool { return a.uiView(t).Presses == before+1 })
	if _, f := screen(); f["step"] != "asking" {
		t.Fatalf("a short A on the question: forget %v, want still asking", f)
	}
	a.hold(t, "A")
	poll(t, 5*time.Second, "the answer", func() bool { _, f := screen(); return f["step"] == "done" })
	if _, f := screen(); f["noBonds"] != true || f["removed"] != 0.0 || f["err"] != nil {
		t.Fatalf("the sim link's answer %v, want noBonds (it cannot pair)", f)
	}
	if got := a.logs.String(); !strings.Contains(got, "no bonds to forget") {
		t.Fatalf("the ble service logged no answer:\n%s", got)
	}
	a.press(t, "B")
	poll(t, 5*time.Second, "the Links page back", func() bool { s, f := screen(); return s == string(ui.ScreenInfo) && f == nil })
}
