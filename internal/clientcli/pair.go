package clientcli

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/claude-pi/claude-pi/internal/client"
)

const pairSynopsis = `Usage: claude-pi pair [flags] [HOST[:PORT]]      pair this computer with a Pi
       claude-pi pair --list | --revoke NAME       the Pis this computer trusts

HOST defaults to ` + client.DefaultHost + `.`

// LocalPair is `pair --local`, the Pi's side (the computers paired with
// it), which only the appliance's binary has: internal/cli supplies it.
type LocalPair struct {
	// Synopsis follows the computer's.
	Synopsis string
	// Bind registers --local and its flags on fs, and returns what runs
	// once fs is parsed: with the positional arguments and --list and
	// --revoke, it reports false when --local was not given, and else
	// does it.
	Bind func(fs *flag.FlagSet) LocalRun
}

// LocalRun is `pair --local` bound to one parse of the flags.
type LocalRun func(ctx context.Context, hosts []string, list bool, revoke string, stdout io.Writer) (handled bool, err error)

// PairCommand is `claude-pi pair`; local is nil in the computer's binary.
func PairCommand(local *LocalPair) func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
		synopsis := pairSynopsis
		if local != nil {
			synopsis = strings.Replace(pairSynopsis, "\n\n", "\n"+local.Synopsis+"\n\n", 1)
		}
		fs := newFlagSet("pair", synopsis, stderr)
		config := fs.String("config", os.Getenv("CLAUDE_PI_CONFIG"), "the CLI's state directory (default: the user config dir's claude-pi)")
		host, _ := os.Hostname()
		name := fs.String("name", host, "this computer's name on the Pi")
		listHelp, revokeHelp := "list the Pis this computer is paired with", "forget the paired Pi called `NAME`"
		if local != nil {
			listHelp += " (with --local: the computers paired with this appliance)"
			revokeHelp += " (with --local: revoke the computer called NAME on this appliance)"
		}
		list := fs.Bool("list", false, listHelp)
		revoke := fs.String("revoke", "", revokeHelp)
		yes := fs.Bool("yes", false, "do not ask to confirm the code (for scripts that compare it themselves)")
		var runLocal LocalRun
		if local != nil {
			runLocal = local.Bind(fs)
		}
		hosts, help, err := parseInterleaved(fs, args)
		if help || err != nil {
			return err
		}
		if runLocal != nil {
			if handled, err := runLocal(ctx, hosts, *list, *revoke, stdout); handled {
				return err
			}
		}
		st, err := client.Load(*config)
		if err != nil {
			return err
		}
		if st.SetAside != "" {
			fmt.Fprintf(stderr, "claude-pi pair: pis.json was damaged; it is set aside as %s, and the Pis it named must be paired again\n", st.SetAside)
		}
		switch {
		case *list:
			for _, p := range st.Pis {
				fmt.Fprintf(stdout, "%s\t%s\tpaired %s\tpin %s…\n", p.Name, p.Addr, p.Paired.Format(time.DateOnly), p.Pin[:min(16, len(p.Pin))])
			}
			return nil
		case *revoke != "":
			if err := st.Forget(*revoke); err != nil {
				return fmt.Errorf("pair: %v", err)
			}
			fmt.Fprintf(stdout, "forgot %s\n", *revoke)
			return nil
		case len(hosts) > 1:
			return usagef("pair: one host at most, got %q", hosts)
		}
		addr := client.DefaultHost
		if len(hosts) == 1 {
			addr = hosts[0]
		}
		return pair(ctx, st, client.WithPort(addr), *name, *yes, stdin, stdout)
	}
}

func pair(ctx context.Context, st *client.State, addr, name string, yes bool, stdin io.Reader, stdout io.Writer) error {
	p, err := st.Pair(ctx, client.PairOptions{Addr: addr, Name: name,
		Code: func(code string) {
			fmt.Fprintf(stdout, "Pairing with %s as %q.\nCode: %s\nCheck that the Pi shows the same code, then hold approve on the Pi (it shows the request once no prompt is waiting).\n", addr, name, code)
		},
		Confirm: func(device, code string) bool {
			if yes {
				return true
			}
			fmt.Fprintf(stdout, "Accepted on %s. Did it show %s? [y/N] ", device, code)
			line, _ := bufio.NewReader(stdin).ReadString('\n')
			a := strings.ToLower(strings.TrimSpace(line))
			return a == "y" || a == "yes"
		}})
	if err != nil {
		return fmt.Errorf("pair: %v", err)
	}
	fmt.Fprintf(stdout, "Paired with %s at %s. %s\n", p.Name, addr, nextStep())
	return nil
}

// nextStep is what to do once paired: the hooks, unless the Claude Code
// plugin already brings them.
func nextStep() string {
	if pluginEnabled(userSettingsPath()) {
		return "The pi-buddy plugin for Claude Code asks it from now on."
	}
	return "Install the hooks with: claude-pi hook install (or the Claude Code plugin: see README)"
}
