package buddy

import (
	"github.com/claude-pi/claude-pi/protocols/internal/jsonstring"
	"strconv"
)

// appendString writes s as JSON.stringify would (package jsonstring).
func appendString(dst []byte, s string) []byte { return jsonstring.Append(dst, s) }

// appendCompact appends the valid JSON value v without insignificant
// whitespace, so a raw value copied from a line can never carry a '\n'
// into an encoded line.
func appendCompact(dst, v []byte) []byte {
	if dst == nil {
		dst = make([]byte, 0, len(v))
	}
	for i := 0; i < len(v); {
		switch c := v[i]; c {
		case ' ', '\t', '\r', '\n':
			i++
		case '"':
			end := skipString(v, i)
			dst = append(dst, v[i:end]...)
			i = end
		default:
			dst = append(dst, c)
			i++
		}
	}
	return dst
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func quoteGo(s string) string { return strconv.Quote(s) }

func appendKey(dst []byte, comma bool, k string) []byte {
	if comma {
		dst = append(dst, ',')
	}
	dst = append(dst, '"')
	dst = append(dst, k...)
	return append(dst, '"', ':')
}

func appendBool(dst []byte, b bool) []byte { return strconv.AppendBool(dst, b) }

// EncodePermission returns the device's decision on prompt id as one line
// ending in '\n' (spec §7.1). Pass [Prompt.ID] unchanged: it is written with
// the same escaping the desktop used, so the desktop sees the id it sent.
func EncodePermission(id string, d Decision) []byte {
	return append(Permission{ID: id, Decision: d}.AppendJSON(make([]byte, 0, 64+len(id))), '\n')
}

// AckOK returns {"ack":cmd,"ok":true,"n":n} and '\n'. cmd must be the
// received command string, verbatim.
func AckOK(cmd string, n int64) []byte {
	return append(Ack{Cmd: cmd, OK: true, N: n}.AppendJSON(nil), '\n')
}

// AckFail returns {"ack":cmd,"ok":false,"n":n,"error":reason} and '\n'.
// Every failing ack carries an error (for char_begin it is what stops the
// desktop's 8-fold retry), so an empty reason is sent as "failed".
func AckFail(cmd string, n int64, reason string) []byte {
	if reason == "" {
		reason = "failed"
	}
	return append(Ack{Cmd: cmd, N: n, Error: reason}.AppendJSON(nil), '\n')
}

// AppendJSON implements [Message]. Keys come in the desktop's order; absent
// fields stay absent. A heartbeat with nothing present is written as
// {"prompt":null}, which still means "no prompt" (and is not a keepalive).
func (h Heartbeat) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	comma := false
	num := func(f Fields, k string, n uint64) {
		if h.Present.Has(f) {
			dst = strconv.AppendUint(appendKey(dst, comma, k), n, 10)
			comma = true
		}
	}
	num(FieldTotal, "total", uint64(h.Total))
	num(FieldRunning, "running", uint64(h.Running))
	num(FieldWaiting, "waiting", uint64(h.Waiting))
	if h.Present.Has(FieldMsg) {
		dst = appendString(appendKey(dst, comma, "msg"), h.Msg)
		comma = true
	}
	if h.Present.Has(FieldEntries) {
		dst = append(appendKey(dst, comma, "entries"), '[')
		for i, e := range h.Entries {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, e)
		}
		dst = append(dst, ']')
		comma = true
	}
	num(FieldTokens, "tokens", h.Tokens)
	num(FieldTokensToday, "tokens_today", h.TokensToday)
	if h.Prompt != nil {
		dst = appendString(append(appendKey(dst, comma, "prompt"), `{"id":`...), h.Prompt.ID)
		dst = appendString(append(dst, `,"tool":`...), h.Prompt.Tool)
		dst = appendString(append(dst, `,"hint":`...), h.Prompt.Hint)
		dst = append(dst, '}')
		comma = true
	}
	if h.Present.Has(FieldCompleted) {
		dst = appendBool(appendKey(dst, comma, "completed"), h.Completed)
		comma = true
	}
	if !comma {
		dst = append(dst, `"prompt":null`...)
	}
	return append(dst, '}')
}

// AppendJSON implements [Message].
func (Keepalive) AppendJSON(dst []byte) []byte { return append(dst, "{}"...) }

