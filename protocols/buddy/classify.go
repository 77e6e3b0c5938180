package buddy

import (
	"encoding/json"
	"math"
)

// LineClass is what the link needs to know about an RX line to fold a
// burst of heartbeats without decoding each one: whether it is a
// heartbeat and which of its fields would be kept. See [Classify] and
// [LineClass.Supersedes].
type LineClass struct {
	// Heartbeat is true when [Decode] returns a [Heartbeat] for the line.
	Heartbeat bool
	// Fields are the fields that heartbeat has Present: the ones with a
	// usable value (a field of the wrong type is ignored by Decode).
	Fields Fields
	// Tokens is the "tokens" value when Fields has FieldTokens.
	Tokens uint64
	// Completed is a "completed": true.
	Completed bool
}

// Classify says what [Decode] would make of line, at a fraction of its
// cost: it validates the JSON and looks at the top-level keys and the
// types of the heartbeat fields, but copies no string and allocates
// nothing. Like Decode it never retains line.
func Classify(line []byte) LineClass {
	if !json.Valid(line) || line[skipWS(line, 0)] != '{' {
		return LineClass{}
	}
	var m members
	m.collect(line)
	if m[kAck] != nil || m[kCmd] != nil || m[kEvt] != nil || m[kTime] != nil {
		return LineClass{}
	}
	var c LineClass
	for k := kTotal; k <= kCompleted; k++ {
		if m[k] != nil {
			c.Heartbeat = true
			break
		}
	}
	if !c.Heartbeat {
		return c // a keepalive
	}
	for _, f := range [...]struct {
		k   key
		f   Fields
		max int64
	}{
		{kTotal, FieldTotal, math.MaxUint32}, {kRunning, FieldRunning, math.MaxUint32},
		{kWaiting, FieldWaiting, math.MaxUint32}, {kTokens, FieldTokens, math.MaxInt64},
		{kTokensToday, FieldTokensToday, math.MaxInt64},
	} {
		if v := m.get(f.k); v != nil {
			if n, ok := parseInt(v, 0, f.max); ok {
				c.Fields |= f.f
				if f.k == kTokens {
					c.Tokens = uint64(n)
				}
			}
		}
	}
	if v := m.get(kMsg); v != nil && v[0] == '"' {
		c.Fields |= FieldMsg
	}
	if v := m.get(kEntries); v != nil && v[0] == '[' {
		c.Fields |= FieldEntries
	}
	if v := m.get(kCompleted); v != nil && (v[0] == 't' || v[0] == 'f') {
		c.Fields |= FieldCompleted
		c.Completed = v[0] == 't'
	}
	return c
}

// Supersedes reports whether heartbeat c, arriving right after heartbeat
// older with no other line between them, makes older redundant: applying
// older and then c leaves the same state as applying c alone, so a queue
// may drop older. A heartbeat is a complete state except that a field it
// lacks (or sends with the wrong type) keeps its previous value, so c
// must carry every field older does. The prompt needs no check: no
// prompt key means no prompt, so c alone decides it. Two effects that are
// not state stay exact too: a "completed": true is never dropped, and
// "tokens" must not go down from older to c, so the lifetime count that
// credits each rise gets the same total (within one connection the
// desktop's count only grows). What does change is when a prompt that
// both carry is taken to have arrived: at c, later by the time older
// spent queued.
func (c LineClass) Supersedes(older LineClass) bool {
	if !c.Heartbeat || !older.Heartbeat || older.Completed {
		return false
	}
	if older.Fields&^c.Fields != 0 {
		return false
	}
	return older.Fields&FieldTokens == 0 || older.Tokens <= c.Tokens
}
