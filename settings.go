package main

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/claude-pi/claude-pi/boards"
	"github.com/claude-pi/claude-pi/supervisor"
)

// host is what the defaults depend on, gathered once so tests can fake it.
type host struct {
	piModel string // non-empty on a Raspberry Pi
	getenv  func(string) string
	home    string
}

func thisHost() host {
	model, _ := boards.PiModel("/")
	home, _ := os.UserHomeDir()
	return host{piModel: model, getenv: os.Getenv, home: home}
}

// settings is the configuration resolved for one board: every default
// filled in, every value checked.
type settings struct {
	configPath    string
	board         string
	dataDir       string
	controlSocket string
	controlGroup  string
	http          string // "" = off
	logLevel      slog.Level
	ble           BLEConfig
	dock          DockConfig
	policies      map[string]supervisor.Policy
}

// resolve picks the board, fills the board's defaults into c and
// validates the result. Errors name the key and say how to fix it.
func resolve(c Config, configPath string, h host) (settings, error) {
	s := settings{configPath: configPath, controlGroup: c.ControlGroup, ble: c.BLE, dock: c.Dock}
	fail := func(err error) (settings, error) {
		return settings{}, fmt.Errorf("config %s: %w", configPath, err)
	}

	board := c.Board
	if board == "" {
		board = "auto"
	}
	if !slices.Contains(boardNames, board) {
		return fail(fmt.Errorf("board = %q: unknown board (boards: %s)", board, strings.Join(boardNames, ", ")))
	}
	if board == "auto" {
		// On a Pi the appliance is meant to drive real hardware; quietly
		// running the simulator there would look like broken hardware.
		if h.piModel != "" {
			return fail(fmt.Errorf("board auto: no HAT configured: set board = \"pirate-audio\" (or another HAT) in %s, "+
				"or board = \"sim\" to run the simulator on this %s; HAT boards are not built yet, so today only \"sim\" works", configPath, h.piModel))
		}
		board = "sim"
	}
	s.board = board

	// Only the sim board exists, so only its defaults are reachable today;
	// the Pi's (/var/lib/claude-pi, /run/supervisor.sock, web off) arrive
	// with the first HAT board.
	s.dataDir = c.DataDir
	if s.dataDir == "" {
		s.dataDir = simDataDir(h)
	}
	s.controlSocket = c.ControlSocket
	if s.controlSocket == "" {
		s.controlSocket = simControlSocket(h, s.dataDir)
	}
	if err := validateSocketPath("control_socket", s.controlSocket); err != nil {
		return fail(err)
	}
	s.http = simHTTP
	if c.HTTP != nil {
		s.http = *c.HTTP
	}
	if s.http == "off" {
		s.http = ""
	}
	if s.http != "" {
		if err := validateAddr("http", s.http); err != nil {
			return fail(err)
		}
	}

	level := c.LogLevel
	if level == "" {
		level = "info"
	}
	if !slices.Contains(logLevels, level) {
		return fail(fmt.Errorf("log_level = %q: want one of %s", level, strings.Join(logLevels, ", ")))
	}
	_ = s.logLevel.UnmarshalText([]byte(level))

	if s.ble.Name == "" {
		s.ble.Name = defaultName
	}
	if !strings.HasPrefix(s.ble.Name, "Claude") || len(s.ble.Name) > 20 {
		return fail(fmt.Errorf("ble.name = %q: must start with \"Claude\" (the desktop app lists only such devices) and be at most 20 bytes", s.ble.Name))
	}
	if s.ble.Security == "" {
		s.ble.Security = "bonded"
	}
	if !slices.Contains(securityModes, s.ble.Security) {
		return fail(fmt.Errorf("ble.security = %q: want \"bonded\" or \"open\"", s.ble.Security))
	}
	if s.ble.NUSListen == "" {
		s.ble.NUSListen = simNUSListen
	}
	if err := validateNUSListen(s.ble.NUSListen); err != nil {
		return fail(err)
	}
	if s.ble.MTU == 0 {
		s.ble.MTU = simMTU
	}
	if s.ble.MTU < 23 || s.ble.MTU > 517 {
		return fail(fmt.Errorf("ble.mtu = %d: an ATT MTU is 23..517", s.ble.MTU))
	}
	if s.dock.Port != "" && !filepath.IsAbs(s.dock.Port) {
		return fail(fmt.Errorf("dock.port = %q: want an absolute device path such as /dev/ttyACM0, or empty to find the CoreS3 by its USB ids", s.dock.Port))
	}

	s.policies = make(map[string]supervisor.Policy, len(serviceNames))
	for _, name := range serviceNames {
		p, err := c.policy(name)
		if err != nil {
			return fail(err)
		}
		s.policies[name] = p
	}
	return s, nil
}

// simDataDir follows the XDG base directory spec: state, not config or
// cache, because bonds and counters are what the appliance keeps.
func simDataDir(h host) string {
	if d := h.getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "claude-pi")
	}
	return filepath.Join(h.home, ".local", "state", "claude-pi")
}

func simControlSocket(h host, dataDir string) string {
	if d := h.getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		return filepath.Join(d, "claude-pi", "supervisor.sock")
	}
	return filepath.Join(dataDir, "supervisor.sock")
}
