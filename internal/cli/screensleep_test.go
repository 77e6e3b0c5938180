package cli

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/internal/appliance/appliancetest"
	"github.com/claude-pi/claude-pi/internal/appliance/webapi"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// TestSimScreenSleepsAndWakes: with [ui] screen_timeout the sim's screen
// goes to sleep, /api/state and the PNG's header say so, and a press wakes
// it.
func TestSimScreenSleepsAndWakes(t *testing.T) {
	appliancetest.E2E(t)
	r := startSimRun(t, "[ui]\nscreen_timeout = \"5s\"\n[services.audio]\nautostart = false\n")
	defer func() { r.cancel(); <-r.done }()
	web := r.web

	screen := func() (state, header string) {
		t.Helper()
		resp, err := http.Get(web + "/api/state")
		if err != nil {
			t.Fatal(err)
		}
		var st webapi.State
		err = json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		resp, err = http.Get(web + "/api/screen.png")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return st.Screen, resp.Header.Get(webapi.ScreenStateHeader)
	}
	if st, h := screen(); st != webapi.ScreenOn || h != webapi.ScreenOn {
		t.Fatalf("just started: state %q, header %q, want on", st, h)
	}
	supervisortest.Within(t, 20*time.Second, "the screen asleep after its 5 s timeout", func() bool {
		st, h := screen()
		return st == webapi.ScreenAsleep && h == webapi.ScreenAsleep
	})
	resp, err := http.Post(web+"/api/press/A", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	supervisortest.Within(t, 10*time.Second, "a press to wake the screen", func() bool {
		st, h := screen()
		return st == webapi.ScreenOn && h == webapi.ScreenOn
	})
}
