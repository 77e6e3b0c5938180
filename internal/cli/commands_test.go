package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// failReader fails the test if a command reads stdin when it should only
// print its help.
type failReader struct{ t *testing.T }

func (r failReader) Read([]byte) (int, error) {
	r.t.Error("--help read stdin")
	return 0, errors.New("no stdin for --help")
}

// commandPaths lists every command and subcommand as the words that name
// it: [run] [status] ... [hook] [hook permission] ...
func commandPaths(table []command, prefix []string) [][]string {
	var out [][]string
	for _, c := range table {
		p := append(append([]string{}, prefix...), c.name)
		out = append(out, p)
		out = append(out, commandPaths(c.subs, p)...)
	}
	return out
}

// TestEveryCommandHelp: --help and -h work on every command and
// subcommand (exit 0, a usage, nothing read, no error text), and `help
// WORDS...` prints the same usage on stdout.
func TestEveryCommandHelp(t *testing.T) {
	t.Setenv("CLAUDE_CODE_ENTRYPOINT", "cli")
	paths := commandPaths(commandTable(), nil)
	if len(paths) < 15 {
		t.Fatalf("only %d commands in the table: %v", len(paths), paths)
	}
	for _, p := range paths {
		name := strings.Join(p, " ")
		for _, h := range []string{"--help", "-h"} {
			var out, errOut bytes.Buffer
			err := run(context.Background(), append(append([]string{}, p...), h), failReader{t}, &out, &errOut)
			text := out.String() + errOut.String()
			if err != nil {
				t.Errorf("%s %s: %v", name, h, err)
			}
			if name != "version" && name != "help" && !strings.Contains(text, "Usage:") {
				t.Errorf("%s %s printed no usage:\n%s", name, h, text)
			}
			for _, bad := range []string{"unknown", "help requested", "no decision", "bad flags"} {
				if strings.Contains(text, bad) {
					t.Errorf("%s %s says %q:\n%s", name, h, bad, text)
				}
			}
		}
		var out, errOut bytes.Buffer
		if err := run(context.Background(), append([]string{"help"}, p...), failReader{t}, &out, &errOut); err != nil {
			t.Errorf("help %s: %v", name, err)
		}
		if !strings.Contains(out.String(), "Usage") || errOut.Len() > 0 {
			t.Errorf("help %s: stdout %q, stderr %q; want the usage on stdout", name, out.String(), errOut.String())
		}
	}
}

func TestHookEventHelpHasNoWait(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"help", "hook", "event"}, failReader{t}, &out, &out); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "\n  -timeout") || strings.Contains(out.String(), "wait for a decision") {
		t.Errorf("hook event's help describes a wait it does not have:\n%s", out.String())
	}
}

func TestUsageListsEveryCommand(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"--help"}, nil, &out, &out); err != nil {
		t.Fatal(err)
	}
	for _, p := range commandPaths(commandTable(), nil) {
		if c, _ := lookupCommand(commandTable(), p[0]); len(p) == 1 && c.subs != nil {
			continue // a group is listed by its subcommands
		}
		if !strings.Contains(out.String(), "\n  "+strings.Join(p, " ")) {
			t.Errorf("usage does not list %q:\n%s", strings.Join(p, " "), out.String())
		}
	}
}

func TestUnknownCommandSuggests(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string // "" = no suggestion
	}{
		{[]string{"stauts"}, `did you mean "status"`},
		{[]string{"staus"}, `did you mean "status"`},
		{[]string{"screenshto"}, `did you mean "screenshot"`},
		{[]string{"scr"}, `did you mean "screenshot"`},
		{[]string{"hook", "permision"}, `did you mean "permission"`},
		{[]string{"wire", "decod"}, `did you mean "decode"`},
		{[]string{"help", "stauts"}, `did you mean "status"`},
		{[]string{"frobnicate"}, ""},
	} {
		var out bytes.Buffer
		err := run(context.Background(), tt.args, nil, &out, &out)
		if exitCode(err) != 2 {
			t.Errorf("%v: %v (exit %d), want a usage error", tt.args, err, exitCode(err))
			continue
		}
		switch {
		case tt.want == "" && strings.Contains(err.Error(), "did you mean"):
			t.Errorf("%v: %v, want no suggestion", tt.args, err)
		case tt.want != "" && !strings.Contains(err.Error(), tt.want):
			t.Errorf("%v: %v, want %s", tt.args, err, tt.want)
		}
	}
}

func TestGroupWithoutSubcommand(t *testing.T) {
	for _, g := range []string{"hook", "wire", "buddy"} {
		err := run(context.Background(), []string{g}, nil, &bytes.Buffer{}, &bytes.Buffer{})
		if exitCode(err) != 2 || !strings.Contains(err.Error(), "want a subcommand") {
			t.Errorf("%s: %v, want a usage error listing the subcommands", g, err)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"status", "status", 0}, {"stauts", "status", 1}, {"stat", "status", 2}, {"pair", "run", 4}} {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestMain gives the commands the example configuration main embeds.
func TestMain(m *testing.M) {
	b, err := os.ReadFile(filepath.Join("..", "..", "claude-pi.example.toml"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ExampleConfig = string(b)
	os.Exit(m.Run())
}

// TestHelpColumnsApart: in `claude-pi help`, every command's left column
// ends at least two spaces before its summary, the longest included
// ("setup --board NAME" once ran into "prepare this Pi").
func TestHelpColumnsApart(t *testing.T) {
	var out bytes.Buffer
	writeUsage(&out)
	if !strings.Contains(out.String(), "setup --board NAME  ") {
		t.Errorf("setup --board NAME is not followed by two spaces:\n%s", out.String())
	}
	for _, c := range commandTable() {
		for _, s := range append([]command{c}, c.subs...) {
			first, _, _ := strings.Cut(s.summary, "\n")
			if s.run == nil || first == "" {
				continue
			}
			i := strings.Index(out.String(), first)
			if i < 2 || out.String()[i-2:i] != "  " {
				t.Errorf("%s: its summary %q is not two spaces past its name", s.name, first)
			}
		}
	}
}
