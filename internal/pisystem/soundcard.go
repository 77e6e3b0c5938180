package pisystem

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/claude-pi/claude-pi/boards"
)

// ConfigTxtPaths are where Raspberry Pi OS bookworm and later mount the
// boot partition's config.txt; older releases used /boot/config.txt.
var ConfigTxtPaths = []string{"boot/firmware/config.txt", "boot/config.txt"}

// SoundCard checks under root for the sound card board p plays its chimes
// on (any card, for a board that names none): found, what was seen, and
// the fix for sys when it is missing. The doctor prints it; the audio
// service fails with it.
func SoundCard(root string, p boards.Profile, sys System) (found bool, detail, fix string) {
	b, err := os.ReadFile(filepath.Join(root, "proc/asound/cards"))
	cards := asoundCards(string(b))
	want := ""
	if p.Audio != nil {
		want = p.Audio.Card
	}
	switch {
	case err != nil || len(cards) == 0:
		detail = "no sound card in /proc/asound/cards"
	case want == "" || slices.Contains(cards, want):
		return true, strings.Join(cards, ", "), ""
	default:
		detail = fmt.Sprintf("card %q missing (found %s)", want, strings.Join(cards, ", "))
	}
	setupCmd := "sudo claude-pi setup --board " + p.Name
	switch {
	case want != "" && sys.Kind == RaspberryPiOS:
		fix = setupCmd + " (adds dtoverlay=hifiberry-dac to config.txt), then reboot; chimes are skipped until then"
	case want != "" && sys.Kind == ClaudePiImage:
		fix = setupCmd + " (loads dtoverlay=claude-pi-i2s-dac), then reboot; on a Pi 4/400 Debian's kernel gives I2S no DMA, so the card cannot play there"
	case want != "":
		fix = "enable the board's I2S DAC overlay (Raspberry Pi OS: dtoverlay=hifiberry-dac) and reboot; chimes are skipped until then"
	case sys.Kind == RaspberryPiOS:
		fix = "add dtparam=audio=on to config.txt, or plug in a USB sound card (chimes are skipped without one)"
	default:
		fix = "plug in a USB sound card, or go without: chimes are skipped without one"
	}
	return false, detail, fix
}

// asoundCards returns the card ids in /proc/asound/cards, whose lines
// look like " 0 [sndrpihifiberry]: RPi-simple - snd_rpi_hifiberry_dac".
func asoundCards(s string) []string {
	var ids []string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		line := sc.Text()
		open, end := strings.IndexByte(line, '['), strings.IndexByte(line, ']')
		if open < 0 || end < open || strings.TrimSpace(line[:open]) == "" {
			continue
		}
		ids = append(ids, strings.TrimSpace(line[open+1:end]))
	}
	return ids
}
