package appliance

import (
	"fmt"
	"time"

	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

// defaultFollowUpSeconds is [voice] follow_up_seconds when unset: long
// enough to hear the reply's end and reach the dock, short enough that a
// terminal nobody answers from the dock is not held up for long.
const defaultFollowUpSeconds = 10

// resolveFollowUp checks [voice] follow_up and follow_up_seconds: the
// window a terminal session's Stop hook waits for a head swipe, 0 when
// off. It needs stt_command, which hears the sentence.
func resolveFollowUp(v VoiceConfig, hasSTT bool) (time.Duration, error) {
	n := v.FollowUpSeconds
	if n == 0 {
		n = defaultFollowUpSeconds
	}
	if max := int(hookbridge.MaxFollowUpWindow / time.Second); n < 3 || n > max {
		return 0, fmt.Errorf("voice.follow_up_seconds = %d: want 3..%d seconds", n, max)
	}
	if !v.FollowUp {
		return 0, nil
	}
	if !hasSTT {
		return 0, fmt.Errorf("voice.follow_up = true needs voice.stt_command, which hears the follow-up (see README, \"Talk to Claude through Stack-chan\")")
	}
	return time.Duration(n) * time.Second, nil
}
