package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// usageError is an error the user fixes by reading --help; main exits 2
// for it, as flag-parsing tools conventionally do.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

func exitCode(err error) int {
	if errors.As(err, new(usageError)) {
		return 2
	}
	return 1
}

// run dispatches a subcommand. Each subcommand is a function with this same
// shape, so tests call it without starting a process.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") && !isHelpOrVersion(args[0]) {
		// `claude-pi` and `claude-pi --board sim` both mean run.
		return runCommand(ctx, args, stdin, stdout, stderr)
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		return helpCommand(args[1:], stdout)
	case "version", "-version", "--version":
		fmt.Fprintln(stdout, "claude-pi", version)
		return nil
	case "run":
		return runCommand(ctx, args[1:], stdin, stdout, stderr)
	case "status":
		return statusCommand(ctx, args[1:], stdin, stdout, stderr)
	case "wire":
		return wireCommand(ctx, args[1:], stdin, stdout, stderr)
	case "buddy":
		return buddyCommand(ctx, args[1:], stdin, stdout, stderr)
	case "hook":
		return hookCommand(ctx, args[1:], stdin, stdout, stderr)
	case "pair":
		return pairCommand(ctx, args[1:], stdin, stdout, stderr)
	case "doctor":
		return doctorCommand(ctx, args[1:], stdin, stdout, stderr)
	case "demo":
		return demoCommand(ctx, args[1:], stdin, stdout, stderr)
	case "screenshot":
		return screenshotCommand(ctx, args[1:], stdin, stdout, stderr)
	}
	return usagef("unknown command %q (try claude-pi --help)", args[0])
}

func isHelpOrVersion(a string) bool {
	switch a {
	case "-h", "-help", "--help", "-version", "--version":
		return true
	}
	return false
}

func helpCommand(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stdout, usage)
		return nil
	}
	switch args[0] {
	case "config":
		fmt.Fprint(stdout, exampleConfig)
		return nil
	case "run":
		fs, _ := runFlags(io.Discard)
		fs.SetOutput(stdout)
		fs.Usage()
		return nil
	case "status":
		fs, _ := statusFlags(io.Discard)
		fs.SetOutput(stdout)
		fs.Usage()
		return nil
	case "doctor":
		fs, _ := doctorFlags(io.Discard)
		fs.SetOutput(stdout)
		fs.Usage()
		return nil
	case "demo":
		fs, _ := demoFlagSet(io.Discard)
		fs.SetOutput(stdout)
		fs.Usage()
		return nil
	case "screenshot":
		fs, _ := screenshotFlagSet(io.Discard)
		fs.SetOutput(stdout)
		fs.Usage()
		return nil
	}
	return usagef("no help for %q (try claude-pi help)", args[0])
}

// newFlagSet returns a FlagSet that reports errors instead of exiting and
// prints usage (a synopsis, then the flags) to w.
func newFlagSet(name, synopsis string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("claude-pi "+name, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "%s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args; ErrHelp becomes a nil error with help=true.
func parseFlags(fs *flag.FlagSet, args []string) (help bool, err error) {
	err = fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return true, nil
	}
	if err != nil {
		// The flag package already printed the error and the usage.
		return false, usagef("%s: %v", strings.TrimPrefix(fs.Name(), "claude-pi "), err)
	}
	return false, nil
}

const usage = `claude-pi: the Claude_Pi appliance

Usage:
  claude-pi [command] [flags]

Commands:
  run             run the appliance (the default with no command)
  status [NAME]   show the services, as supervisorctl status does
  wire decode     decode Stack-chan dock wire v2 bytes (stdin) to JSON lines
  wire encode     encode JSON lines (stdin) to wire v2 frames
  buddy decode    decode a Buddy/NUS byte stream (stdin) message by message
  doctor          check SPI, GPIO, Bluetooth, audio, CoreS3 and config.txt
                  for the board, with a fix for each failure
  demo            play a Claude desktop session against a running sim
                  appliance (prompts wait for its A/B buttons)
  screenshot FILE render a screen with sample data to a PNG (--screen,
                  --size), or save a running sim's screen (--from URL)
  hook permission Claude Code PermissionRequest hook: ask the paired Pi
  hook event      Claude Code async hook: report session progress to the Pi
  hook install    add the two hooks to ~/.claude/settings.json (--project)
  pair [HOST]     pair this computer with a Pi (--list, --revoke NAME)
  version         print the version
  help [COMMAND]  this text, a command's flags, or "help config" for the
                  configuration file with every key

Run "claude-pi COMMAND --help" for a command's flags.`