// AppendJSON implements [Message].
func (t TurnEvent) AppendJSON(dst []byte) []byte {
	dst = appendString(append(dst, `{"evt":"turn","role":`...), t.Role)
	if t.Content != nil {
		dst = append(append(dst, `,"content":`...), t.Content...)
	}
	return append(dst, '}')
}

// AppendJSON implements [Message].
func (e OtherEvent) AppendJSON(dst []byte) []byte {
	return append(appendString(append(dst, `{"evt":`...), e.Evt), '}')
}

// AppendJSON implements [Message].
func (t TimeSync) AppendJSON(dst []byte) []byte {
	dst = strconv.AppendInt(append(dst, `{"time":[`...), t.Epoch, 10)
	dst = strconv.AppendInt(append(dst, ','), int64(t.Offset), 10)
	return append(dst, ']', '}')
}

// AppendJSON implements [Message]. It writes what the fields say; use
// [AckFail] to get the "error is always present on failure" rule.
func (a Ack) AppendJSON(dst []byte) []byte {
	dst = appendString(append(dst, `{"ack":`...), a.Cmd)
	dst = appendBool(append(dst, `,"ok":`...), a.OK)
	dst = strconv.AppendInt(append(dst, `,"n":`...), a.N, 10)
	if a.Error != "" {
		dst = appendString(append(dst, `,"error":`...), a.Error)
	}
	if a.Data != nil {
		dst = append(append(dst, `,"data":`...), a.Data...)
	}
	return append(dst, '}')
}

func appendCmd(dst []byte, cmd string) []byte {
	return appendString(append(dst, `{"cmd":`...), cmd)
}

func appendCmdString(dst []byte, cmd, k, v string) []byte {
	return append(appendString(appendKey(appendCmd(dst, cmd), true, k), v), '}')
}

// AppendJSON implements [Message].
func (c Owner) AppendJSON(dst []byte) []byte { return appendCmdString(dst, CmdOwner, "name", c.Name) }

// AppendJSON implements [Message].
func (c SetName) AppendJSON(dst []byte) []byte { return appendCmdString(dst, CmdName, "name", c.Name) }

// AppendJSON implements [Message].
func (Status) AppendJSON(dst []byte) []byte { return append(appendCmd(dst, CmdStatus), '}') }

// AppendJSON implements [Message].
func (Unpair) AppendJSON(dst []byte) []byte { return append(appendCmd(dst, CmdUnpair), '}') }

// AppendJSON implements [Message].
func (FileEnd) AppendJSON(dst []byte) []byte { return append(appendCmd(dst, CmdFileEnd), '}') }

// AppendJSON implements [Message].
func (CharEnd) AppendJSON(dst []byte) []byte { return append(appendCmd(dst, CmdCharEnd), '}') }

// AppendJSON implements [Message].
func (c CharBegin) AppendJSON(dst []byte) []byte {
	dst = appendString(appendKey(appendCmd(dst, CmdCharBegin), true, "name"), c.Name)
	return append(strconv.AppendInt(appendKey(dst, true, "total"), c.Total, 10), '}')
}

// AppendJSON implements [Message].
func (c File) AppendJSON(dst []byte) []byte {
	dst = appendString(appendKey(appendCmd(dst, CmdFile), true, "path"), c.Path)
	return append(strconv.AppendInt(appendKey(dst, true, "size"), c.Size, 10), '}')
}

// AppendJSON implements [Message].
func (c Chunk) AppendJSON(dst []byte) []byte { return appendCmdString(dst, CmdChunk, "d", c.D) }

// AppendJSON implements [Message].
func (c Species) AppendJSON(dst []byte) []byte {
	return append(strconv.AppendInt(appendKey(appendCmd(dst, CmdSpecies), true, "idx"), c.Idx, 10), '}')
}

// AppendJSON implements [Message].
func (c Permission) AppendJSON(dst []byte) []byte {
	dst = appendString(appendKey(appendCmd(dst, CmdPermission), true, "id"), c.ID)
	return append(appendString(appendKey(dst, true, "decision"), c.Decision.String()), '}')
}

// AppendJSON implements [Message].
func (c UnknownCommand) AppendJSON(dst []byte) []byte { return append(appendCmd(dst, c.Cmd), '}') }
