// Package cli is claude-pi's command line: the command table, its
// dispatch, and one file per command. `run` starts internal/appliance;
// the others talk to a running appliance, a paired Pi, or this machine.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/claude-pi/claude-pi/internal/appliance"
	"github.com/claude-pi/claude-pi/internal/clientcli"
	"github.com/claude-pi/claude-pi/internal/mcpserver"
)

// Version is this build's version and ExampleConfig the configuration
// file with every key; main sets both (the version at link time, the file
// embedded from the repository's root).
var (
	Version       = "dev"
	ExampleConfig string
)

// Stdio is a command's standard streams.
type Stdio struct {
	In       io.Reader
	Out, Err io.Writer
}

// Run runs the command line args (without the program name).
func Run(ctx context.Context, args []string, stdio Stdio) error {
	return run(ctx, args, stdio.In, stdio.Out, stdio.Err)
}

// Main is Run as a process does it: a failure the command has not shown
// yet goes to stdio.Err, and the result is the exit code.
func Main(ctx context.Context, args []string, stdio Stdio) int {
	err := Run(ctx, args, stdio)
	if err == nil {
		return 0
	}
	if !errors.As(err, new(reportedError)) {
		fmt.Fprintln(stdio.Err, "claude-pi:", err)
	}
	return exitCode(err)
}

// commandFunc is the shape of every command, so tests call one without
// starting a process.
type commandFunc func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error

// command is one row of the command table. A command with subs is a group:
// its first argument picks the sub, and it has no run of its own.
type command struct {
	name    string
	args    string // what follows the name in the table, e.g. "[NAME...]"
	summary string // the table's description; "\n" continues it on the next line
	run     commandFunc
	subs    []command
}

// commandTable is every command, in the order `claude-pi help` lists them.
// It is a function because help refers back to it.
func commandTable() []command {
	return []command{
		{name: "run", summary: "run the appliance (the default with no command)", run: runCommand},
		{name: "status", args: "[NAME]", summary: "show the services, as supervisorctl status does", run: statusCommand},
		{name: "wire", summary: "Stack-chan dock wire v2 bytes <-> JSON lines", subs: []command{
			{name: "decode", summary: "decode wire v2 bytes (stdin) to JSON lines", run: wireDecodeCommand},
			{name: "encode", summary: "encode JSON lines (stdin) to wire v2 frames", run: wireEncodeCommand},
		}},
		{name: "buddy", summary: "Buddy/NUS byte streams", subs: []command{
			{name: "decode", summary: "decode a Buddy/NUS byte stream (stdin) message by message", run: buddyDecode},
		}},
		{name: "doctor", summary: "check SPI, GPIO, Bluetooth, audio, CoreS3 and config.txt\nfor the board, with a fix for each failure", run: doctorCommand},
		{name: "setup", args: "--board NAME", summary: "prepare this Pi for a HAT (SPI, audio overlay, Bluetooth,\nthe board setting); says if a reboot is needed", run: setupCommand},
		{name: "bluetooth", summary: "bluetoothd's files", subs: []command{
			{name: "check-files", summary: "set aside bluetoothd's files a power cut damaged (as root,\nbefore bluetoothd starts)", run: bluetoothCheckCommand},
		}},
		{name: "firstboot", summary: "the image's first boot: Raspberry Pi Imager's settings", subs: []command{
			{name: "read", summary: "read Imager's files and firstboot.txt; print what to apply", run: firstbootSettingsCommand},
			{name: "scrub", summary: "overwrite and remove Imager's files once applied", run: firstbootScrubCommand},
		}},
		{name: "demo", summary: "play a Claude desktop session against a running sim\nappliance (prompts wait for its A/B buttons)", run: demoCommand},
		{name: "screenshot", args: "FILE", summary: "render a screen with sample data to a PNG (--screen,\n--size), or save a running sim's screen (--from URL)", run: screenshotCommand},
		{name: "hook", summary: "the Claude Code hooks that ask the paired Pi", subs: []command{
			{name: "permission", summary: "Claude Code PermissionRequest hook: ask the paired Pi", run: clientcli.HookPermissionCommand},
			{name: "event", summary: "Claude Code async hook: report session progress to the Pi", run: clientcli.HookEventCommand},
			{name: "install", summary: "add the two hooks to ~/.claude/settings.json (--project)", run: clientcli.HookInstallCommand},
		}},
		{name: "pair", args: "[HOST]", summary: "pair this computer with a Pi (--list, --revoke NAME)", run: pairCommand},
		{name: "mcp", summary: "stdio MCP server for Claude Code: the docked Stack-chan's tools", run: mcpserver.Command},
		{name: "version", summary: "print the version", run: versionCommand},
		{name: "help", args: "[COMMAND]", summary: "this text, a command's flags, or \"help config\" for the\nconfiguration file with every key", run: helpCommand},
	}
}

