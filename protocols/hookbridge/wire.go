package hookbridge

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// DefaultPort is the TCP port of the Pi's LAN API.
const DefaultPort = 7787

// API paths. Everything except the pairing paths needs a paired client
// certificate. Pairing is at v2 (pairing.go): a Pi answers the v1 paths
// with 410 and OldPairingClient, so that an old `claude-pi pair` says what
// to do instead of pairing without a commitment.
const (
	PathPair        = "/v2/pair"
	PathPairReveal  = "/v2/pair/reveal"
	PathPairConfirm = "/v2/pair/confirm"
	PathPairCancel  = "/v2/pair/cancel"
	PathPermission  = "/v1/permission"
	PathEvent       = "/v1/event"

	// PathPairV1 and PathPairConfirmV1 are the pairing paths before the
	// commitment (claude-pi 0.x), answered only with OldPairingClient.
	PathPairV1        = "/v1/pair"
	PathPairConfirmV1 = "/v1/pair/confirm"
)

// OldPairingClient is a Pi's answer to the v1 pairing paths.
const OldPairingClient = "this Pi pairs with pairing protocol v2 (a commitment before the code): update claude-pi on this computer, then run claude-pi pair again"

// HeaderHookStarted is the request header with which a hook says when its
// process was spawned: nanoseconds on a clock of the computer's own
// (drivers/procwatch.Started), comparable only between requests of the
// same client. Claude Code runs each hook as its own process and starts
// the async ones (SessionStart, UserPromptSubmit) in the background, so a
// turn's UserPromptSubmit can reach the Pi after the PermissionRequest
// that follows it; spawn order, not arrival order, says which prompts an
// event ends. It is a header rather than a body field because the bodies
// decode strictly: a Pi that predates it ignores it.
const HeaderHookStarted = "Claude-Pi-Hook-Started"

