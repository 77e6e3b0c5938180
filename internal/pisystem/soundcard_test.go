package pisystem

import (
	"strings"
	"testing"
)

func TestAsoundCards(t *testing.T) {
	const cards = ` 0 [sndrpihifiberry]: RPi-simple - snd_rpi_hifiberry_dac
                      snd_rpi_hifiberry_dac
 1 [vc4hdmi        ]: vc4-hdmi - vc4-hdmi
                      vc4-hdmi
`
	got := asoundCards(cards + "--- no soundcards ---\n")
	if strings.Join(got, ",") != "sndrpihifiberry,vc4hdmi" {
		t.Errorf("asoundCards = %q", got)
	}
}