// run dispatches a command line.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") && !isHelpOrVersion(args[0]) {
		// `claude-pi` and `claude-pi --board sim` both mean run.
		return runCommand(ctx, args, stdin, stdout, stderr)
	}
	switch args[0] {
	case "-h", "-help", "--help":
		args[0] = "help"
	case "-version", "--version":
		args[0] = "version"
	}
	return dispatch(ctx, "claude-pi", commandTable(), args, stdin, stdout, stderr)
}

// dispatch runs the command of table that args[0] names, descending into
// groups. path is what came before, for messages ("claude-pi hook").
func dispatch(ctx context.Context, path string, table []command, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	c, ok := lookupCommand(table, args[0])
	if !ok {
		return unknownCommand(path, table, args[0])
	}
	if c.subs == nil {
		return c.run(ctx, args[1:], stdin, stdout, stderr)
	}
	path += " " + c.name
	if len(args) < 2 {
		return usagef("%s: want a subcommand: %s (see %s --help)", strings.TrimPrefix(path, "claude-pi "), subNames(c.subs), path)
	}
	if isHelpFlag(args[1]) || args[1] == "help" && len(args) == 2 {
		// The group's own help goes to stdout when asked for: `claude-pi
		// hook --help | less` works, and it is no error.
		writeGroupHelp(stdout, path, c)
		return nil
	}
	return dispatch(ctx, path, c.subs, args[1:], stdin, stdout, stderr)
}

