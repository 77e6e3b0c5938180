package mcpserver

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const synopsis = `Usage: claude-pi mcp [--pi NAME] [--config DIR]

A stdio MCP server for Claude Code on this computer: its tools are the
docked Stack-chan's (set_expression, look_at, nod, shake, say with our
firmware), reached over the paired Pi's LAN bridge. Add it with

  claude mcp add -s user claude-pi -- claude-pi mcp

Claude Code asks permission before each tool runs; with the claude-pi
hooks installed, that prompt comes to the Pi like any other. The Pi asks
again, itself, before say or any tool it does not know.`

// Command is `claude-pi mcp`. stdin and stdout carry MCP (newline JSON);
// logs go to stderr, which Claude Code keeps in its MCP logs.
func Command(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("claude-pi mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, synopsis)
		fmt.Fprintln(stderr, "\nFlags:")
		fs.PrintDefaults()
	}
	config := fs.String("config", os.Getenv("CLAUDE_PI_CONFIG"), "the CLI's state directory (default: the user config dir's claude-pi)")
	pi := fs.String("pi", "", "the paired Pi to use (default: the last paired)")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("claude-pi mcp takes no arguments (got %q); see claude-pi mcp --help", fs.Arg(0))
	}
	p, id, err := LoadPi(*config, *pi)
	if err != nil {
		return fmt.Errorf("claude-pi mcp: %w", err)
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	log.Info("claude-pi mcp: serving Stack-chan's tools", "pi", p.Name, "addr", p.Addr)
	s := New(NewHTTPBridge(p, id), "claude-pi", log)
	return s.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}})
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// AddHint is what `claude-pi hook install` prints after installing the
// hooks: how to give Claude Code Stack-chan's tools too. exe is the
// claude-pi the hooks run, already shell-quoted.
func AddHint(exe string) string {
	return "Stack-chan's tools for Claude Code (needs a docked CoreS3): claude mcp add -s user claude-pi -- " + exe + " mcp\n" +
		"  Claude Code asks before each tool runs; with these hooks that prompt comes to the Pi,\n" +
		"  and the Pi asks again before say or any tool it does not know."
}
