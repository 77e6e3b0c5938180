package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
	"github.com/claude-pi/claude-pi/actors/lan"
	"github.com/claude-pi/claude-pi/internal/appliance"
	"github.com/claude-pi/claude-pi/internal/client"
	"github.com/claude-pi/claude-pi/supervisor"
	"github.com/claude-pi/claude-pi/supervisor/ctlsock"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// runPair runs `claude-pi pair ARGS` and returns its stdout.
func runPair(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := run(context.Background(), append([]string{"pair"}, args...), strings.NewReader(""), &out, io.Discard)
	return out.String(), err
}

// shortSocket is a unix socket path under the 107-byte limit, which
// t.TempDir's long names can exceed.
func shortSocket(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "cp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "s.sock")
}

// emptyConfig is an appliance configuration file with no keys.
func emptyConfig(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPairLocalRevokeRunning: on the Pi, `pair --local --revoke` while
// the appliance runs and a prompt of that computer is on screen: the
// prompt leaves, the hook gets no decision, and the computer's next
// request is refused and never shown.
func TestPairLocalRevokeRunning(t *testing.T) {
	t.Setenv("CLAUDE_CODE_ENTRYPOINT", "cli")
	p := startPi(t)
	laptop := pairCLI(t, p, "laptop")
	desk := pairCLI(t, p, "desk")
	sock := shortSocket(t)
	srv, err := ctlsock.Listen(sock, p.tree, ctlsock.Options{Methods: appliance.ControlMethods(p.tree)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	local := []string{"--local", "--appliance-config", emptyConfig(t), "--data-dir", p.data, "--control-socket", sock}

	out, err := runPair(t, append(local, "--list")...)
	if err != nil || !strings.Contains(out, "laptop\tpaired ") || !strings.Contains(out, "desk\tpaired ") {
		t.Fatalf("list: %v\n%s", err, out)
	}

	h := startHook(laptop, nil, hookPermissionJSON)
	waitPrompt(t, p)
	out, err = runPair(t, append(local, "--revoke", "laptop")...)
	if err != nil || out != "revoked laptop: the appliance refuses it from now on\n" {
		t.Fatalf("revoke: %v\n%s", err, out)
	}
	if got := h.Wait(t); got != "" {
		t.Fatalf("the revoked computer's pending hook printed %q", got)
	}
	supervisortest.WaitFor(t, "the revoked computer's prompt off the screen", func() bool { return len(p.pending(t)) == 0 })
	if got := startHook(laptop, nil, hookPermissionJSON).Wait(t); got != "" {
		t.Fatalf("revoked computer got %q", got)
	}
	if n := len(p.pending(t)); n != 0 || p.state(t).Pending != 0 {
		t.Fatalf("a revoked computer's request was shown (%d)", n)
	}
	// desk is untouched: its prompt shows.
	// Denied on the Pi rather than left to a short --timeout, which a
	// loaded machine could spend before the prompt was even shown.
	h = startHook(desk, nil, hookPermissionJSON)
	pv := waitPrompt(t, p)
	p.system.Root.Send(supervisor.ServicePID(p.system, "approvals"), approvals.Decide{Source: pv.Source, ID: pv.ID, Decision: approvals.Deny, By: "Claude_Pi"})
	h.Wait(t)

	var onDisk []lan.Client
	b, _ := os.ReadFile(filepath.Join(p.data, "lan", "clients.json"))
	if err := json.Unmarshal(b, &onDisk); err != nil || len(onDisk) != 1 || onDisk[0].Name != "desk" {
		t.Fatalf("clients.json after revoke: %v %s", err, b)
	}
	if out, _ := runPair(t, append(local, "--list")...); strings.Contains(out, "laptop") {
		t.Fatalf("list after revoke:\n%s", out)
	}
	if _, err := runPair(t, append(local, "--revoke", "laptop")...); err == nil || !strings.Contains(err.Error(), `no computer called "laptop"`) {
		t.Fatalf("second revoke: %v", err)
	}
	// The running appliance revokes, not the CLI: pointed at a data dir
	// with no clients.json, the CLI still revokes desk through the socket,
	// and the lan writes its own file.
	elsewhere := []string{"--local", "--appliance-config", emptyConfig(t), "--data-dir", t.TempDir(), "--control-socket", sock}
	if out, err := runPair(t, append(elsewhere, "--revoke", "desk")...); err != nil || !strings.HasPrefix(out, "revoked desk: ") {
		t.Fatalf("revoke through the socket alone: %v\n%s", err, out)
	}
	b, _ = os.ReadFile(filepath.Join(p.data, "lan", "clients.json"))
	if err := json.Unmarshal(b, &onDisk); err != nil || len(onDisk) != 0 {
		t.Fatalf("clients.json after the lan revoked desk: %v %s", err, b)
	}
}

// TestPairLocalRevokeStopped: with the appliance down, revoke edits the
// file; the next start refuses the computer.
func TestPairLocalRevokeStopped(t *testing.T) {
	data := t.TempDir()
	clients := []lan.Client{{Name: "laptop", Fingerprint: strings.Repeat("a", 64), Paired: time.Unix(1e9, 0).UTC()}, {Name: "desk", Fingerprint: strings.Repeat("b", 64)}}
	b, _ := json.Marshal(clients)
	os.MkdirAll(filepath.Join(data, "lan"), 0o700)
	if err := os.WriteFile(filepath.Join(data, "lan", "clients.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	local := []string{"--local", "--appliance-config", emptyConfig(t), "--data-dir", data, "--control-socket", shortSocket(t)}
	out, err := runPair(t, append(local, "--list")...)
	if err != nil || out != "laptop\tpaired 2001-09-09\tcertificate aaaaaaaaaaaaaaaa…\ndesk\tpaired 0001-01-01\tcertificate bbbbbbbbbbbbbbbb…\n" {
		t.Fatalf("list: %v\n%q", err, out)
	}
	out, err = runPair(t, append(local, "--revoke", "laptop")...)
	if err != nil || !strings.Contains(out, "revoked laptop (the appliance is not running") {
		t.Fatalf("revoke: %v\n%s", err, out)
	}
	if out, _ := runPair(t, append(local, "--list")...); strings.Contains(out, "laptop") || !strings.Contains(out, "desk") {
		t.Fatalf("list after revoke:\n%s", out)
	}
	// A stale socket file (the appliance crashed) is also "not running".
	stale := filepath.Join(filepath.Dir(local[len(local)-1]), "s.sock")
	os.WriteFile(stale, nil, 0o600)
	if out, err := runPair(t, append(local, "--revoke", "desk")...); err != nil || !strings.Contains(out, "not running") {
		t.Fatalf("revoke with a stale socket: %v\n%s", err, out)
	}
}

// TestPairLocalRevokeRefusesLinks is issue 23 item 5: lan/ belongs to the
// appliance's user, and `sudo claude-pi pair --local --revoke` must not
// follow a link that user put there (to make root rewrite, or copy the
// owner of, another file). The link's target is left alone.
func TestPairLocalRevokeRefusesLinks(t *testing.T) {
	data := t.TempDir()
	target := filepath.Join(t.TempDir(), "precious.json")
	b, _ := json.Marshal([]lan.Client{{Name: "laptop", Fingerprint: strings.Repeat("a", 64)}})
	if err := os.WriteFile(target, b, 0o644); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(data, "lan"), 0o700)
	if err := os.Symlink(target, filepath.Join(data, "lan", "clients.json")); err != nil {
		t.Fatal(err)
	}
	local := []string{"--local", "--appliance-config", emptyConfig(t), "--data-dir", data, "--control-socket", shortSocket(t)}
	for _, args := range [][]string{{"--revoke", "laptop"}, {"--list"}} {
		if _, err := runPair(t, append(local, args...)...); err == nil || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("pair --local %v through a link: %v, want a refusal", args, err)
		}
	}
	if after, _ := os.ReadFile(target); !bytes.Equal(after, b) {
		t.Fatalf("the link's target was rewritten: %s", after)
	}
}

func TestPairLocalUsage(t *testing.T) {
	dirs := []string{"--appliance-config", emptyConfig(t), "--data-dir", t.TempDir()}
	for _, args := range [][]string{
		{"--local"},
		{"--local", "--list", "--revoke", "x"},
		{"--local", "--list", "host"},
	} {
		_, err := runPair(t, append(args, dirs...)...)
		if !errors.As(err, new(usageError)) {
			t.Errorf("pair %v: %v, want a usage error", args, err)
		}
	}
	if out, err := runPair(t, append([]string{"--local", "--list"}, dirs...)...); err != nil || !strings.HasPrefix(out, "no computers paired") {
		t.Errorf("empty list: %v %q", err, out)
	}
	missing := []string{"--local", "--list", "--appliance-config", filepath.Join(t.TempDir(), "none.toml")}
	if _, err := runPair(t, missing...); err == nil || !strings.Contains(err.Error(), "none.toml") {
		t.Errorf("a missing --appliance-config: %v", err)
	}
	var help bytes.Buffer
	run(context.Background(), []string{"pair", "--help"}, nil, io.Discard, &help)
	if !strings.Contains(help.String(), "claude-pi pair --local --revoke NAME") || !strings.Contains(help.String(), "-appliance-config") {
		t.Errorf("help does not document --local:\n%s", help.String())
	}
}

// TestPairFlagsAfterHost: flags may follow the host, as in
// `claude-pi pair 192.168.1.20 --yes`; a refused connection then says that
// the LAN bridge is off by default and which key turns it on.
func TestPairFlagsAfterHost(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: a Pi with [lan] listen off
	_, err = runPair(t, addr, "--yes", "--config", t.TempDir(), "--name", "desk")
	if err == nil || errors.As(err, new(usageError)) {
		t.Fatalf("pair HOST --yes: %v, want a connection error", err)
	}
	for _, want := range []string{"connection refused", "off by default", "[lan]", `listen = ":7787"`, "/etc/claude-pi/config.toml"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refused: %v\nwant it to say %q", err, want)
		}
	}
	if _, err := runPair(t, "a", "--yes", "b", "--config", t.TempDir()); !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), "one host") {
		t.Errorf("two hosts: %v, want a usage error", err)
	}
}

