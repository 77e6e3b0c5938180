package input

import "time"

// SetNow makes New read time from now, for tests that drive the pins'
// fake clock.
func SetNow(o *Opts, now func() time.Time) { o.now = now }

// SetCloseWait shortens how long Close waits for stuck watchers.
func SetCloseWait(d time.Duration) func() {
	old := closeWait
	closeWait = d
	return func() { closeWait = old }
}
