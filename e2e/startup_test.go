package e2e

import (
	"strings"
	"testing"
)

// TestStartupLosesNoMessage starts and stops the sim appliance and fails
// on any message that reached no actor. protoactor logs "[DeadLetter]" for
// a message sent to a service that is not running yet (or any more), which
// is what a DependsOn missing from topology causes: the sender's Started
// runs before the receiver exists.
//
// Only lines before "stopping" count. The tree stops services in reverse
// start order, so a publisher (ble) outlives its subscriber (ui) for a
// moment, and an event it publishes in that moment, such as the sim
// radio's first advert report, has nobody left to read it. CI once failed
// on exactly that line, 4 ms after the test asked to stop.
func TestStartupLosesNoMessage(t *testing.T) {
	a := startApplianceWith(t, nil)
	// Every service answers only after the messages queued before the
	// question, so once /api/state is complete each Started's messages
	// have been delivered.
	a.APIState(t)
	a.Stop()
	for _, line := range strings.Split(a.Logs.String(), "\n") {
		if strings.Contains(line, "msg=stopping") {
			break
		}
		if strings.Contains(line, "[DeadLetter]") {
			t.Errorf("a message reached no actor: %s", line)
		}
	}
}
