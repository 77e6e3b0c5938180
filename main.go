// Command claude-pi is the Claude_Pi appliance: a Claude Hardware Buddy over
// BLE and a Stack-chan dock host over USB, run as supervised actors.
//
// With no arguments it runs the appliance (`claude-pi run`); on a machine
// that is not a Raspberry Pi that is the simulated board, with its web page
// on http://127.0.0.1:8330. `claude-pi help` lists the other commands; they
// live in internal/cli, the appliance in internal/appliance.
package main

import (
	"context"
	_ "embed"
	"os"
	"os/signal"
	"syscall"

	"github.com/claude-pi/claude-pi/internal/cli"
)

// version is set at build time: go build -ldflags "-X main.version=v1.2.3".
var version = "dev"

// exampleConfig documents every key; `claude-pi help config` prints it.
//
//go:embed claude-pi.example.toml
var exampleConfig string

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// After the first signal starts the graceful shutdown, a second one
	// should kill at once, as users expect of a stuck program.
	go func() { <-ctx.Done(); stop() }()
	cli.Version, cli.ExampleConfig = version, exampleConfig
	os.Exit(cli.Main(ctx, os.Args[1:], cli.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
}
