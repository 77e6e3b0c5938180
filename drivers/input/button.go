package input

import "time"

// Button turns one button's raw level, sampled whenever it may have
// changed, into debounced presses. It does no I/O and reads no clock: the
// caller passes the time with every sample, like M5Unified's Button_Class,
// so tables of (time, level) pairs test it completely.
//
// A level counts once it has held for Debounce. A press held for LongPress
// is reported as long at that moment, while the button is still down, and
// its release then reports nothing; a press released earlier is reported as
// short on release.
//
// The zero value has no debounce and reports every press as long at once;
// set the durations first.
type Button struct {
	Name      string        // Copied into every Event.
	Debounce  time.Duration // How long a new level must hold to count.
	LongPress time.Duration // Hold time that makes a press long.

	last      time.Duration // Latest now seen; time never runs backwards.
	raw       bool          // Latest sampled level.
	rawAt     time.Duration // When raw last changed.
	stable    bool          // Debounced level.
	pressedAt time.Duration // When the current press began (its raw edge).
	longSent  bool          // The current press was already reported long.
}

// Update feeds one sample: at time now (any monotonic origin) the button
// reads pressed. It returns the press this sample completes, if any.
//
// Samples may come late: a level that had already held for Debounce before
// now is credited from when it began, so a slow caller does not lose
// presses, only their timeliness.
func (b *Button) Update(now time.Duration, pressed bool) (Event, bool) {
	if now < b.last {
		now = b.last
	}
	b.last = now
	ev, ok := b.settle(now)
	if pressed != b.raw {
		b.raw, b.rawAt = pressed, now
	}
	if !ok {
		// One event per sample: if the old level completed a press, the
		// new level settles on a later call, which Deadline asks for.
		ev, ok = b.settle(now)
	}
	return ev, ok
}

// Deadline reports when Update must next be called even if the level does
// not change: to confirm a pending level, or to report a long press.
func (b *Button) Deadline() (time.Duration, bool) {
	switch {
	case b.raw != b.stable:
		return b.rawAt + b.Debounce, true
	case b.stable && !b.longSent:
		return b.pressedAt + b.LongPress, true
	}
	return 0, false
}

// Pressed reports the debounced level.
func (b *Button) Pressed() bool {
	return b.stable
}

// settle promotes a raw level that has held for Debounce and reports a
// completed press: short on a release, long once the hold is long enough.
func (b *Button) settle(now time.Duration) (Event, bool) {
	if b.raw != b.stable && now-b.rawAt >= b.Debounce {
		b.stable = b.raw
		if b.stable {
			b.pressedAt, b.longSent = b.rawAt, false
		} else if !b.longSent {
			return Event{Name: b.Name, Held: b.rawAt - b.pressedAt}, true
		}
	}
	if b.stable && !b.longSent && now-b.pressedAt >= b.LongPress {
		b.longSent = true
		return Event{Name: b.Name, Long: true, Held: now - b.pressedAt}, true
	}
	return Event{}, false
}
