package approvals

import "testing"

// A Decision nobody set must deny: a forgotten field fails closed.
func TestDecisionZeroValueDenies(t *testing.T) {
	var d Decision
	if d != Deny || d.Allows() || d.String() != "deny" {
		t.Errorf("zero Decision = %v (allows %v), want Deny", d, d.Allows())
	}
}

func TestDecisionOf(t *testing.T) {
	if got := DecisionOf(true); got != AllowOnce || !got.Allows() || got.String() != "once" {
		t.Errorf("DecisionOf(true) = %v, want AllowOnce", got)
	}
	if got := DecisionOf(false); got != Deny || got.Allows() {
		t.Errorf("DecisionOf(false) = %v, want Deny", got)
	}
}
