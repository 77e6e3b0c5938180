// Command claude-pi, built from here, is the computer's claude-pi: the
// Claude Code hooks, pairing and the MCP server, talking to a paired Pi.
// It links none of the appliance (the Pi's claude-pi is the module's root
// main); deps.txt lists what it does link, and a test keeps it current.
//
// Users type claude-pi on both: the release, Homebrew and the
// claude-pi-client .deb install this build under that name.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/claude-pi/claude-pi/internal/clientcli"
)

//go:generate go test -run TestDeps -update .

// version is set at build time: go build -ldflags "-X main.version=v1.2.3".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); stop() }()
	os.Exit(clientcli.Main(ctx, version, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
