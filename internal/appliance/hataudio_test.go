package appliance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/boards"
	"github.com/claude-pi/claude-pi/supervisor"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// TestHATAudioShowsAMissingCard: on a HAT board without its sound card the
// audio service is not RUNNING; it goes FATAL with the doctor's finding and
// fix. With the card it runs and says where the chimes play.
func TestHATAudioShowsAMissingCard(t *testing.T) {
	p, err := boards.Lookup("pirate-audio")
	if err != nil {
		t.Fatal(err)
	}
	withCard := t.TempDir()
	if err := os.MkdirAll(filepath.Join(withCard, "proc", "asound"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(withCard, "proc", "asound", "cards"),
		" 0 [sndrpihifiberry]: RPi-simple - snd_rpi_hifiberry_dac\n                      snd_rpi_hifiberry_dac\n")
	for _, tt := range []struct {
		root      string
		state     supervisor.State
		wantInfo  string
		wantFixOr string
	}{
		{t.TempDir(), supervisor.Fatal, "no sound card", "hifiberry-dac"},
		{withCard, supervisor.Running, "aplay -D " + p.Audio.Device, ""},
	} {
		policy := supervisor.Policy{Autostart: true, MaxRestarts: 1, Window: time.Minute, BackoffMin: 10 * time.Millisecond, BackoffMax: 10 * time.Millisecond}
		// A service that fails is no start-up error.
		tree := supervisortest.Start(t, supervisor.Service{Name: "audio", Policy: policy, New: hatAudioAt(p, tt.root)})
		pi := supervisortest.WaitState(t, tree, "audio", tt.state)
		text := pi.Description + " " + pi.SpawnErr
		if !strings.Contains(text, tt.wantInfo) || !strings.Contains(text, tt.wantFixOr) {
			t.Errorf("audio %s: %q, want %q and %q", pi.State, text, tt.wantInfo, tt.wantFixOr)
		}
	}
}
