package approvals

// Decision is a user's answer to one prompt, in approvals' own words: every
// input (Pi button, CoreS3 tap, voice) speaks it, and every source's owner
// translates it at its own edge (buddy to the BLE permission line, lan to
// the hook's behavior, the dock from the wire's bool). Only [AllowOnce] and
// [Deny] exist: the zero value is Deny, so a forgotten initialisation fails
// closed, and nothing like "always allow" can be expressed.
type Decision struct{ allow bool }

// The two decisions.
var (
	AllowOnce = Decision{allow: true} // allow this one tool call
	Deny      = Decision{}
)

// DecisionOf is AllowOnce when allow is true, else Deny: for an edge whose
// input is a yes/no (the CoreS3's wire, a button).
func DecisionOf(allow bool) Decision { return Decision{allow: allow} }

// Allows reports whether d lets the tool call run.
func (d Decision) Allows() bool { return d.allow }

// String names the decision for logs and the screens: "once" or "deny"
// (the words the desktop and the screens already use for it).
func (d Decision) String() string {
	if d.allow {
		return "once"
	}
	return "deny"
}
