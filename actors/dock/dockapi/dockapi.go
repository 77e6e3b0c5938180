// Package dockapi holds the messages other actors send the dock service
// about Stack-chan's tools (spec §18): the current catalog, and calls. It
// is its own package so that lan, which dock already imports, can use them
// without an import cycle.
package dockapi

import (
	"encoding/json"
	"time"

	"github.com/claude-pi/claude-pi/protocols/stackchan/realtime"
)

// Service is the dock's service name (dock.ServiceName).
const Service = "dock"

// GetCatalog asks for the catalog. With After set to the Version the asker
// already has, the dock answers only when the catalog changes, or after
// Hold with the same version (a long poll). The answer is a Catalog.
type GetCatalog struct {
	After uint64
	Wait  bool
}

// Hold is the longest the dock holds a GetCatalog with Wait; askers wait
// for the answer a little longer than this.
const Hold = 20 * time.Second

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

// CallWait is how long an asker waits for a ToolResult.
const CallWait = realtime.CallTimeout + 5*time.Second

// ToolResult answers CallTool: Output, or Code and Error
// (realtime.ErrorCode names).
type ToolResult struct {
	Output string
	Code   string
	Error  string
}