// ParseHookStarted reads a HeaderHookStarted value; anything but a
// positive decimal integer reads as 0, "not known".
func ParseHookStarted(v string) int64 {
	if len(v) > 19 {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// Field limits of the LAN requests. The hook summarises and clips before
// sending, so a request over these limits is refused, not truncated.
const (
	MaxID      = 64
	MaxSession = 128
	MaxProject = 128
	MaxTool    = 128
	MaxHint    = 512
	// MaxDetail holds a 4 KB command or an edit's old and new text whole,
	// and stays under the CoreS3's 16 KiB approval detail.
	MaxDetail   = 12 << 10
	MaxActivity = 200
	MaxReply    = 2048
	MaxName     = 64
	// MaxLabel bounds a Decision's Device and By and a PairResponse's
	// Device: names that reach Claude in a deny message or the user's
	// terminal, so they are also cut to printable characters (Printable).
	MaxLabel = 64
	// MaxReason bounds the Reason of a Decision or PairResponse.
	MaxReason = 256
	// MaxRequest bounds a request body, with room for JSON escaping
	// (\u00XX makes a control character six bytes).
	MaxRequest = 96 << 10
)

// Behaviors of a Decision.
const (
	BehaviorAllow = "allow"
	BehaviorDeny  = "deny"
	// BehaviorNone: no decision (answered in the terminal, withdrawn, the
	// Pi shutting down). The hook prints nothing.
	BehaviorNone = "none"
)

// PermissionRequest is what the hook sends to the Pi for one permission
// dialog. The Pi answers with a Decision when the user decides, or
// BehaviorNone; the hook closing the connection withdraws the request.
type PermissionRequest struct {
	// ID is made by the hook (there is none in the hook input); unique
	// within the session.
	ID      string `json:"id"`
	Session string `json:"session"`
	Project string `json:"project"`
	Tool    string `json:"tool"`
	Hint    string `json:"hint,omitempty"`
	Detail  string `json:"detail,omitempty"`
	// Warnings are Call.Warnings, one per line: flags of the call that
	// widen what it may do, which the Pi draws apart from the detail.
	// Truncated is Call.Truncated. A Pi that predates them refuses a
	// request that sets them, and the terminal's dialog carries on.
	Warnings  string `json:"warnings,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
	// Agent is set for a subagent's request: its agent_id; AgentType
	// names the kind of subagent for the screen.
	Agent     string `json:"agent,omitempty"`
	AgentType string `json:"agent_type,omitempty"`
	Mode      string `json:"mode,omitempty"`
	// Call is the CallKey of the tool call, so the PostToolUse that
	// reports this call clears this prompt and no other.
	Call string `json:"call,omitempty"`
	// CLI is the coding CLI whose hook sent it: "" for Claude Code,
	// CLICodex for Codex. A Pi that predates it refuses the request, and
	// Codex's own approval carries on.
	CLI string `json:"cli,omitempty"`
	// Questions are an AskUserQuestion's questions (question.go), sent
	// by its PreToolUse hook: the Pi answers with Decision.Choices, or
	// with BehaviorNone for "answer at the computer". A Pi that predates
	// them refuses the request, and the terminal asks.
	Questions []Question `json:"questions,omitempty"`
	// Started is the request's HeaderHookStarted, 0 if none; the Pi sets
	// it from the header, never from the body.
	Started int64 `json:"-"`
}

// Event is what `claude-pi hook event` sends: a session moved on.
type Event struct {
	Session  string `json:"session"`
	Event    string `json:"event"`
	Project  string `json:"project"`
	Agent    string `json:"agent,omitempty"`
	Activity string `json:"activity,omitempty"`
	// Call is the CallKey of a PostToolUse's tool call.
	Call string `json:"call,omitempty"`
	// Reply is Claude's reply of a Stop (Reply), for the Pi to speak.
	Reply string `json:"reply,omitempty"`
	// CLI is as in PermissionRequest.
	CLI string `json:"cli,omitempty"`
	// Mode is the session's permission_mode as of this event (modes.go).
	// Notification is a Notification's notification_type. A Pi that
	// predates them refuses an event that sets them; the hook sends them
	// only when the hook input has them, and on that refusal sends the
	// event again without them (RefusesUnknownField).
	Mode         string `json:"mode,omitempty"`
	Notification string `json:"notification,omitempty"`
	// Started is the request's HeaderHookStarted, as in PermissionRequest.
	Started int64 `json:"-"`
}

// Decision is the Pi's answer to a PermissionRequest.
type Decision struct {
	ID       string `json:"id"`
	Behavior string `json:"behavior"`
	// Device is the appliance's name ("Claude_Pi"); By names the input
	// that decided ("Claude_Pi" button, "CoreS3", "voice").
	Device string `json:"device,omitempty"`
	By     string `json:"by,omitempty"`
	// Reason says why there is no decision (BehaviorNone).
	Reason string `json:"reason,omitempty"`
	// Choices answer a request with Questions (BehaviorAllow only): per
	// question, the indices of the options chosen (CheckChoices).
	Choices [][]int `json:"choices,omitempty"`
}

// PairCommit opens a pairing (step 1 of pairing.go): the client's
// display name and its Commitment, hex.
type PairCommit struct {
	Name       string `json:"name"`
	Commitment string `json:"commitment"`
}

// PairNonce answers PairCommit (step 2): the Pi's nonce, hex, and its
// name.
type PairNonce struct {
	Nonce  string `json:"nonce"`
	Device string `json:"device,omitempty"`
}

// PairReveal opens the commitment (step 3): the client's nonce, hex. The
// Pi answers it with a PairResponse once the button decides.
type PairReveal struct {
	Nonce string `json:"nonce"`
}

// Statuses of a PairResponse.
const (
	PairAccepted = "accepted"
	PairRefused  = "refused"
	PairPaired   = "paired"
)

// PairResponse answers PairReveal (Status PairAccepted or PairRefused)
// and the confirmation (PairPaired).
type PairResponse struct {
	Status string `json:"status"`
	// Device is the Pi's name, to remember it by.
	Device string `json:"device,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// ErrRequest marks a LAN request body that is refused.
var ErrRequest = errors.New("hookbridge: bad request")

// DecodePermissionRequest parses and checks a PermissionRequest body.
func DecodePermissionRequest(b []byte) (PermissionRequest, error) {
	var r PermissionRequest
	if err := decodeStrict(b, &r); err != nil {
		return PermissionRequest{}, err
	}
	err := check(
		field{"id", r.ID, MaxID, true}, field{"session", r.Session, MaxSession, true},
		field{"project", r.Project, MaxProject, false}, field{"tool", r.Tool, MaxTool, true},
		field{"hint", r.Hint, MaxHint, false}, field{"detail", r.Detail, MaxDetail, false},
		field{"warnings", r.Warnings, MaxWarnings, false},
		field{"agent", r.Agent, MaxSession, false}, field{"agent_type", r.AgentType, MaxTool, false},
		field{"mode", r.Mode, MaxTool, false}, field{"call", r.Call, MaxID, false},
	)
	if err == nil {
		err = checkCLI(r.CLI)
	}
	if err == nil {
		err = questionsValid(r.Questions)
	}
	if err != nil {
		return PermissionRequest{}, err
	}
	return r, nil
}

// DecodeEvent parses and checks an Event body.
func DecodeEvent(b []byte) (Event, error) {
	var e Event
	if err := decodeStrict(b, &e); err != nil {
		return Event{}, err
	}
	err := check(
		field{"session", e.Session, MaxSession, true}, field{"event", e.Event, MaxTool, true},
		field{"project", e.Project, MaxProject, false}, field{"agent", e.Agent, MaxSession, false},
		field{"activity", e.Activity, MaxActivity, false}, field{"call", e.Call, MaxID, false},
		field{"reply", e.Reply, MaxReply, false},
		field{"mode", e.Mode, MaxTool, false}, field{"notification", e.Notification, MaxTool, false},
	)
	if err == nil {
		err = checkCLI(e.CLI)
	}
	if err != nil {
		return Event{}, err
	}
	return e, nil
}

// DecodePairCommit parses and checks a PairCommit body (the Pi's side):
// the name, and the commitment as bytes.
func DecodePairCommit(b []byte) (name string, commitment []byte, err error) {
	var p PairCommit
	if err := decodeStrict(b, &p); err != nil {
		return "", nil, err
	}
	if err := check(field{"name", p.Name, MaxName, true}); err != nil {
		return "", nil, err
	}
	if Printable(p.Name, MaxName) != p.Name {
		return "", nil, fmt.Errorf("%w: name has characters that cannot be shown", ErrRequest)
	}
	c, err := decodeHex("commitment", p.Commitment, 32)
	if err != nil {
		return "", nil, err
	}
	return p.Name, c, nil
}

// DecodePairNonce parses a PairNonce (the client's side): the Pi's nonce
// as bytes, and its name cut to Printable.
func DecodePairNonce(b []byte) (nonce []byte, device string, err error) {
	var p PairNonce
	if err := decodeStrict(b, &p); err != nil {
		return nil, "", err
	}
	n, err := decodeHex("nonce", p.Nonce, NonceSize)
	if err != nil {
		return nil, "", err
	}
	return n, Printable(p.Device, MaxLabel), nil
}

// DecodePairReveal parses a PairReveal body (the Pi's side): the
// client's nonce.
func DecodePairReveal(b []byte) ([]byte, error) {
	var p PairReveal
	if err := decodeStrict(b, &p); err != nil {
		return nil, err
	}
	return decodeHex("nonce", p.Nonce, NonceSize)
}

// DecodePairResponse parses a PairResponse (the client's side). An
// unknown status is an error; Device and Reason are cut to Printable.
func DecodePairResponse(b []byte) (PairResponse, error) {
	var p PairResponse
	if err := decodeStrict(b, &p); err != nil {
		return PairResponse{}, err
	}
	switch p.Status {
	case PairAccepted, PairRefused, PairPaired:
	default:
		return PairResponse{}, fmt.Errorf("%w: pairing status %q", ErrRequest, Printable(p.Status, MaxLabel))
	}
	p.Device, p.Reason = Printable(p.Device, MaxLabel), Printable(p.Reason, MaxReason)
	return p, nil
}

func decodeHex(name, s string, n int) ([]byte, error) {
	if len(s) != 2*n {
		return nil, fmt.Errorf("%w: %s is %d hex digits, want %d", ErrRequest, name, len(s), 2*n)
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%w: %s is not hex", ErrRequest, name)
	}
	return b, nil
}

// Printable is s without the characters a terminal or the Pi's screen
// would not show as themselves (controls, format characters such as
// bidirectional overrides, invalid UTF-8), cut to at most max runes.
func Printable(s string, max int) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == max {
			break
		}
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			continue
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// DecodeDecision parses a Decision (the hook reading the Pi's answer).
// Anything but a well-formed allow or deny for wantID reads as no decision.
func DecodeDecision(b []byte, wantID string) (Decision, error) {
	var d Decision
	if err := decodeStrict(b, &d); err != nil {
		return Decision{}, err
	}
	switch d.Behavior {
	case BehaviorAllow, BehaviorDeny:
		if d.ID != wantID {
			return Decision{}, fmt.Errorf("%w: decision for %q, want %q", ErrRequest, d.ID, wantID)
		}
	case BehaviorNone:
	default:
		return Decision{}, fmt.Errorf("%w: behavior %q", ErrRequest, d.Behavior)
	}
	if err := checkChoicesShape(d.Choices); err != nil {
		return Decision{}, err
	}
	if d.Choices != nil && d.Behavior != BehaviorAllow {
		return Decision{}, fmt.Errorf("%w: choices with behavior %q", ErrRequest, d.Behavior)
	}
	// Device and By reach Claude in the deny message, and Reason the
	// terminal: short and printable, whatever the Pi sent.
	d.Device, d.By, d.Reason = Printable(d.Device, MaxLabel), Printable(d.By, MaxLabel), Printable(d.Reason, MaxReason)
	return d, nil
}

func decodeStrict(b []byte, v any) error {
	if len(b) > MaxRequest {
		return fmt.Errorf("%w: %d bytes, more than %d", ErrRequest, len(b), MaxRequest)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %v", ErrRequest, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: trailing data after the object", ErrRequest)
	}
	return nil
}

// RefusesUnknownField reports whether reason, a Pi's 400 answer, is
// decodeStrict refusing field as unknown: what a Pi that predates an
// optional field answers to a request that sets it (decodeStrict has said
// it in these words since the first Pi), so that the sender can send it
// again without the field.
func RefusesUnknownField(reason, field string) bool {
	return strings.Contains(reason, `unknown field "`+field+`"`)
}

// checkCLI refuses a CLI the Pi does not know, so that a newer hook's
// prompt is not shown under the wrong name.
func checkCLI(cli string) error {
	if cli != "" && cli != CLICodex {
		return fmt.Errorf("%w: cli %q is not one this Pi knows (\"\" or %q)", ErrRequest, Printable(cli, MaxLabel), CLICodex)
	}
	return nil
}

type field struct {
	name     string
	v        string
	max      int
	required bool
}

func check(fs ...field) error {
	for _, f := range fs {
		switch {
		case f.required && f.v == "":
			return fmt.Errorf("%w: %s is empty", ErrRequest, f.name)
		case len(f.v) > f.max:
			return fmt.Errorf("%w: %s is %d bytes, more than %d", ErrRequest, f.name, len(f.v), f.max)
		case !utf8.ValidString(f.v):
			return fmt.Errorf("%w: %s is not UTF-8", ErrRequest, f.name)
		}
	}
	return nil
}
