package stats

import (
	"fmt"
	"time"
)

// State is a persona state; the order and names are those of the pack
// manifest's "states" keys (spec §9.1).
type State uint8

// Persona states.
const (
	Sleep State = iota
	Idle
	Busy
	Attention
	Celebrate
	Dizzy
	Heart
)

var stateNames = [...]string{"sleep", "idle", "busy", "attention", "celebrate", "dizzy", "heart"}

// String returns the manifest key of s.
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// One-shot durations and the wake-up sleep (spec §9.1).
const (
	CelebrateFor = 3 * time.Second // on level-up
	DizzyFor     = 2 * time.Second // on shake
	HeartFor     = 2 * time.Second // on an approval within HeartWithin
	WakeSleepFor = 12 * time.Second
)

// OneShotFor is how long a one-shot state plays; 0 for the base states.
func OneShotFor(s State) time.Duration {
	switch s {
	case Celebrate:
		return CelebrateFor
	case Dizzy:
		return DizzyFor
	case Heart:
		return HeartFor
	}
	return 0
}

// Rules are the two points where the reference's code and README disagree
// (spec §11); the spec leaves both to us.
type Rules struct {
	// SleepWhenDisconnected shows sleep instead of idle while no desktop
	// is connected (the README's behaviour; the firmware shows idle).
	SleepWhenDisconnected bool
	// BusyMinRunning is the number of running sessions that makes the pet
	// busy: 1 per the README, 3 in the firmware. 0 means 1.
	BusyMinRunning uint32
}

// DefaultRules are Claude_Pi's: the README's meaning, which tells the user
// more than the firmware's (a disconnected pet looks asleep, one running
// session looks busy).
var DefaultRules = Rules{SleepWhenDisconnected: true, BusyMinRunning: 1}

// ReferenceRules reproduce the reference firmware.
var ReferenceRules = Rules{SleepWhenDisconnected: false, BusyMinRunning: 3}

// Scene is what the persona depends on. The heartbeat's "completed" field is
// left out: the desktop never sends it (spec §5.1).
type Scene struct {
	Connected        bool // a parsed line within the last 30 s
	Running, Waiting uint32
	// WokeAt is when the screen last came on from off; zero if it never
	// went off.
	WokeAt time.Time
	// OneShot plays until OneShotUntil; a newer one-shot replaces it.
	OneShot      State
	OneShotUntil time.Time
}

// Persona picks the state to show at now. A running one-shot wins, then
// the base state in the reference's priority: disconnected, waiting,
// running, idle. Idle shows as sleep for WakeSleepFor after a wake.
func Persona(sc Scene, r Rules, now time.Time) State {
	if now.Before(sc.OneShotUntil) && OneShotFor(sc.OneShot) > 0 {
		return sc.OneShot
	}
	busyAt := max(r.BusyMinRunning, 1)
	var s State
	switch {
	case !sc.Connected:
		if r.SleepWhenDisconnected {
			return Sleep
		}
		s = Idle
	case sc.Waiting > 0:
		return Attention
	case sc.Running >= busyAt:
		return Busy
	default:
		s = Idle
	}
	if !sc.WokeAt.IsZero() && !now.Before(sc.WokeAt) && now.Sub(sc.WokeAt) < WakeSleepFor {
		return Sleep
	}
	return s
}
