package fakedesktop

import (
	"encoding/json"
	"fmt"
	"time"

	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
)

// Session is the desktop's view of its sessions: everything a heartbeat
// carries except the prompt, which SetPrompt owns.
type Session struct {
	Total, Running, Waiting uint32
	Msg                     string
	Entries                 []string // oldest first, at most 8 are sent
	Tokens, TokensToday     uint64
}

// Update changes the session state; a heartbeat follows after the
// debounce, as after any session event in the desktop.
func (d *Desktop) Update(f func(*Session)) {
	d.mu.Lock()
	f(&d.sess)
	d.mu.Unlock()
	d.changed()
}

// SetPrompt exposes a pending permission prompt. It stays in every
// heartbeat until the device answers it with a permission line (or
// ClearPrompt: answered on the desktop).
func (d *Desktop) SetPrompt(id, tool, hint string) {
	d.mu.Lock()
	d.prompt = &pbuddy.Prompt{ID: id, Tool: tool, Hint: hint}
	d.mu.Unlock()
	d.changed()
}

// ClearPrompt drops the prompt as if it was answered on the desktop.
func (d *Desktop) ClearPrompt() {
	d.mu.Lock()
	d.prompt = nil
	d.mu.Unlock()
	d.changed()
}

// Prompt is the prompt the heartbeats currently carry, or nil.
func (d *Desktop) Prompt() *pbuddy.Prompt {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.prompt == nil {
		return nil
	}
	p := *d.prompt
	return &p
}

// PromptSentAt is when the last byte of the first heartbeat carrying the
// prompt id left, or zero if none has been sent.
func (d *Desktop) PromptSentAt(id string) time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.sentAt[id]
}

// SendTurn sends one turn event, unless a push is running or the JSON is
// over 4096 bytes: the desktop drops both silently, and so does this.
// content is any JSON-encodable value: a string or a list of blocks.
func (d *Desktop) SendTurn(role string, content any) error {
	raw, err := json.Marshal(content)
	if err != nil {
		return fmt.Errorf("desktop: turn content: %w", err)
	}
	line := pbuddy.Encode(pbuddy.TurnEvent{Role: role, Content: raw})
	d.mu.Lock()
	pushing := d.pushing
	d.mu.Unlock()
	if pushing || len(line)-1 > 4096 {
		return nil
	}
	return d.SendRaw(line)
}

// Heartbeat sends a heartbeat now, bypassing the debounce.
func (d *Desktop) Heartbeat() error {
	line, id, ok := d.heartbeat()
	if !ok {
		return nil
	}
	return d.sendBeat(line, id)
}

func (d *Desktop) changed() {
	select {
	case d.kick <- struct{}{}:
	default:
	}
}

// heartbeat builds the current heartbeat; ok is false during a push.
func (d *Desktop) heartbeat() (line []byte, promptID string, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.pushing {
		return nil, "", false
	}
	s := d.sess
	h := pbuddy.Heartbeat{
		Present: pbuddy.FieldTotal | pbuddy.FieldRunning | pbuddy.FieldWaiting | pbuddy.FieldMsg |
			pbuddy.FieldEntries | pbuddy.FieldTokens | pbuddy.FieldTokensToday,
		Total: s.Total, Running: s.Running, Waiting: s.Waiting, Msg: s.Msg,
		Entries: s.Entries, Tokens: s.Tokens, TokensToday: s.TokensToday,
	}
	if len(h.Entries) > 8 {
		h.Entries = h.Entries[len(h.Entries)-8:]
	}
	if h.Entries == nil {
		h.Entries = []string{}
	}
	if d.prompt != nil {
		p := *d.prompt
		h.Prompt = &p
		h.Msg = "approve: " + p.Tool
		h.Waiting = max(h.Waiting, 1)
		promptID = p.ID
	}
	return pbuddy.Encode(h), promptID, true
}

func (d *Desktop) sendBeat(line []byte, promptID string) error {
	at, err := d.write(line)
	if err != nil {
		return err
	}
	d.mu.Lock()
	d.counts.Heartbeats++
	d.lastBeat = at
	if promptID != "" {
		if _, ok := d.sentAt[promptID]; !ok {
			d.sentAt[promptID] = at
		}
	}
	d.mu.Unlock()
	return nil
}

// beatLoop sends heartbeats: at start, Debounce after the first change of
// a burst (so a steady stream of changes cannot starve the device), at once
// after a decision, and when Keepalive has passed without one.
func (d *Desktop) beatLoop() {
	defer d.wg.Done()
	var debounce <-chan time.Time
	send := func() {
		line, id, ok := d.heartbeat()
		if !ok {
			return
		}
		if err := d.sendBeat(line, id); err != nil {
			d.log.Debug("desktop: heartbeat", "err", err)
		}
	}
	if d.opts.Resume == nil {
		send() // "sent when the bridge starts"; a reconnect sends none
	}
	tick := time.NewTicker(min(time.Second, d.opts.Keepalive))
	defer tick.Stop()
	for {
		select {
		case <-d.ctx.Done():
			return
		case <-d.kick:
			if debounce == nil {
				debounce = time.After(d.opts.Debounce)
			}
		case <-debounce:
			debounce = nil
			send()
		case <-d.now:
			send()
		case <-tick.C:
			d.mu.Lock()
			due := time.Since(d.lastBeat) >= d.opts.Keepalive
			d.mu.Unlock()
			if due {
				send()
			}
		}
	}
}
