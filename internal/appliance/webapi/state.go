package webapi

import "time"

// The parts of State, each filled in by the service that owns it. A part
// is nil (null in the JSON) while its service does not answer.

// Link is the BLE link to the Claude desktop app.
type Link struct {
	Advertising  bool   `json:"advertising"`
	AdvertiseErr string `json:"advertiseErr,omitempty"`
	Connected    bool   `json:"connected"`
	Central      string `json:"central"`
	Subscribed   bool   `json:"subscribed"`
	Secured      bool   `json:"secured"`
	MTU          int    `json:"mtu"`
	Passkey      string `json:"passkey"`
	CanPair      bool   `json:"canPair"`
	Security     string `json:"security"`
}

// Snapshot is the latest heartbeat from the desktop.
type Snapshot struct {
	Total       uint32   `json:"total"`
	Running     uint32   `json:"running"`
	Waiting     uint32   `json:"waiting"`
	Msg         string   `json:"msg"`
	Entries     []string `json:"entries"`
	Tokens      uint64   `json:"tokens"`
	TokensToday uint64   `json:"tokens_today"`
}

// Prompt is one pending prompt.
type Prompt struct {
	Source string `json:"source"`
	ID     string `json:"id"`
	Tool   string `json:"tool"`
	Hint   string `json:"hint"`
	// Detail is the longer text the approval screen pages through (a
	// command line, a path), "" when the source sent none; Truncated
	// says it does not hold the whole call. Warnings are the call's
	// flags that widen what it may do, one a line as the screen draws
	// them, [] when none.
	Detail    string   `json:"detail"`
	Warnings  []string `json:"warnings"`
	Truncated bool     `json:"truncated"`
	AgeMs     int64    `json:"ageMs"`
	Decided   bool     `json:"decided"`
	By        string   `json:"by,omitempty"`
	// Reconnecting: the link dropped; the prompt is shown but cannot be
	// answered until a heartbeat after the reconnect lists it again.
	Reconnecting bool `json:"reconnecting"`
}

// Forget is the forget-pairing flow, while it is on: Step is "asking",
// "sending" or "done", and the rest is the answer the screen shows when
// done.
type Forget struct {
	Step    string `json:"step"`
	Removed int    `json:"removed"`
	NoBonds bool   `json:"noBonds"`
	Err     string `json:"err,omitempty"`
}

// Dock is the CoreS3 dock.
type Dock struct {
	Connected     bool   `json:"connected"`
	Path          string `json:"path"`
	Serial        string `json:"serial"`
	Ready         bool   `json:"ready"`
	Event         bool   `json:"event"`
	Description   string `json:"description"`
	Pending       int    `json:"pending"`
	MaxCreditWait int64  `json:"maxCreditWaitMs"`
	// NewDock is a plugged CoreS3 waiting to be accepted on the Pi's
	// screen (its port stays closed until then), null when none waits.
	NewDock *NewDock `json:"newDock"`
	// DisplayOnly: [dock] approvals = false, the CoreS3 decides nothing.
	DisplayOnly bool `json:"displayOnly"`
}

// NewDock is a CoreS3 asking to be accepted: Serial as it reported it
// (what accepting it remembers), Shown as the screen draws it.
type NewDock struct {
	Serial string `json:"serial"`
	Shown  string `json:"shown"`
	// Looks is its USB product and manufacturer; Was, when its serial was
	// accepted before under other USB names, how it looked then.
	Looks string `json:"looks"`
	Was   string `json:"was,omitempty"`
}

// LAN is the CLI-hook bridge. Pairing.Code is the pairing code waiting
// for the approve button: scripts and tests pair by reading it here, as a
// user reads it off the screen.
type LAN struct {
	Listen   string       `json:"listen"`
	Clients  []LANClient  `json:"clients"`
	Pairing  *LANPairing  `json:"pairing"`
	Sessions []LANSession `json:"sessions"`
	Pending  int          `json:"pending"`
}

// LANClient is a paired computer.
type LANClient struct {
	Name        string    `json:"name"`
	Fingerprint string    `json:"fingerprint"`
	Paired      time.Time `json:"paired"`
}

// LANPairing is a pairing request on the screen.
type LANPairing struct {
	Name     string `json:"name"`
	Code     string `json:"code"`
	Accepted bool   `json:"accepted"`
}

// LANSession is one Claude Code session the hooks report.
type LANSession struct {
	ID       string `json:"id"`
	Client   string `json:"client"`
	Project  string `json:"project"`
	State    string `json:"state"`
	Activity string `json:"activity"`
	Pending  int    `json:"pending"`
}
