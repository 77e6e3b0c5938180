package appevent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// TypeSettings is Claude_Pi's own raw event (no "schema" key, spec §18)
// that carries the Pi's dock settings to the CoreS3:
//
//	{"type":"claude_pi.settings","event_id":"<unique>","tts":{"volume":<0..100>}}
//
// Firmware that does not know it drops it, as §18 asks of any raw event it
// does not use; Claude_Pi's firmware sets and saves its speaker volume.
const TypeSettings = "claude_pi.settings"

// MaxVolume is the top of the volume scale (0 is silent).
const MaxVolume = 100

// Settings is one claude_pi.settings event.
type Settings struct {
	EventID string
	Volume  int // 0..MaxVolume
}

// ErrSettings is wrapped by every Settings encoding or decoding error.
var ErrSettings = errors.New("appevent: bad claude_pi.settings")

func (s Settings) check() error {
	if s.EventID == "" {
		return fmt.Errorf("%w: empty event_id", ErrSettings)
	}
	if s.Volume < 0 || s.Volume > MaxVolume {
		return fmt.Errorf("%w: tts.volume %d outside 0..%d", ErrSettings, s.Volume, MaxVolume)
	}
	return nil
}

// MarshalSettings encodes s with its keys in the documented order.
func MarshalSettings(s Settings) ([]byte, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	id, err := json.Marshal(s.EventID)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSettings, err)
	}
	b := append([]byte(`{"type":"`+TypeSettings+`","event_id":`), id...)
	b = append(b, `,"tts":{"volume":`...)
	b = strconv.AppendInt(b, int64(s.Volume), 10)
	return append(b, "}}"...), nil
}

// DecodeSettings parses a claude_pi.settings event strictly: the type, a
// non-empty string event_id, and tts.volume an integer in 0..100. It is the
// firmware's side of the contract, kept here so the two are tested against
// the same bytes (and for `claude-pi wire decode` readers).
func DecodeSettings(b []byte) (Settings, error) {
	var raw struct {
		Type    *string         `json:"type"`
		EventID *string         `json:"event_id"`
		Schema  json.RawMessage `json:"schema"`
		TTS     *struct {
			Volume json.RawMessage `json:"volume"`
		} `json:"tts"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&raw); err != nil {
		return Settings{}, fmt.Errorf("%w: %v", ErrSettings, err)
	}
	if dec.More() {
		return Settings{}, fmt.Errorf("%w: data after the object", ErrSettings)
	}
	switch {
	case raw.Type == nil || *raw.Type != TypeSettings:
		return Settings{}, fmt.Errorf("%w: type is not %q", ErrSettings, TypeSettings)
	case raw.Schema != nil:
		return Settings{}, fmt.Errorf("%w: a raw event has no schema", ErrSettings)
	case raw.EventID == nil:
		return Settings{}, fmt.Errorf("%w: no event_id", ErrSettings)
	case raw.TTS == nil || raw.TTS.Volume == nil:
		return Settings{}, fmt.Errorf("%w: no tts.volume", ErrSettings)
	}
	// The raw text, so that "50" (a string), 50.0 and 5e1 are refused.
	v, err := strconv.Atoi(string(raw.TTS.Volume))
	if err != nil {
		return Settings{}, fmt.Errorf("%w: tts.volume %s is not an integer", ErrSettings, raw.TTS.Volume)
	}
	s := Settings{EventID: *raw.EventID, Volume: v}
	return s, s.check()
}
