package buddy

import (
	"time"

	"github.com/claude-pi/claude-pi/actors/buddy/stats"
	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
	"github.com/claude-pi/claude-pi/protocols/buddy/folderpush"
)

// ServiceName is the buddy service's name in the supervision tree.
const ServiceName = "buddy"

// Source is the approvals source name of the desktop's prompts.
const Source = "desktop"

// GetState asks for the current State; the actor answers with Respond
// (for /api/state and the UI).
type GetState struct{}

// Turn is one transcript message from the desktop ({"evt":"turn"}), sent
// to every subscriber: the dock speaks assistant text, the UI may show it.
// It never changes the prompt or the snapshot.
type Turn struct{ Event pbuddy.TurnEvent }

// BuiltInSpecies is how many characters of its own the appliance draws
// (actors/ui/screens.Species, which a ui test holds to this count).
// {"cmd":"species","idx":N} selects 0 to BuiltInSpecies-1, or
// SpeciesPack for the installed character pack (the reference's 255).
const BuiltInSpecies = 4

// Species values that are not a built-in's index.
const (
	// SpeciesDefault: nobody chose; the screen shows the installed pack
	// if there is one, else the first built-in (what it did before the
	// species command was answered).
	SpeciesDefault = -1
	// SpeciesPack is the installed pack, as the reference numbers it.
	SpeciesPack = 255
)

// SetSpecies is the screen's settings page choosing the character. The
// buddy keeps it with the owner and name, as it keeps the desktop's
// species command, so both ways of choosing persist in one place. An idx
// the species command would refuse is ignored (and logged).
type SetSpecies struct{ Idx int }

// Nap is a stretch of the pet's rest: the Pi has no IMU to lie face
// down, so the ui sends one when its screen wakes after sleeping at least
// a minute (actors/ui NapMin). Its seconds add to the status ack's "nap"
// and refill the energy, as a face-down nap does on the reference.
type Nap struct{ Start, End time.Time }

// Progress is a running folder push, as the screen shows it.
type Progress = folderpush.Progress

// State is the desktop session as the UI and /api/state see it. It is a
// copy: the receiver may keep it. A supervisor.Subscribe gets the current
// State at once, then every change, and every Turn.
type State struct {
	// Connected is true while the desktop is alive: a valid line arrived
	// within the last 30 s on a connected link (spec §5.4).
	Connected bool
	// Owner and Name are the owner's first name ("" when unknown) and the
	// device's display name, both persisted.
	Owner, Name string
	// Snapshot is the latest heartbeat state, nil before the first one.
	// After link loss its counts are zero and Msg is "No Claude
	// connected"; its Entries (the transcript) are kept.
	Snapshot *pbuddy.Heartbeat
	// PromptArrived is when the snapshot's prompt first appeared.
	PromptArrived time.Time
	// Push is the running folder push; nil when idle.
	Push *Progress
	// Pack is the display name of the installed character pack, "" if
	// none was installed through a push.
	Pack string
	// Stats are the pet statistics and what is derived from them.
	Stats StatsView
	// Desktop is the desktop's clock from its "time" line; nil until one
	// arrived. The system clock is never set from it (spec §5.3).
	Desktop *DesktopClock
	// Secured mirrors the link's encryption (the status ack's "sec").
	Secured bool
	// Species is the chosen character, 0 to BuiltInSpecies-1 or
	// SpeciesPack, when SpeciesChosen; the zero State chose none (see
	// SpeciesDefault). Persisted with Owner and Name. Character reads both.
	Species       int
	SpeciesChosen bool
}

// Character is the chosen species, or SpeciesDefault when none was.
func (s State) Character() int {
	if !s.SpeciesChosen {
		return SpeciesDefault
	}
	return s.Species
}

// StatsView is the persisted stats plus the derived values.
type StatsView struct {
	stats.Report
	Tokens uint64 // lifetime output tokens
	Fed    int    // pips 0-9 towards the next level
	Mood   int    // tier 0-4
	// Energy is 0-5 at any time through Energy.At: it decays by itself,
	// and only a nap publishes a new one.
	Energy stats.Energy
}

// DesktopClock is the desktop's "time" line and when it arrived.
type DesktopClock struct {
	Epoch    int64 // seconds since 1970 UTC
	Offset   int32 // the desktop's zone, seconds east of UTC
	Received time.Time
}

// Now is the desktop's wall clock at local time now, in its zone.
func (d DesktopClock) Now(now time.Time) time.Time {
	t := time.Unix(d.Epoch, 0).Add(now.Sub(d.Received))
	return t.In(time.FixedZone("desktop", int(d.Offset)))
}

// tick drives liveness, the push idle timeout and rate-limited stats saves.
type tick struct{}
