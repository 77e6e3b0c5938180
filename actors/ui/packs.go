package ui

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"image/gif"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/claude-pi/claude-pi/actors/ui/screens"
	"github.com/claude-pi/claude-pi/protocols/buddy/folderpush"
	"github.com/claude-pi/claude-pi/protocols/gifscan"
)

// PackDir is where the installed character pack lives under the data dir
// (drivers/storage.PackStore installs it there atomically).
func PackDir(dataDir string) string { return filepath.Join(dataDir, "packs", "current") }

// errNoPack means no pack is installed: the built-in character shows.
var errNoPack = errors.New("no character pack installed")

// maxGIFFile bounds one GIF read into memory; a pack is at most 1.9 MB.
const maxGIFFile = 2 << 20

// LoadPack loads the character pack in dir (manifest.json plus GIFs, or a
// text-mode manifest) with the screens players. It is I/O: the actor runs
// it off its mailbox.
func LoadPack(dir string) (screens.Character, string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", errNoPack
	}
	if err != nil {
		return nil, "", fmt.Errorf("pack %s: %w", dir, err)
	}
	m, err := folderpush.ParseManifest(data, func(name string) bool {
		st, err := os.Stat(filepath.Join(dir, name))
		return err == nil && st.Mode().IsRegular()
	})
	if err != nil {
		return nil, "", fmt.Errorf("pack %s: %w", dir, err)
	}
	bg := hexColor(m.Colors.BG, color.RGBA{A: 0xff})
	if m.Text {
		p := &screens.TextPack{States: map[screens.Persona]screens.TextState{}, BG: bg,
			Body: hexColor(m.Colors.Body, color.RGBA{0xD9, 0x77, 0x57, 0xff})}
		for st, ts := range m.Frames {
			p.States[screens.Persona(st)] = screens.TextState{Frames: ts.Frames, Delay: ts.Delay}
		}
		return p, m.Name, nil
	}
	read := func(name string) ([]byte, error) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err == nil && len(b) > maxGIFFile {
			err = fmt.Errorf("%s is %d bytes, limit %d", name, len(b), maxGIFFile)
		}
		return b, err
	}
	// The same check as char_end's, before anything is decoded: a pack
	// installed by an older version, or copied in by hand, must not cost
	// more either.
	if err := folderpush.CheckMemory(m, read); err != nil {
		return nil, "", fmt.Errorf("pack %s: %w", dir, err)
	}
	p := &screens.GIFPack{States: map[screens.Persona][]*screens.GIFAnim{}, BG: bg}
	loaded := map[string]*screens.GIFAnim{} // a GIF several states name is decoded once
	for st, files := range m.GIFs {
		for _, name := range files {
			if a := loaded[name]; a != nil {
				p.States[screens.Persona(st)] = append(p.States[screens.Persona(st)], a)
				continue
			}
			b, err := read(name)
			if err != nil {
				return nil, "", fmt.Errorf("pack %s: %w", dir, err)
			}
			if _, err := gifscan.Scan(b, folderpush.MaxGIFFrames); err != nil {
				return nil, "", fmt.Errorf("pack %s: %s: %w", dir, name, err)
			}
			g, err := gif.DecodeAll(bytes.NewReader(b))
			if err != nil {
				return nil, "", fmt.Errorf("pack %s: %s: %w", dir, name, err)
			}
			a, err := screens.NewGIFAnim(g, bg)
			if err != nil {
				return nil, "", fmt.Errorf("pack %s: %s: %w", dir, name, err)
			}
			loaded[name] = a
			p.States[screens.Persona(st)] = append(p.States[screens.Persona(st)], a)
		}
	}
	return p, m.Name, nil
}

// hexColor parses "#RRGGBB"; anything else is def (the manifest parser
// already refused malformed colours).
func hexColor(s string, def color.RGBA) color.RGBA {
	if len(s) != 7 || s[0] != '#' {
		return def
	}
	v, err := strconv.ParseUint(s[1:], 16, 32)
	if err != nil {
		return def
	}
	return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 0xff}
}
