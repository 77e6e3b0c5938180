package buddy

import "math"

// str returns a string member: absent or null gives "", another type an error.
func str(m *members, k key, msg string) (string, error) {
	v := m.get(k)
	if v == nil {
		return "", nil
	}
	if v[0] != '"' {
		return "", &FieldError{Msg: msg, Field: keyNames[k], Want: "string", Got: got(v)}
	}
	return unquote(v), nil
}

func decodeAck(m *members) (Message, error) {
	var a Ack
	var err error
	if a.Cmd, err = str(m, kAck, "ack"); err != nil {
		return nil, err
	}
	if v := m.get(kOK); v != nil {
		if v[0] != 't' && v[0] != 'f' {
			return nil, &FieldError{Msg: "ack", Field: "ok", Want: "boolean", Got: got(v)}
		}
		a.OK = v[0] == 't'
	}
	if v := m.get(kN); v != nil {
		n, ok := parseInt(v, math.MinInt64+1, math.MaxInt64)
		if !ok {
			return nil, &FieldError{Msg: "ack", Field: "n", Want: "integer", Got: got(v)}
		}
		a.N = n
	}
	if a.Error, err = str(m, kError, "ack"); err != nil {
		return nil, err
	}
	if v := m.get(kData); v != nil {
		a.Data = appendCompact(nil, v)
	}
	return a, nil
}

func decodeEvent(m *members) (Message, error) {
	evt, err := str(m, kEvt, "event")
	if err != nil {
		return nil, err
	}
	if evt != "turn" {
		return OtherEvent{Evt: evt}, nil
	}
	var t TurnEvent
	if t.Role, err = str(m, kRole, "turn"); err != nil {
		return nil, err
	}
	if v := m.get(kContent); v != nil {
		t.Content = appendCompact(nil, v)
	}
	return t, nil
}

// Offsets beyond a day cannot be a time zone.
const maxOffset = 24 * 3600

func decodeTime(m *members) (Message, error) {
	v := m[kTime]
	bad := &FieldError{Msg: "time", Field: "time", Want: "[epoch seconds, offset seconds] integers", Got: got(v)}
	if v[0] != '[' {
		return nil, bad
	}
	var t TimeSync
	n := 0
	failed := false
	_ = eachElement(v, func(i int, e []byte) error {
		n++
		var ok bool
		var x int64
		switch i {
		default:
			return nil // counted; the arity check below reports it
		case 0:
			x, ok = parseInt(e, math.MinInt64+1, math.MaxInt64)
			t.Epoch = x
		case 1:
			x, ok = parseInt(e, -maxOffset, maxOffset)
			t.Offset = int32(x)
		}
		if !ok {
			failed = true
			bad.Got = "element " + got(e)
		}
		return nil
	})
	if failed {
		return nil, bad
	}
	if n != 2 {
		bad.Got = "array of " + itoa(int64(n))
		return nil, bad
	}
	return t, nil
}

func decodeCommand(m *members) (Message, error) {
	cmd, err := str(m, kCmd, "command")
	if err != nil {
		return nil, err
	}
	msg := "cmd " + quoteGo(cmd)
	fail := func(k key, want string) error {
		v := m[k]
		g := "nothing"
		if v != nil {
			g = got(v)
		}
		return &CommandError{Cmd: cmd, Field: &FieldError{Msg: msg, Field: keyNames[k], Want: want, Got: g}}
	}
	// reqString wants a string member; empty is allowed only if allowEmpty.
	reqString := func(k key, allowEmpty bool) (string, error) {
		v := m.get(k)
		want := "non-empty string"
		if allowEmpty {
			want = "string"
		}
		if v == nil || v[0] != '"' {
			return "", fail(k, want)
		}
		s := unquote(v)
		if s == "" && !allowEmpty {
			return "", fail(k, want)
		}
		return s, nil
	}
	// count wants a non-negative integer; absent gives 0 unless required.
	count := func(k key, required bool) (int64, error) {
		v := m.get(k)
		if v == nil && !required {
			return 0, nil
		}
		if v == nil {
			return 0, fail(k, "non-negative integer")
		}
		n, ok := parseInt(v, 0, math.MaxInt64)
		if !ok {
			return 0, fail(k, "non-negative integer")
		}
		return n, nil
	}
	switch cmd {
	case CmdOwner, CmdName:
		name, err := reqString(kName, false)
		if err != nil {
			return nil, err
		}
		if cmd == CmdOwner {
			return Owner{Name: name}, nil
		}
		return SetName{Name: name}, nil
	case CmdStatus:
		return Status{}, nil
	case CmdUnpair:
		return Unpair{}, nil
	case CmdFileEnd:
		return FileEnd{}, nil
	case CmdCharEnd:
		return CharEnd{}, nil
	case CmdCharBegin:
		var c CharBegin
		if v := m.get(kName); v != nil {
			if c.Name, err = reqString(kName, true); err != nil {
				return nil, err
			}
		}
		if c.Total, err = count(kTotal, false); err != nil {
			return nil, err
		}
		return c, nil
	case CmdFile:
		var f File
		if f.Path, err = reqString(kPath, true); err != nil {
			return nil, err
		}
		if f.Size, err = count(kSize, true); err != nil {
			return nil, err
		}
		return f, nil
	case CmdChunk:
		d, err := reqString(kD, true)
		if err != nil {
			return nil, err
		}
		return Chunk{D: d}, nil
	case CmdSpecies:
		v := m.get(kIdx)
		n, ok := parseInt(v, math.MinInt64+1, math.MaxInt64)
		if v == nil || !ok {
			return nil, fail(kIdx, "integer")
		}
		return Species{Idx: n}, nil
	case CmdPermission:
		var p Permission
		if p.ID, err = reqString(kID, false); err != nil {
			return nil, err
		}
		d, _ := reqString(kDecision, true)
		switch d {
		case "once":
			p.Decision = Once
		case "deny":
			p.Decision = Deny
		default:
			return nil, fail(kDecision, `"once" or "deny"`)
		}
		return p, nil
	}
	return UnknownCommand{Cmd: cmd}, nil
}
