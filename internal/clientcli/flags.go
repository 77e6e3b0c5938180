package clientcli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// UsageError is an error the user fixes by reading --help; main exits 2
// for it, as flag-parsing tools conventionally do. internal/cli's
// commands share it, so both binaries exit alike.
type UsageError struct{ error }

func (e UsageError) Unwrap() error { return e.error }

// Usagef is a UsageError.
func Usagef(format string, args ...any) error {
	return UsageError{fmt.Errorf(format, args...)}
}

// ExitCode is 2 for a UsageError, 1 for any other failure.
func ExitCode(err error) int {
	if errors.As(err, new(UsageError)) {
		return 2
	}
	return 1
}

// NewFlagSet returns a FlagSet that reports errors instead of exiting and
// prints usage (a synopsis, then the flags) to w.
func NewFlagSet(name, synopsis string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("claude-pi "+name, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "%s\n", synopsis)
		if hasFlags(fs) {
			fmt.Fprint(fs.Output(), "\nFlags:\n")
			fs.PrintDefaults()
		}
	}
	return fs
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// ParseInterleaved parses flags that come after the positional arguments
// too ("pair 192.168.1.20 --yes"), as users expect of a CLI; after "--"
// everything is positional.
func ParseInterleaved(fs *flag.FlagSet, args []string) (pos []string, help bool, err error) {
	for {
		if help, err = ParseFlags(fs, args); help || err != nil {
			return nil, help, err
		}
		rest := fs.Args()
		if consumed := args[:len(args)-len(rest)]; len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
			return append(pos, rest...), false, nil
		}
		if len(rest) == 0 {
			return pos, false, nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

// ParseFlagsOnly is ParseFlags for a command that takes flags only: an
// argument is a usage error that names it.
func ParseFlagsOnly(fs *flag.FlagSet, args []string) (help bool, err error) {
	if help, err = ParseFlags(fs, args); help || err != nil {
		return help, err
	}
	if fs.NArg() > 0 {
		name := strings.TrimPrefix(fs.Name(), "claude-pi ")
		return false, Usagef("%s: unexpected argument %q (flags only; see claude-pi %s --help)", name, fs.Arg(0), name)
	}
	return false, nil
}

// ParseFlags parses args; ErrHelp becomes a nil error with help=true.
func ParseFlags(fs *flag.FlagSet, args []string) (help bool, err error) {
	err = fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return true, nil
	}
	if err != nil {
		// The flag package already printed the error and the usage.
		return false, Usagef("%s: %v", strings.TrimPrefix(fs.Name(), "claude-pi "), err)
	}
	return false, nil
}

// The short names the commands moved here from internal/cli were
// written with.
var (
	newFlagSet       = NewFlagSet
	parseFlags       = ParseFlags
	parseInterleaved = ParseInterleaved
	usagef           = Usagef
)
