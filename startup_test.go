package main

import (
	"strings"
	"testing"
)

// TestStartupLosesNoMessage starts and stops the sim appliance and fails
// on any message that reached no actor. protoactor logs "[DeadLetter]" for
// a message sent to a service that is not running yet (or any more), which
// is what a DependsOn missing from topology causes: the sender's Started
// runs before the receiver exists.
func TestStartupLosesNoMessage(t *testing.T) {
	a := startApplianceWith(t, nil)
	// Every service answers only after the messages queued before the
	// question, so once /api/state is complete each Started's messages
	// have been delivered.
	a.apiState(t)
	a.stop()
	for _, line := range strings.Split(a.logs.String(), "\n") {
		if strings.Contains(line, "[DeadLetter]") {
			t.Errorf("a message reached no actor: %s", line)
		}
	}
}
