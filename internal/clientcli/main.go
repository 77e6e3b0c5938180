// Package clientcli is the computer's claude-pi: the commands a computer
// runs against a paired Pi (hook, pair, mcp), built on internal/client.
// The appliance's binary (internal/cli) lists the same commands; the
// computer's (cmd/claude-pi) has only these, and links no appliance.
package clientcli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/claude-pi/claude-pi/internal/mcpserver"
)

type commandFunc = func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error

type row struct {
	name, summary string
	run           commandFunc
}

// table is the computer binary's commands, as `claude-pi help` lists them.
func table(version string) []row {
	return []row{
		{"hook permission", "Claude Code PermissionRequest hook: ask the paired Pi", HookPermissionCommand},
		{"hook event", "Claude Code async hook: report session progress to the Pi", HookEventCommand},
		{"hook install", "add the hooks to ~/.claude/settings.json (--project)", HookInstallCommand},
		{"pair", "pair this computer with a Pi (--list, --revoke NAME)", PairCommand(nil)},
		{"mcp", "stdio MCP server for Claude Code: the docked Stack-chan's tools", mcpserver.Command},
		{"version", "print the version", func(_ context.Context, _ []string, _ io.Reader, stdout, _ io.Writer) error {
			fmt.Fprintln(stdout, "claude-pi", version, "(computer)")
			return nil
		}},
	}
}

func writeHelp(w io.Writer, rows []row) {
	fmt.Fprint(w, "claude-pi: this computer's side of Claude_Pi (the appliance runs on the Pi)\n\nUsage:\n  claude-pi COMMAND [flags]\n\nCommands:\n")
	for _, r := range rows {
		fmt.Fprintf(w, "  %-17s%s\n", r.name, r.summary)
	}
	fmt.Fprint(w, "\nRun \"claude-pi COMMAND --help\" for a command's flags.\n")
}

// Main runs the computer's command line args (without the program name)
// and returns the exit code: 2 for a usage error, 1 for another failure.
func Main(ctx context.Context, version string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	err := run(ctx, version, args, stdin, stdout, stderr)
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "claude-pi:", err)
	return ExitCode(err)
}

func run(ctx context.Context, version string, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	rows := table(version)
	if len(args) == 0 {
		writeHelp(stderr, rows)
		return Usagef("want a command; the appliance itself runs on the Pi")
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			return run(ctx, version, append(args[1:], "--help"), stdin, stdout, stdout)
		}
		writeHelp(stdout, rows)
		return nil
	case "--version", "-version":
		args[0] = "version"
	}
	for _, r := range rows {
		words := strings.Fields(r.name)
		if len(args) >= len(words) && strings.Join(args[:len(words)], " ") == r.name {
			return r.run(ctx, args[len(words):], stdin, stdout, stderr)
		}
	}
	if args[0] == "hook" {
		return Usagef("hook: want permission, event or install (see claude-pi help)")
	}
	return unknown(args[0])
}

func unknown(name string) error {
	switch name {
	case "run", "status", "doctor", "setup", "demo", "screenshot", "wire", "buddy":
		return Usagef("%s runs on the Pi, with the appliance's claude-pi (this one is the computer's: see claude-pi help)", name)
	}
	return Usagef("unknown command %q (see claude-pi help)", name)
}