func lookupCommand(table []command, name string) (command, bool) {
	for _, c := range table {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func subNames(subs []command) string {
	names := make([]string, len(subs))
	for i, s := range subs {
		names[i] = s.name
	}
	return strings.Join(names, ", ")
}

// unknownCommand suggests the nearest name when there is one close enough
// to be a typo.
func unknownCommand(path string, table []command, name string) error {
	what := "unknown command"
	if group := strings.TrimPrefix(path, "claude-pi "); group != path {
		what = group + ": unknown subcommand"
	}
	if near := nearestCommand(table, name); near != "" {
		return usagef("%s %q: did you mean %q? (see %s --help)", what, name, near, path)
	}
	return usagef("%s %q (see %s --help)", what, name, path)
}

// nearestCommand is the command within two edits of name (one for a short
// name), or else the only one name is a prefix of; "" if none is.
func nearestCommand(table []command, name string) string {
	names := make([]string, len(table))
	for i, c := range table {
		names[i] = c.name
	}
	return nearestName(names, name)
}

func nearestName(names []string, name string) string {
	best, bestDist := "", 3
	if len(name) <= 4 {
		bestDist = 2 // "pi9" is not a typo of "sim"
	}
	prefixed := []string{}
	for _, n := range names {
		if d := editDistance(name, n); d < bestDist {
			best, bestDist = n, d
		}
		if len(name) >= 2 && strings.HasPrefix(n, name) {
			prefixed = append(prefixed, n)
		}
	}
	if best == "" && len(prefixed) == 1 {
		return prefixed[0]
	}
	return best
}

// editDistance is the Damerau-Levenshtein (optimal string alignment)
// distance, so a swap of two letters ("stauts") counts as one edit.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range rb {
		d[0][j+1] = j + 1
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

func isHelpFlag(a string) bool { return a == "-h" || a == "-help" || a == "--help" }

func isHelpOrVersion(a string) bool {
	return isHelpFlag(a) || a == "-version" || a == "--version"
}

// helpCommand is `claude-pi help [COMMAND [SUBCOMMAND]]`: the command
// table, the configuration file, or what COMMAND --help prints, on stdout.
func helpCommand(ctx context.Context, args []string, stdin io.Reader, stdout, _ io.Writer) error {
	if len(args) == 0 || isHelpFlag(args[0]) {
		writeUsage(stdout)
		return nil
	}
	if args[0] == "config" && len(args) == 1 {
		fmt.Fprint(stdout, ExampleConfig)
		return nil
	}
	if _, ok := lookupCommand(commandTable(), args[0]); !ok {
		if near := nearestCommand(commandTable(), args[0]); near != "" {
			return usagef("help: no command %q: did you mean %q? (see claude-pi help)", args[0], near)
		}
		return usagef("help: no command %q (see claude-pi help; \"help config\" shows the configuration file)", args[0])
	}
	// A command's usage is what its --help prints, here on stdout. Every
	// command answers --help before it reads stdin or touches anything.
	return run(ctx, append(append([]string{}, args...), "--help"), stdin, stdout, stdout)
}

func versionCommand(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", "Usage: claude-pi version\n\nPrints the version of this claude-pi.", stderr)
	if help, err := parseFlagsOnly(fs, args); help || err != nil {
		return err
	}
	fmt.Fprintln(stdout, "claude-pi", Version)
	return nil
}

// writeUsage prints the command table.
func writeUsage(w io.Writer) {
	fmt.Fprint(w, "claude-pi: the Claude_Pi appliance\n\nUsage:\n  claude-pi [command] [flags]\n\nCommands:\n")
	var rows [][2]string
	for _, c := range commandTable() {
		if c.subs == nil {
			rows = append(rows, [2]string{c.name + " " + c.args, c.summary})
			continue
		}
		for _, s := range c.subs {
			rows = append(rows, [2]string{c.name + " " + s.name + " " + s.args, s.summary})
		}
	}
	writeCommandRows(w, rows)
	fmt.Fprint(w, "\nRun \"claude-pi COMMAND --help\" for a command's flags.\n")
}

// writeCommandRows prints left and summary columns; the summaries start
// two spaces past the longest left column ("setup --board NAME"), so no
// row's two run together.
func writeCommandRows(w io.Writer, rows [][2]string) {
	width := 0
	for _, r := range rows {
		width = max(width, len(strings.TrimSpace(r[0]))+2)
	}
	for _, r := range rows {
		lines := strings.Split(r[1], "\n")
		fmt.Fprintf(w, "  %-*s%s\n", width, strings.TrimSpace(r[0]), lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(w, "  %-*s%s\n", width, "", l)
		}
	}
}

func writeGroupHelp(w io.Writer, path string, c command) {
	fmt.Fprintf(w, "Usage: %s SUBCOMMAND [flags]\n\n%s.\n\nSubcommands:\n", path, capitalize(c.summary))
	var rows [][2]string
	for _, s := range c.subs {
		rows = append(rows, [2]string{s.name + " " + s.args, s.summary})
	}
	writeCommandRows(w, rows)
	fmt.Fprintf(w, "\nRun \"%s SUBCOMMAND --help\" for its flags.\n", path)
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// checkBoardFlag blames --board itself for a board name that does not
// exist, rather than the configuration file the value would override.
func checkBoardFlag(cmd, name string) error {
	if slices.Contains(appliance.BoardNames, name) {
		return nil
	}
	hint := ""
	if near := nearestName(appliance.BoardNames, name); near != "" {
		hint = fmt.Sprintf("; did you mean %q?", near)
	}
	return usagef("%s: --board %q: unknown board%s (boards: %s)", cmd, name, hint, strings.Join(appliance.BoardNames, ", "))
}

// reportedError is a failure the command has already shown, as
// supervisorctl shows "nosuch: ERROR (no such process)" in its table: main
// exits 1 without printing it a second time.
type reportedError struct{ error }

func (e reportedError) Unwrap() error { return e.error }

// The flag and usage helpers are clientcli's, shared with the computer-side
// binary so that both parse and exit alike.
type usageError = clientcli.UsageError

var (
	usagef           = clientcli.Usagef
	exitCode         = clientcli.ExitCode
	newFlagSet       = clientcli.NewFlagSet
	parseFlags       = clientcli.ParseFlags
	parseFlagsOnly   = clientcli.ParseFlagsOnly
	parseInterleaved = clientcli.ParseInterleaved
)
