package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/internal/appliance"
	"github.com/claude-pi/claude-pi/internal/appliance/appliancetest"
	"github.com/claude-pi/claude-pi/supervisor/ctlsock"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

func TestCommandLineErrors(t *testing.T) {
	tests := []struct {
		args     []string
		wantErr  string // "" = no error
		wantOut  string // in stdout
		wantCode int
	}{
		{[]string{"--version"}, "", "claude-pi dev", 0},
		{[]string{"version"}, "", "claude-pi dev", 0},
		{[]string{"help"}, "", "status [NAME]", 0},
		{[]string{"--help"}, "", "run the appliance", 0},
		{[]string{"help", "config"}, "", "[services.ble]", 0},
		{[]string{"help", "run"}, "", "-control-socket", 0},
		{[]string{"help", "nothing"}, `no command "nothing"`, "", 2},
		{[]string{"run", "--help"}, "", "", 0},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`, "", 2},
		{[]string{"run", "--no-such-flag"}, "run: flag provided but not defined: -no-such-flag", "", 2},
		{[]string{"--no-such-flag"}, "run: flag provided but not defined: -no-such-flag", "", 2},
		{[]string{"run", "surplus"}, `unexpected argument "surplus"`, "", 2},
		{[]string{"run", "--board"}, "flag needs an argument: -board", "", 2},
		{[]string{"run", "--board", "pi9", "--config", "/dev/null"}, `run: --board "pi9": unknown board (boards: auto, `, "", 2},
		// A wrong --board is the flag's fault, not a configuration file's
		// (that may not even exist).
		{[]string{"run", "--board", "pirate_audio"}, `run: --board "pirate_audio": unknown board; did you mean "pirate-audio"?`, "", 2},
		{[]string{"run", "--config", boardConfig(t, "pi9")}, `board = "pi9": unknown board`, "", 1},
		{[]string{"run", "--http", "nope", "--config", "/dev/null"}, `http = "nope"`, "", 1},
		{[]string{"run", "--nus-listen", "1.2.3.4", "--config", "/dev/null"}, `ble.nus_listen = "1.2.3.4"`, "", 1},
		{[]string{"run", "--log-level", "chatty", "--config", "/dev/null"}, `log_level = "chatty"`, "", 1},
		{[]string{"run", "--config", "/nonexistent/claude-pi.toml"}, "/nonexistent/claude-pi.toml", "", 1},
		{[]string{"status", "--bogus"}, "status: flag provided but not defined: -bogus", "", 2},
		{[]string{"status", "--control-socket", "/nonexistent/s.sock"}, "/nonexistent/s.sock", "", 1},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			err := run(ctx, tt.args, strings.NewReader(""), &stdout, &stderr)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("err = %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
			}
			if err != nil && exitCode(err) != tt.wantCode {
				t.Errorf("exit code %d, want %d", exitCode(err), tt.wantCode)
			}
			if !strings.Contains(stdout.String(), tt.wantOut) {
				t.Errorf("stdout %q does not contain %q", stdout.String(), tt.wantOut)
			}
		})
	}
}

// TestRunStopsOnCancel runs the whole appliance in-process: it must serve
// the control socket and the web API, and return nil within the shutdown
// deadline once its context ends, removing its socket.
func TestRunStopsOnCancel(t *testing.T) {
	r := startSimRun(t, "[services.audio]\nautostart = false\n")
	ctx, cancel, done, stderr, sock, web := context.Background(), r.cancel, r.done, r.stderr, r.sock, r.web
	var table bytes.Buffer
	if err := ctlsock.Status(ctx, sock, nil, &table); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ble", "buddy", "approvals", "lan", "dock", "ui"} {
		if !regexp.MustCompile(`(?m)^` + want + ` +RUNNING `).MatchString(table.String()) {
			t.Errorf("status has no RUNNING %s:\n%s", want, table.String())
		}
	}
	if !regexp.MustCompile(`(?m)^audio +STOPPED`).MatchString(table.String()) {
		t.Errorf("audio with autostart = false is not STOPPED:\n%s", table.String())
	}

	resp, err := http.Get(web + "/api/state")
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Board    string
		Services []struct{ Name, State string }
		LAN      *struct {
			Listen   string
			Clients  []any
			Pairing  *struct{ Code string }
			Sessions []any
		} `json:"lan"`
	}
	err = json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if err != nil || st.Board != "sim" || len(st.Services) != len(appliance.ServiceNames) {
		t.Errorf("/api/state = %+v, %v; want board sim and %d services", st, err, len(appliance.ServiceNames))
	}
	// The LAN bridge answers even while off: no clients, no pairing.
	if st.LAN == nil || st.LAN.Clients == nil || st.LAN.Sessions == nil || st.LAN.Pairing != nil {
		t.Errorf("/api/state lan = %+v, want the bridge's (empty) state", st.LAN)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run returned %v after cancel\n%s", err, stderr.String())
		}
	case <-time.After(appliance.ShutdownDeadline):
		t.Fatalf("run did not return within %v of cancel\n%s", appliance.ShutdownDeadline, stderr.String())
	}
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket still there after run returned: %v", err)
	}
}

// simRun is `claude-pi run` on the sim board, in-process, on free ports.
type simRun struct {
	web, sock string
	cancel    context.CancelFunc
	done      chan error // run's result, after cancel
	stderr    *supervisortest.SyncBuffer
}

// startSimRun runs the appliance with the configuration file text config
// until the test ends (or cancel), and waits for its web page.
func startSimRun(t *testing.T, config string) *simRun {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	appliancetest.WriteFile(t, cfg, config)
	ctx, cancel := context.WithCancel(context.Background())
	r := &simRun{sock: filepath.Join(dir, "s.sock"), cancel: cancel, done: make(chan error, 1), stderr: &supervisortest.SyncBuffer{}}
	var stdout supervisortest.SyncBuffer
	go func() {
		r.done <- run(ctx, []string{"run", "--config", cfg, "--board", "sim", "--data-dir", filepath.Join(dir, "data"),
			"--control-socket", r.sock, "--http", "127.0.0.1:0", "--nus-listen", "127.0.0.1:0"},
			strings.NewReader(""), &stdout, r.stderr)
	}()
	t.Cleanup(cancel)
	r.web = waitForWeb(t, &stdout, r.done, r.stderr)
	return r
}

var webLine = regexp.MustCompile(`web (http://\S+)`)

// waitForWeb waits for run's "Claude_Pi on board ..." line and returns the
// web URL in it.
func waitForWeb(t *testing.T, stdout *supervisortest.SyncBuffer, done <-chan error, stderr *supervisortest.SyncBuffer) string {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		if m := webLine.FindStringSubmatch(stdout.String()); m != nil {
			return m[1]
		}
		select {
		case err := <-done:
			t.Fatalf("run returned early: %v\n%s", err, stderr.String())
		case <-deadline:
			t.Fatalf("run never printed its address\n%s", stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// boardConfig is a configuration file that sets board = name.
func boardConfig(t *testing.T, name string) string {
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte("board = \""+name+"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSecondApplianceOnTheDataDir: `claude-pi run` itself refuses, before
// it binds a port, so the message is about the data dir.
func TestSecondApplianceOnTheDataDir(t *testing.T) {
	dir := t.TempDir()
	appliancetest.Start(t, filepath.Join(dir, "data"))
	err := run(context.Background(), []string{"run", "--config", "/dev/null", "--board", "sim", "--data-dir", filepath.Join(dir, "data"),
		"--control-socket", filepath.Join(dir, "s.sock"), "--http", "127.0.0.1:0", "--nus-listen", "127.0.0.1:0"},
		strings.NewReader(""), &supervisortest.SyncBuffer{}, &supervisortest.SyncBuffer{})
	if err == nil || !strings.Contains(err.Error(), "in use by another claude-pi (pid ") {
		t.Fatalf("run on a locked data dir: %v", err)
	}
}
