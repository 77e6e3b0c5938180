// Package stats keeps the Hardware Buddy pet statistics that the status ack
// reports (buddy-protocol spec §9.3) and derives what the screen shows from
// them: level, fed pips, mood, energy and the persona state (§9.1).
//
// Everything is pure: callers pass the time in, and persistence is a JSON
// document that the actor writes atomically (Encode) and reads back at boot
// (Decode).
package stats

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Reference constants (spec §9.3).
const (
	TokensPerLevel = 50_000
	TokensPerPip   = 5_000
	VelSlots       = 8
	MaxVel         = 65_535 // seconds; the reference's u16 cap
	FormatVersion  = 1
	// maxTokens keeps the level within 32 bits, as the status ack reports it.
	maxTokens = (1<<32 - 1) * TokensPerLevel
)

// Stats is the persisted state. Level, mood and the rest are derived, so a
// file cannot hold contradicting values.
type Stats struct {
	Version int    `json:"v"`
	Appr    uint32 `json:"appr"`   // approvals given on the device
	Deny    uint32 `json:"deny"`   // denials given on the device
	NapSec  uint64 `json:"nap"`    // cumulative nap seconds
	Tokens  uint64 `json:"tokens"` // lifetime output tokens credited by deltas
	// Vel holds the latest approval latencies in seconds, oldest first, at
	// most VelSlots.
	Vel []uint16 `json:"vel"`
}

// Level is the lifetime token count in whole levels.
func (s *Stats) Level() uint32 { return uint32(s.Tokens / TokensPerLevel) }

// Fed is the progress to the next level in pips, 0 to 9.
func (s *Stats) Fed() int { return int(s.Tokens % TokensPerLevel / TokensPerPip) }

// Velocity is the median approval latency in seconds; for an even count it
// is the upper median, as in the reference. 0 means no data.
func (s *Stats) Velocity() uint16 {
	n := len(s.Vel)
	if n == 0 {
		return 0
	}
	var buf [VelSlots]uint16
	v := buf[:copy(buf[:], s.Vel)]
	// Insertion sort: at most 8 elements, and no allocation on the
	// status path.
	for i := 1; i < len(v); i++ {
		for j := i; j > 0 && v[j] < v[j-1]; j-- {
			v[j], v[j-1] = v[j-1], v[j]
		}
	}
	return v[len(v)/2]
}

// Mood is the tier 0 (sad) to 4 (happy) from velocity and the approval
// ratio, by the reference's rule.
func (s *Stats) Mood() int {
	var m int
	switch v := s.Velocity(); {
	case v == 0:
		m = 2
	case v < 15:
		m = 4
	case v < 30:
		m = 3
	case v < 60:
		m = 2
	case v < 120:
		m = 1
	}
	if uint64(s.Appr)+uint64(s.Deny) >= 3 {
		switch {
		case s.Deny > s.Appr:
			m -= 2
		case 2*uint64(s.Deny) > uint64(s.Appr):
			m--
		}
	}
	return max(m, 0)
}

// Validate reports the first inconsistency in s.
func (s *Stats) Validate() error {
	switch {
	case s.Version != FormatVersion:
		return fmt.Errorf("stats: version %d, want %d", s.Version, FormatVersion)
	case len(s.Vel) > VelSlots:
		return fmt.Errorf("stats: %d velocity samples, at most %d", len(s.Vel), VelSlots)
	case s.Tokens > maxTokens:
		return fmt.Errorf("stats: %d tokens overflow the 32-bit level", s.Tokens)
	}
	return nil
}

// Encode returns the persisted form of s, one JSON line.
func (s *Stats) Encode() ([]byte, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	c := *s
	if c.Vel == nil {
		c.Vel = []uint16{} // "vel":[] reads better than null and decodes the same
	}
	b, err := json.Marshal(&c)
	if err != nil {
		return nil, fmt.Errorf("stats: encoding: %v", err)
	}
	return append(b, '\n'), nil
}

// Decode parses a persisted stats file. It rejects unknown fields, values
// out of range and anything after the object, so a corrupt or foreign file
// is reported instead of silently resetting some counters.
func Decode(data []byte) (Stats, error) {
	var s Stats
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		// %w: the loader (drivers/storage/statefile) names the damage
		// (truncated, not JSON, wrong type) from encoding/json's error.
		return Stats{}, fmt.Errorf("stats: decoding: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Stats{}, errors.New("stats: data after the JSON object")
	}
	if s.Version == 0 {
		return Stats{}, errors.New("stats: missing version")
	}
	if err := s.Validate(); err != nil {
		return Stats{}, err
	}
	if len(s.Vel) == 0 {
		s.Vel = nil
	}
	return s, nil
}
