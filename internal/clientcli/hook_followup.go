package clientcli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

// stopHookTimeout is the installed Stop hook's timeout: the window, the
// wait once the user swiped (hookbridge.FollowUpHeard) and the connect, with
// room, so Claude Code never kills the hook first.
var stopHookTimeout = hookbridge.MaxFollowUpWindow + hookbridge.FollowUpHeard + 30*time.Second

// followUpOutput asks the paired Pi for a spoken follow-up to the Stop
// of session, and returns the Stop hook output that sends it to Claude,
// or nil (Claude stops). The Pi answers "none" at once when follow-ups
// are off, no microphone dock is there, or the Stop carried no reply.
//
// stop_hook_active (this Stop follows a block of ours) does not stop us
// asking: each block needs a new swipe and a new sentence from a person
// at the dock, so there is no loop without someone speaking, and Claude
// Code ends a turn after its own cap of consecutive blocks anyway.
func followUpOutput(ctx context.Context, f hookFlags, session string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, hookbridge.MaxFollowUpWindow+hookConnectTimeout+hookbridge.FollowUpHeard)
	defer cancel()
	ctx = withdrawWhenCLIEnds(ctx)
	resp, err := openPi(ctx, f, hookbridge.PathFollowUp, hookbridge.FollowUpRequest{Session: session})
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	lines, done := make(chan lineOrErr), make(chan struct{})
	defer close(done)
	go readLines(resp.Body, lines, done)
	wait := time.NewTimer(hookbridge.MaxFollowUpWindow + time.Second)
	defer wait.Stop()
	for {
		select {
		case l := <-lines:
			if l.err != nil {
				return nil, l.err
			}
			fu, err := hookbridge.DecodeFollowUp(l.b)
			if err != nil {
				return nil, err
			}
			switch fu.State {
			case hookbridge.FollowUpText:
				return hookbridge.FollowUpOutput(fu.Text), nil
			case hookbridge.FollowUpNone:
				return nil, nil
			}
			wait.Reset(hookbridge.FollowUpHeard + time.Second) // swiped: the sentence is being heard
		case <-wait.C:
			return nil, fmt.Errorf("the Pi said nothing about a follow-up in time")
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
}

type lineOrErr struct {
	b   []byte
	err error
}

// readLines sends the body's lines, each at most MaxRequest bytes, then
// the error that ended them, until done is closed.
func readLines(r io.Reader, out chan<- lineOrErr, done <-chan struct{}) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), hookbridge.MaxRequest)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		select {
		case out <- lineOrErr{b: append([]byte(nil), sc.Bytes()...)}:
		case <-done:
			return
		}
	}
	err := sc.Err()
	if err == nil {
		err = fmt.Errorf("the Pi ended the follow-up answer early: %w", io.ErrUnexpectedEOF)
	}
	select {
	case out <- lineOrErr{err: err}:
	case <-done:
	}
}
