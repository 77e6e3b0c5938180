package lan

import (
	"encoding/json"
	"time"

	"github.com/claude-pi/claude-pi/protocols/hookbridge"
	"github.com/claude-pi/claude-pi/protocols/stackchan/realtime"
)

// ServiceName is the lan service's name in the supervision tree.
const ServiceName = "lan"

// AcceptPairing is the user pressing approve on the Pi while a pairing
// request shows Code. A Code that is not the pending one is ignored, so a
// stale press never pairs a newer, unseen client.
type AcceptPairing struct{ Code string }

// RefusePairing is the user pressing deny while a pairing request shows.
type RefusePairing struct{}

// Revoke removes the paired client called Name; its pending prompts are
// withdrawn and its next request is refused. Answered with RevokeResult.
type Revoke struct{ Name string }

// RevokeResult answers Revoke.
type RevokeResult struct {
	OK  bool
	Err string
}

// Reply is Claude's reply that ended a turn of a terminal session (the
// Stop hook's last_assistant_message), sent to Options.Speak, which says
// it as the desktop's assistant turns are said.
type Reply struct {
	Session, Project string
	// Computer is the paired client's name: with Project it names the
	// session on the dock's follow-up card.
	Computer string
	Text     string
	// FollowUp is the window in which a head swipe on the dock answers
	// this reply with a spoken follow-up (lan.FollowUp); 0: none is
	// waited for.
	FollowUp time.Duration
}

// WaitingText is what the Pi shows, and Stack-chan says, while a
// terminal session waits for its user (Session.WaitingSince).
const WaitingText = "Claude is waiting for you"

// GetState asks for the current State (answered with Respond). A
// supervisor.Subscribe gets the State at once, then after every change,
// and an empty one (no pairing, no sessions) when the lan stops.
type GetState struct{}

// State is what the UI and /api/state show.
type State struct {
	// Addr is the address the API listens on; "" when off.
	Addr    string
	Device  string
	Clients []Client
	// Pairing is the pairing request waiting for the approve button, or
	// nil.
	Pairing *Pairing
	// Sessions are the CLI sessions the hooks reported, most recent first.
	Sessions []Session
	// Pending counts CLI prompts waiting for a decision.
	Pending int
	// Conns counts the API's open connections; ConnsRefused those closed
	// at once for being over a cap (Options.MaxConns, MaxConnsPerAddr).
	Conns        int
	ConnsRefused int64
}

// Client is a paired computer.
type Client struct {
	Name        string    `json:"name"`
	Fingerprint string    `json:"fingerprint"`
	Paired      time.Time `json:"paired"`
}

// Pairing is a pairing request on screen: the Pi shows Code, the computer
// prints the same. Accepted turns true on the approve button; the client
// is paired once the computer's user confirms too, within
// Options.AcceptTimeout (pairing.go has the stages). A request whose
// commitment is not yet opened has no code and is not in State.
type Pairing struct {
	Name     string
	Code     string
	Since    time.Time
	Accepted bool
}

// Session is one Claude Code session on a paired computer.
type Session struct {
	ID      string
	Client  string
	Project string
	// CLI is the coding CLI the session runs in: "" for Claude Code,
	// hookbridge.CLICodex for Codex.
	CLI string
	// State is "running", "waiting" (a prompt is pending) or "idle".
	State    string
	Activity string
	Pending  int
	Updated  time.Time
	// Mode is the session's permission_mode as of its last hook
	// (hookbridge.ModeBadge names it; ModeSkipsPrompts warns of it).
	Mode string
	// WaitingSince is when Claude began waiting for the user, as a
	// Notification hook said (hookbridge.WaitsForUser), and WaitingFor
	// that notification's type; zero until the session moves on. A
	// repeated Notification keeps the first time, so one waiting episode
	// is one WaitingSince: the dock says it once per value.
	WaitingSince time.Time
	WaitingFor   string
}

// CLIName names the session's CLI for the screen: "Codex" or "CLI".
func (s Session) CLIName() string { return hookbridge.CLIName(s.CLI) }

// The messages lan's tool routes send the dock (Options.Tools) about
// Stack-chan's tools (spec §18), here beside Reply and FollowUp: every
// message between lan and dock has this one place (dock imports lan).

// GetCatalog asks for the catalog. With After set to the Version the asker
// already has, the dock answers only when the catalog changes, or after
// CatalogHold with the same version (a long poll). The answer is a Catalog.
type GetCatalog struct {
	After uint64
	Wait  bool
}

// CatalogHold is the longest the dock holds a GetCatalog with Wait; askers wait
// for the answer a little longer than this.
const CatalogHold = 20 * time.Second

// Catalog is the docked CoreS3's current tool catalog.
type Catalog struct {
	// Version changes whenever what can be called changes: a new
	// generation, its acknowledgement, the dock going away.
	Version uint64
	// Docked: a CoreS3 is attached with EVENT ready.
	Docked bool
	// Generation and UpdateID name the catalog (0 and "" when none);
	// calls pass UpdateID so a stale one is refused.
	Generation   uint64
	UpdateID     string
	Instructions string
	Tools        []realtime.Tool
}

// CallTool calls one tool of the catalog UpdateID ("" = whatever is
// current). The answer, a ToolResult, comes when the CoreS3 answers or the
// call fails (at most realtime.CallTimeout later).
type CallTool struct {
	UpdateID  string
	Name      string
	Arguments json.RawMessage
}

// ToolCallWait is how long an asker waits for a ToolResult.
const ToolCallWait = realtime.CallTimeout + 5*time.Second

// ToolResult answers CallTool: Output, or Code and Error
// (realtime.ErrorCode names).
type ToolResult struct {
	Output string
	Code   string
	Error  string
}
