package main

import (
	"context"
	"fmt"
	"io"
)

// run dispatches a subcommand. Each subcommand is a function with this same
// shape, so tests call it without starting a process.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stdout, usage)
		return nil
	}
	switch args[0] {
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, usage)
		return nil
	case "wire":
		return wireCommand(ctx, args[1:], stdin, stdout, stderr)
	case "buddy":
		return buddyCommand(ctx, args[1:], stdin, stdout, stderr)
	}
	return fmt.Errorf("unknown command %q (try claude-pi --help)", args[0])
}

const usage = `claude-pi: the Claude_Pi appliance

Usage:
  claude-pi [command] [flags]

Commands:
  wire decode     decode Stack-chan dock wire v2 bytes (stdin) to JSON lines
  wire encode     encode JSON lines (stdin) to wire v2 frames
  buddy decode    decode a Buddy/NUS byte stream (stdin) message by message
  help            this text`
