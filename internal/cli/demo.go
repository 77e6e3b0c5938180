package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/claude-pi/claude-pi/internal/appliance"
	"github.com/claude-pi/claude-pi/internal/appliance/appliancetest/fakedesktop"
)

// demoFlags are the flags of `claude-pi demo`.
type demoFlags struct {
	nus, script, owner string
	noStatus           bool
}

func demoFlagSet(w io.Writer) (*flag.FlagSet, *demoFlags) {
	o := &demoFlags{}
	fs := newFlagSet("demo", "Usage: claude-pi demo [flags]\n\n"+
		"Play a believable Claude desktop session against a running sim appliance\n"+
		"(claude-pi run), the way the desktop app's Hardware Buddy bridge does.\n"+
		"Prompts wait for a button press on the appliance's web page; Ctrl-C ends.", w)
	fs.StringVar(&o.nus, "nus", appliance.SimNUSListen, "the appliance's sim BLE `address` (its --nus-listen): host:port or unix:/path")
	fs.StringVar(&o.script, "script", "default", "the `session` to play: "+strings.Join(fakedesktop.Scripts, ", "))
	fs.StringVar(&o.owner, "owner", "Felix", "the account's first `name`, sent with the owner command (\"\" sends none)")
	fs.BoolVar(&o.noStatus, "no-status", false, "do not poll status every 2 s (as with the Hardware Buddy window closed)")
	return fs, o
}

// demoCommand is `claude-pi demo`. Like the desktop it reconnects after a
// lost link, waiting 2 s, 4 s, 8 s ... up to 60 s.
func demoCommand(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs, o := demoFlagSet(stderr)
	if help, err := parseFlagsOnly(fs, args); help || err != nil {
		return err
	}
	if !slices.Contains(fakedesktop.Scripts, o.script) {
		return usagef("demo: --script %q: want one of %s", o.script, strings.Join(fakedesktop.Scripts, ", "))
	}
	opts := &fakedesktop.Options{Owner: o.owner}
	if o.noStatus {
		opts.StatusEvery = -1
	}
	say := func(format string, args ...any) {
		fmt.Fprintf(stdout, "%s  %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
	}
	for attempt := 0; ; attempt++ {
		err := demoOnce(ctx, o, opts, say)
		if ctx.Err() != nil {
			return nil
		}
		var dial dialError
		if errors.As(err, &dial) && attempt == 0 {
			return err // nothing there on the first try: say so and stop
		}
		wait := min(2*time.Second<<min(attempt, 5), 60*time.Second)
		say("link lost (%v); reconnecting in %v", err, wait)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
}

type dialError struct{ error }

func (e dialError) Unwrap() error { return e.error }

// demoOnce plays one connection until ctx ends or the link drops.
func demoOnce(ctx context.Context, o *demoFlags, opts *fakedesktop.Options, say func(string, ...any)) error {
	d, err := fakedesktop.DialOptions(ctx, o.nus, opts)
	if err != nil {
		return dialError{err}
	}
	defer d.Close()
	say("connected to %s as the desktop (owner %q); playing %q", o.nus, o.owner, o.script)
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go reportStatus(sctx, d, say)
	err = fakedesktop.Play(ctx, d, o.script, func(ev fakedesktop.Event) { say("%-8s %s", ev.Kind, ev.Text) })
	c := d.Counters()
	say("sent %d lines (%d heartbeats) in %d writes; %d decisions received; status ok %d, failed %d",
		c.LinesSent, c.Heartbeats, c.Slices, c.Permissions, c.StatusOK, c.StatusFailed)
	return err
}

// reportStatus prints the first good status and every change between good
// and failing, not every 2-s poll.
func reportStatus(ctx context.Context, d *fakedesktop.Desktop, say func(string, ...any)) {
	last := ""
	for {
		select {
		case <-ctx.Done():
			return
		case r := <-d.StatusAcks():
			now := "ok"
			if r.Err != nil {
				now = "No response: " + r.Err.Error()
			}
			if now == last {
				continue
			}
			last = now
			if r.Err != nil {
				say("status   %s", now)
				continue
			}
			s := r.Status
			say("status   %s · sec %v · up %ds · appr %d deny %d lvl %d", s.Name, s.Sec, s.Sys.Up, s.Stats.Appr, s.Stats.Deny, s.Stats.Lvl)
		}
	}
}
