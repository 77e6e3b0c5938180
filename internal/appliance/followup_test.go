package appliance

import (
	"strings"
	"testing"
	"time"
)

func TestResolveFollowUp(t *testing.T) {
	for _, tc := range []struct {
		v      VoiceConfig
		stt    bool
		want   time.Duration
		errHas string
	}{
		{VoiceConfig{}, false, 0, ""},
		{VoiceConfig{}, true, 0, ""},
		{VoiceConfig{FollowUp: true}, true, 10 * time.Second, ""},
		{VoiceConfig{FollowUp: true, FollowUpSeconds: 30}, true, 30 * time.Second, ""},
		{VoiceConfig{FollowUp: true, FollowUpSeconds: 3}, true, 3 * time.Second, ""},
		{VoiceConfig{FollowUp: true}, false, 0, "needs voice.stt_command"},
		{VoiceConfig{FollowUp: true, FollowUpSeconds: 31}, true, 0, "want 3..30"},
		{VoiceConfig{FollowUp: true, FollowUpSeconds: 2}, true, 0, "want 3..30"},
		{VoiceConfig{FollowUp: true, FollowUpSeconds: -1}, true, 0, "want 3..30"},
		{VoiceConfig{FollowUpSeconds: 8}, false, 0, ""},
		{VoiceConfig{FollowUpSeconds: 99}, false, 0, "want 3..30"},
	} {
		got, err := resolveFollowUp(tc.v, tc.stt)
		if got != tc.want || (err == nil) != (tc.errHas == "") || (err != nil && !strings.Contains(err.Error(), tc.errHas)) {
			t.Errorf("resolveFollowUp(%+v, stt %v) = %v, %v; want %v, error with %q", tc.v, tc.stt, got, err, tc.want, tc.errHas)
		}
	}
}
