package appliance

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/boards"
	drv "github.com/claude-pi/claude-pi/drivers/ble"
	blesim "github.com/claude-pi/claude-pi/drivers/ble/sim"
	"github.com/claude-pi/claude-pi/internal/pisystem"
	"github.com/claude-pi/claude-pi/supervisor"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// TestServicesPerBoard builds the service list of every board without
// touching hardware: the same six services in the same order with the same
// dependencies everywhere, a radio link on a HAT, the socket link and the
// web page in sim.
func TestServicesPerBoard(t *testing.T) {
	want := []struct {
		name string
		deps []string
	}{
		{"ble", nil}, {"approvals", nil}, {"buddy", []string{"ble", "approvals"}},
		{"lan", []string{"approvals"}}, {"dock", []string{"approvals", "buddy", "lan"}},
		{"ui", []string{"approvals", "buddy", "ble", "dock", "lan"}}, {"audio", nil},
	}
	for _, board := range boards.Names() {
		t.Run(board, func(t *testing.T) {
			c := Config{Board: board, BLE: BLEConfig{NUSListen: "127.0.0.1:0"}}
			s, err := Resolve(c, "test", laptop())
			if err != nil {
				t.Fatal(err)
			}
			s.tts.Engine = "off"
			hw, release, err := boardHardware(s, slog.Default(), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			svcs := services(s, hw)
			if len(svcs) != len(want) {
				t.Fatalf("%d services, want %d", len(svcs), len(want))
			}
			for i, w := range want {
				if svcs[i].Name != w.name || !slices.Equal(svcs[i].DependsOn, w.deps) || svcs[i].New == nil {
					t.Errorf("service %d = %s %v, want %s %v", i, svcs[i].Name, svcs[i].DependsOn, w.name, w.deps)
				}
				if svcs[i].Policy != s.policies[w.name] {
					t.Errorf("service %s policy %+v", w.name, svcs[i].Policy)
				}
			}
			if (hw.web != nil) != (board == "sim") || hw.web != nil && (hw.web.Display != hw.board.Display || hw.web.Buttons != hw.board.Buttons) {
				t.Errorf("web server %+v: want the sim board's page on its screen and buttons, none on a HAT", hw.web)
			}
			_, isSim := hw.link.(*blesim.Link)
			_, isRadio := hw.link.(*drv.Reopening)
			if isSim != (board == "sim") || isRadio == (board == "sim") || (hw.board != nil) != (board == "sim") {
				t.Errorf("link %T, sim board %v", hw.link, hw.board != nil)
			}
			if board != "sim" && !hw.link.CanPair() {
				t.Error("the bluez link cannot pair")
			}
		})
	}
}

// Board sim with [ble] backend = "bluez": the simulated screen and buttons
// with the real radio, and no socket link (its address may even be taken).
func TestSimBoardWithTheBlueZBackend(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	c := Config{Board: "sim", BLE: BLEConfig{Backend: "bluez", NUSListen: taken.Addr().String()}}
	s, err := Resolve(c, "test", laptop())
	if err != nil {
		t.Fatal(err)
	}
	if s.http == "" {
		t.Error("board sim with bluez must keep the web page (the screen a test reads)")
	}
	s.tts.Engine = "off"
	hw, release, err := boardHardware(s, slog.Default(), nil)
	if err != nil {
		t.Fatalf("the sim link's address must not matter with backend bluez: %v", err)
	}
	defer release()
	if hw.board == nil || !hw.link.CanPair() {
		t.Fatalf("link %T (can pair %v), sim board %v: want the bluez link and the sim board", hw.link, hw.link.CanPair(), hw.board != nil)
	}
	if _, isSim := hw.link.(*blesim.Link); isSim {
		t.Fatal("backend bluez on board sim still got the socket link")
	}
}

// TestRunOnAHATWithoutHardware runs `claude-pi run --board pirate-audio`
// here, where there is neither SPI nor a BlueZ on a system bus: it must
// start, leave ui FATAL with the SPI fix, keep ble retrying, and run the
// dock and the rest.
func TestRunOnAHATWithoutHardware(t *testing.T) {
	if _, err := os.Stat("/dev/spidev0.1"); err == nil {
		t.Skip("this machine has SPI")
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	writeFile(t, cfg, "board = \"pirate-audio\"\n[tts]\nengine = \"off\"\n"+
		"[services.ui]\nmax_restarts = 1\nbackoff_min = \"5ms\"\nbackoff_max = \"10ms\"\n"+
		"[services.audio]\nmax_restarts = 1\nbackoff_min = \"5ms\"\nbackoff_max = \"10ms\"\n")
	c, err := LoadConfig(cfg, true)
	if err != nil {
		t.Fatal(err)
	}
	c.DataDir, c.ControlSocket = filepath.Join(dir, "data"), filepath.Join(dir, "s.sock")
	s, err := Resolve(c, cfg, laptop())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr supervisortest.SyncBuffer
	ready := make(chan Running, 1)
	done := make(chan error, 1)
	go func() { done <- ServeWith(ctx, s, &stdout, &stderr, Options{Ready: func(r Running) { ready <- r }}) }()
	var r Running
	select {
	case r = <-ready:
	case err := <-done:
		t.Fatalf("run returned %v\n%s", err, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("not ready\n%s", stderr.String())
	}
	if r.Board != nil || r.WebURL != "off" {
		t.Errorf("HAT run: sim board %v, web %s", r.Board != nil, r.WebURL)
	}
	p := supervisortest.WaitState(t, r.Tree, "ui", supervisor.Fatal)
	if !strings.HasPrefix(p.Description, "FATAL: ") || !strings.Contains(p.Description, "SPI not enabled: add dtparam=spi=on") {
		t.Errorf("ui: %q", p.Description)
	}
	for _, name := range []string{"dock", "approvals", "buddy"} {
		if p, _ := r.Tree.Process(name); p.State != supervisor.Running {
			t.Errorf("%s is %v (%s), want RUNNING", name, p.State, p.Description)
		}
	}
	// audio is RUNNING only if this machine has the HAT's sound card.
	profile, _ := boards.Lookup("pirate-audio")
	if found, _, _ := pisystem.SoundCard("/", profile, pisystem.Detect("/")); found {
		if a, _ := r.Tree.Process("audio"); a.State != supervisor.Running ||
			a.Description != "chimes play through the ui service on aplay -D plughw:CARD=sndrpihifiberry,DEV=0" {
			t.Errorf("audio: %v %q", a.State, a.Description)
		}
	} else if a := supervisortest.WaitState(t, r.Tree, "audio", supervisor.Fatal); !strings.Contains(a.Description, "chimes cannot play") {
		t.Errorf("audio without its sound card: %q", a.Description)
	}
	ble, _ := r.Tree.Process("ble")
	t.Logf("ble here: %v %s", ble.State, ble.Description)
	t.Logf("ui here: %s", p.Description)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestWebPageIsTheSimBoards: the web server is part of the sim's hardware
// (TestServicesPerBoard checks a HAT has none), and a run asked for one on
// a HAT (Resolve already refuses http off the sim) fails naming the key
// instead of drawing a framebuffer that does not exist.
func TestWebPageIsTheSimBoards(t *testing.T) {
	dir := t.TempDir()
	s, err := Resolve(Config{Board: "pirate-audio", DataDir: filepath.Join(dir, "data"), ControlSocket: filepath.Join(dir, "s.sock")}, "test", laptop())
	if err != nil {
		t.Fatal(err)
	}
	s.tts.Engine, s.http = "off", "127.0.0.1:0"
	err = ServeWith(context.Background(), s, io.Discard, io.Discard, Options{})
	if err == nil || !strings.Contains(err.Error(), `http = "127.0.0.1:0": board pirate-audio has no web page`) {
		t.Fatalf("http on a HAT board: %v", err)
	}
}

// TestServicesOf: part of the tree is the topology's rows, and a part
// missing a dependency or naming no service is refused.
func TestServicesOf(t *testing.T) {
	s, err := Resolve(Config{Board: "sim"}, "test", laptop())
	if err != nil {
		t.Fatal(err)
	}
	svcs, err := ServicesOf(s, "lan", "approvals")
	if err != nil || len(svcs) != 2 || svcs[0].Name != "approvals" || svcs[1].Name != "lan" ||
		!slices.Equal(svcs[1].DependsOn, []string{"approvals"}) || svcs[1].New == nil || svcs[1].Policy != s.policies["lan"] {
		t.Fatalf("ServicesOf(lan, approvals) = %+v, %v", svcs, err)
	}
	for _, names := range [][]string{{"buddy"}, {"approvals", "nosuch"}} {
		if _, err := ServicesOf(s, names...); err == nil {
			t.Errorf("ServicesOf(%v): no error", names)
		}
	}
}
