package stats

import (
	"fmt"
	"math"
	"time"
)

// Timing rules from the reference (spec §9.1, §9.3) and ours.
const (
	// SaveEvery rate-limits saves caused by token credit alone; approvals,
	// denials, level-ups and naps are saved at once, as in the reference.
	SaveEvery = time.Minute
	// HeartWithin is the approval latency that earns a heart.
	HeartWithin = 5 * time.Second
	// EnergyDecay is the time per lost energy point since the last nap.
	EnergyDecay = 2 * time.Hour
	bootEnergy  = 3
	napEnergy   = 5
)

// Report is the "stats" object of the status ack (spec §7.3).
type Report struct {
	Appr uint32 `json:"appr"`
	Deny uint32 `json:"deny"`
	Vel  uint16 `json:"vel"`
	Nap  uint64 `json:"nap"`
	Lvl  uint32 `json:"lvl"`
}

// Tracker applies events to Stats. It is not safe for concurrent use; the
// owning actor serializes access.
type Tracker struct {
	s Stats

	base     uint64 // last heartbeat tokens value
	haveBase bool   // false after boot and after a reconnect
	lastID   string // prompt id whose decision was counted

	dirty, urgent bool
	lastSave      time.Time

	energy Energy
}

// Energy is the pet's energy as a level that was set at Since and decays
// from there: a value a subscriber can keep and read at any later time,
// so the screen shows the decay without the tracker publishing it.
type Energy struct {
	Level int       // 0-5 at Since
	Since time.Time // boot, or the end of the last nap
}

// At is the energy at now: Level, one less per EnergyDecay since Since.
func (e Energy) At(now time.Time) int {
	lost := int(max(now.Sub(e.Since), 0) / EnergyDecay)
	return max(e.Level-lost, 0)
}

// NewTracker resumes from s (the zero Stats with Version set, or a Decode
// result) at boot time now.
func NewTracker(s Stats, now time.Time) (*Tracker, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	s.Vel = append([]uint16(nil), s.Vel...)
	return &Tracker{s: s, lastSave: now, energy: Energy{bootEnergy, now}}, nil
}

// Stats returns a copy of the state to persist.
func (t *Tracker) Stats() Stats {
	s := t.s
	s.Vel = append([]uint16(nil), t.s.Vel...)
	return s
}

// Report returns the status ack's stats.
func (t *Tracker) Report() Report {
	return Report{Appr: t.s.Appr, Deny: t.s.Deny, Vel: t.s.Velocity(), Nap: t.s.NapSec, Lvl: t.s.Level()}
}

// Level, Fed and Mood are the derived values of Stats.
func (t *Tracker) Level() uint32 { return t.s.Level() }

// Fed is the number of filled pips (0-9) towards the next level.
func (t *Tracker) Fed() int { return t.s.Fed() }

// Mood is the mood tier 0-4.
func (t *Tracker) Mood() int { return t.s.Mood() }

// Tokens credits a heartbeat's "tokens" value by its delta from the
// previous one. The first value after boot or Reconnect only sets the
// baseline, and so does a drop: "tokens" counts from the desktop's start,
// so a smaller value means the desktop restarted. It reports a level-up.
func (t *Tracker) Tokens(v uint64) (levelUp bool) {
	if !t.haveBase || v < t.base {
		t.base, t.haveBase = v, true
		return false
	}
	delta := v - t.base
	t.base = v
	if delta == 0 {
		return false
	}
	before := t.s.Level()
	t.s.Tokens += min(delta, maxTokens-t.s.Tokens)
	t.dirty = true
	if t.s.Level() > before {
		t.urgent = true
		return true
	}
	return false
}

// Reconnect forgets the token baseline, so tokens produced while we were
// disconnected, or by another desktop, earn nothing.
func (t *Tracker) Reconnect() { t.haveBase = false }

// Approve counts a device-side approval of prompt id, which arrived at
// arrived, and records its latency. A resend for the same id counts
// nothing. heart reports an approval within HeartWithin.
func (t *Tracker) Approve(id string, arrived, now time.Time) (counted, heart bool) {
	if !t.claim(id) {
		return false, false
	}
	if t.s.Appr < math.MaxUint32 {
		t.s.Appr++
	}
	lat := max(now.Sub(arrived), 0)
	if len(t.s.Vel) == VelSlots {
		t.s.Vel = append(t.s.Vel[:0], t.s.Vel[1:]...)
	}
	t.s.Vel = append(t.s.Vel, uint16(min(lat/time.Second, MaxVel)))
	return true, lat < HeartWithin
}

// Deny counts a device-side denial of prompt id; denials record no latency.
func (t *Tracker) Deny(id string) (counted bool) {
	if !t.claim(id) {
		return false
	}
	if t.s.Deny < math.MaxUint32 {
		t.s.Deny++
	}
	return true
}

// claim counts each prompt once: a prompt can be answered again after the
// 5 s resend window (spec §7.1) and must not be counted twice.
func (t *Tracker) claim(id string) bool {
	if id == "" || id == t.lastID {
		return false
	}
	t.lastID = id
	t.dirty, t.urgent = true, true
	return true
}

// Nap adds a finished nap (our sleep mode) and refills energy.
func (t *Tracker) Nap(start, end time.Time) {
	if d := end.Sub(start); d >= time.Second {
		t.s.NapSec += uint64(d / time.Second)
		t.dirty, t.urgent = true, true
	}
	t.energy = Energy{napEnergy, end}
}

// Energy is 0-5: 3 at boot, 5 after a nap, one less per EnergyDecay since.
func (t *Tracker) Energy(now time.Time) int { return t.energy.At(now) }

// EnergyState is the energy to publish, for Energy.At on the other side.
func (t *Tracker) EnergyState() Energy { return t.energy }

// SaveDue reports whether the actor should persist Stats now.
func (t *Tracker) SaveDue(now time.Time) bool {
	return t.dirty && (t.urgent || now.Sub(t.lastSave) >= SaveEvery)
}

// Saved records a successful save. Call it only after the write succeeded,
// so a failed write is retried on the next SaveDue.
func (t *Tracker) Saved(now time.Time) {
	t.dirty, t.urgent, t.lastSave = false, false, now
}

// String is for logs.
func (t *Tracker) String() string {
	r := t.Report()
	return fmt.Sprintf("stats(appr=%d deny=%d vel=%ds nap=%ds lvl=%d tokens=%d)", r.Appr, r.Deny, r.Vel, r.Nap, r.Lvl, t.s.Tokens)
}
