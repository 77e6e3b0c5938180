package fakedesktop

import (
	"context"
	"errors"
	"time"

	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
)

// statusTimeout is how long the desktop waits for a status ack.
const statusTimeout = 3 * time.Second

// PollStatus sends one {"cmd":"status"} and validates the ack the way the
// desktop does before showing anything: a missing field, a wrong type or
// ok:false is an error ("No response" in the desktop's window).
func (d *Desktop) PollStatus(ctx context.Context) StatusResult {
	ctx, cancel := context.WithTimeout(ctx, statusTimeout)
	defer cancel()
	var res StatusResult
	r, err := d.command(ctx, pbuddy.Status{})
	switch {
	case err != nil:
		if errors.Is(err, context.DeadlineExceeded) {
			err = errors.New("desktop: status: no ack within 3 s")
		}
		res.Err = err
	default:
		res.Line = r.line
		if res.Err = pbuddy.ValidateStatusAck(r.line); res.Err == nil {
			res.Status, res.Err = r.ack.Status()
		}
	}
	d.mu.Lock()
	if res.Err == nil {
		d.counts.StatusOK++
	} else {
		d.counts.StatusFailed++
	}
	d.mu.Unlock()
	select {
	case d.statuses <- res:
	default:
	}
	return res
}

// statusLoop polls every StatusEvery, one poll in flight at a time.
func (d *Desktop) statusLoop() {
	defer d.wg.Done()
	t := time.NewTicker(d.opts.StatusEvery)
	defer t.Stop()
	fails := 0
	for {
		select {
		case <-d.ctx.Done():
			return
		case <-t.C:
		}
		res := d.PollStatus(d.ctx)
		if d.ctx.Err() != nil {
			return
		}
		if res.Err != nil {
			fails++
			if fails == 3 { // the desktop warns after 3 in a row
				d.log.Warn("desktop: status failed 3 times in a row", "err", res.Err)
			}
		} else {
			fails = 0
		}
	}
}
