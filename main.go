// Command claude-pi is the Claude_Pi appliance: a Claude Hardware Buddy over
// BLE and a Stack-chan dock host over USB, run as supervised actors.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "claude-pi:", err)
		os.Exit(1)
	}
}
