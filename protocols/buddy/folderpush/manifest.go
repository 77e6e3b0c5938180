package folderpush

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
	"unicode/utf8"
)

// Pack format limits (spec §8.3).
const (
	ManifestName    = "manifest.json"
	MaxManifestSize = 64 << 10 // we hold the manifest in memory while it streams in
	MaxGIFRefs      = 32
	MaxGIFName      = 31 // bytes; the reference keeps names in 32-byte buffers
	MaxTextFrames   = 8
	MaxTextFrameLen = 19 // code points
	DefaultDelay    = 200 * time.Millisecond
	maxDelayMillis  = 60_000
)

// StateNames are the persona states a manifest can animate, in the
// reference's order (spec §9.1). Other keys under "states" are ignored.
var StateNames = [...]string{"sleep", "idle", "busy", "attention", "celebrate", "dizzy", "heart"}

// Manifest is a validated manifest.json. Exactly one of GIFs and Frames is
// non-nil, depending on Text.
type Manifest struct {
	Name   string              // optional display name from the file, unsanitized
	Text   bool                // "mode":"text"
	Colors Colors              // unset colours are ""
	GIFs   map[string][]string // state → file names, in play order (GIF mode)
	Frames map[string]TextState
}

// Colors holds the optional "#RRGGBB" colours of a pack.
type Colors struct {
	Body, BG, Text, TextDim, Ink string
}

// TextState is one state of a text-mode pack.
type TextState struct {
	Frames []string
	Delay  time.Duration
}

// ParseManifest validates a manifest.json as §8.3 [OURS] requires. has
// reports whether a file exists in the pack; in GIF mode every referenced
// name must pass CheckName, be at most MaxGIFName bytes and exist. At least
// one known state must be present: a pack that animates nothing is almost
// certainly the wrong folder.
func ParseManifest(data []byte, has func(name string) bool) (*Manifest, error) {
	if len(data) > MaxManifestSize {
		return nil, fmt.Errorf("manifest: %d bytes, limit %d", len(data), MaxManifestSize)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var top map[string]any
	if err := dec.Decode(&top); err != nil {
		return nil, fmt.Errorf("manifest: %v", err)
	}
	if top == nil {
		return nil, errors.New("manifest: not a JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("manifest: data after the JSON object")
	}
	m := &Manifest{}
	if v, ok := top["name"]; ok {
		if m.Name, ok = v.(string); !ok {
			return nil, errors.New("manifest: name is not a string")
		}
	}
	if v, ok := top["mode"]; ok {
		mode, ok := v.(string)
		if !ok {
			return nil, errors.New("manifest: mode is not a string")
		}
		// Anything but "text" is the GIF mode, as in the reference.
		m.Text = mode == "text"
	}
	if err := parseColors(top["colors"], &m.Colors); err != nil {
		return nil, err
	}
	states, ok := top["states"].(map[string]any)
	if !ok {
		return nil, errors.New("manifest: states missing or not an object")
	}
	var err error
	if m.Text {
		m.Frames, err = parseTextStates(states)
	} else {
		m.GIFs, err = parseGIFStates(states, has)
	}
	if err != nil {
		return nil, err
	}
	if len(m.Frames)+len(m.GIFs) == 0 {
		return nil, errors.New("manifest: no known state in states")
	}
	return m, nil
}

func parseColors(v any, c *Colors) error {
	if v == nil {
		return nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return errors.New("manifest: colors is not an object")
	}
	for _, f := range []struct {
		key string
		dst *string
	}{{"body", &c.Body}, {"bg", &c.BG}, {"text", &c.Text}, {"textDim", &c.TextDim}, {"ink", &c.Ink}} {
		raw, ok := obj[f.key]
		if !ok {
			continue
		}
		s, _ := raw.(string)
		if !isRGB(s) {
			return fmt.Errorf("manifest: colors.%s is not #RRGGBB", f.key)
		}
		*f.dst = s
	}
	return nil
}

func isRGB(s string) bool {
	if len(s) != 7 || s[0] != '#' {
		return false
	}
	for i := 1; i < 7; i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func parseGIFStates(states map[string]any, has func(string) bool) (map[string][]string, error) {
	out := make(map[string][]string)
	refs := 0
	for _, key := range StateNames {
		v, ok := states[key]
		if !ok {
			continue
		}
		var names []string
		switch v := v.(type) {
		case string:
			names = []string{v}
		case []any:
			if len(v) == 0 {
				return nil, fmt.Errorf("manifest: states.%s is an empty array", key)
			}
			for i, e := range v {
				s, ok := e.(string)
				if !ok {
					return nil, fmt.Errorf("manifest: states.%s[%d] is not a string", key, i)
				}
				names = append(names, s)
			}
		default:
			return nil, fmt.Errorf("manifest: states.%s is neither a file name nor an array of them", key)
		}
		for _, n := range names {
			if err := CheckName(n); err != nil {
				return nil, fmt.Errorf("manifest: states.%s: %v", key, err)
			}
			if len(n) > MaxGIFName {
				return nil, fmt.Errorf("manifest: states.%s: %q is longer than %d bytes", key, n, MaxGIFName)
			}
			if has == nil || !has(n) {
				return nil, fmt.Errorf("manifest: states.%s: %q is not in the pack", key, n)
			}
		}
		if refs += len(names); refs > MaxGIFRefs {
			return nil, fmt.Errorf("manifest: more than %d GIF references", MaxGIFRefs)
		}
		out[key] = names
	}
	return out, nil
}

func parseTextStates(states map[string]any) (map[string]TextState, error) {
	out := make(map[string]TextState)
	for _, key := range StateNames {
		v, ok := states[key]
		if !ok {
			continue
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("manifest: states.%s is not a text state object", key)
		}
		frames, ok := obj["frames"].([]any)
		if !ok || len(frames) == 0 || len(frames) > MaxTextFrames {
			return nil, fmt.Errorf("manifest: states.%s.frames must be an array of 1 to %d strings", key, MaxTextFrames)
		}
		ts := TextState{Delay: DefaultDelay}
		for i, f := range frames {
			s, ok := f.(string)
			if !ok || utf8.RuneCountInString(s) > MaxTextFrameLen {
				return nil, fmt.Errorf("manifest: states.%s.frames[%d] is not a string of at most %d characters", key, i, MaxTextFrameLen)
			}
			ts.Frames = append(ts.Frames, s)
		}
		if d, ok := obj["delay"]; ok {
			num, ok := d.(json.Number)
			ms, err := num.Int64()
			if !ok || err != nil || ms <= 0 || ms > maxDelayMillis {
				return nil, fmt.Errorf("manifest: states.%s.delay must be an integer from 1 to %d ms", key, maxDelayMillis)
			}
			ts.Delay = time.Duration(ms) * time.Millisecond
		}
		out[key] = ts
	}
	return out, nil
}