// TestPairHintNamesTheApplianceConfig: the client's hint for a Pi whose
// LAN bridge is off names the file the appliance reads.
func TestPairHintNamesTheApplianceConfig(t *testing.T) {
	if client.ApplianceConfigPath != appliance.DefaultConfigPath {
		t.Fatalf("client.ApplianceConfigPath %q, the appliance reads %q", client.ApplianceConfigPath, appliance.DefaultConfigPath)
	}
}

func TestParseInterleaved(t *testing.T) {
	for _, tt := range []struct {
		args, pos []string
		yes       bool
	}{
		{[]string{"h", "--yes"}, []string{"h"}, true},
		{[]string{"--yes", "h"}, []string{"h"}, true},
		{[]string{"h", "i", "--yes"}, []string{"h", "i"}, true},
		{[]string{"h", "--", "--yes"}, []string{"h", "--yes"}, false},
		{nil, nil, false},
	} {
		fs := newFlagSet("t", "", io.Discard)
		yes := fs.Bool("yes", false, "")
		pos, help, err := parseInterleaved(fs, tt.args)
		if err != nil || help || !slices.Equal(pos, tt.pos) || *yes != tt.yes {
			t.Errorf("%q: pos %q yes %v (help %v, err %v), want %q %v", tt.args, pos, *yes, help, err, tt.pos, tt.yes)
		}
	}
}
