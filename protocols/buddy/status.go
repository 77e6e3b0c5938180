package buddy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// StatusAck is the data of the status ack (spec §7.3). The desktop rejects
// the whole status ("No response") if a required field is missing or has
// the wrong type, so every field here is always sent; zeros are fine.
// Owner is the one exception: it is omitted while empty (unknown).
type StatusAck struct {
	Name  string // device display name; required
	Owner string
	Sec   bool // link encrypted by LE Secure Connections bonding (spec §4.3)
	Bat   Battery
	Sys   System
	Stats Stats
}

// Battery is data.bat. A mains-powered appliance reports 100 %, 5000 mV,
// 0 mA, USB present.
type Battery struct {
	Pct       int64 // 0..100
	MilliVolt int64
	MilliAmp  int64 // positive = charging (spec §11)
	USB       bool
}

// System is data.sys.
type System struct {
	Up      uint64 // uptime, seconds
	Heap    uint64 // available memory, bytes
	FSFree  uint64 // free bytes for character packs
	FSTotal uint64 // size of the pack storage
}

// Stats is data.stats (spec §9.3).
type Stats struct {
	Appr uint64 // approvals given on the device
	Deny uint64 // denials given on the device
	Vel  uint64 // median seconds to approve over the last 8; 0 = no data
	Nap  uint64 // cumulative nap seconds
	Lvl  uint64 // lifetime output tokens / 50,000
}

// EncodeStatus returns the status ack line, ending in '\n':
// {"ack":"status","ok":true,"n":0,"data":{...}} with every field.
func EncodeStatus(s StatusAck) []byte {
	dst := make([]byte, 0, 320)
	dst = appendString(append(dst, `{"ack":"status","ok":true,"n":0,"data":{"name":`...), s.Name)
	if s.Owner != "" {
		dst = appendString(append(dst, `,"owner":`...), s.Owner)
	}
	dst = appendBool(append(dst, `,"sec":`...), s.Sec)
	dst = strconv.AppendInt(append(dst, `,"bat":{"pct":`...), s.Bat.Pct, 10)
	dst = strconv.AppendInt(append(dst, `,"mV":`...), s.Bat.MilliVolt, 10)
	dst = strconv.AppendInt(append(dst, `,"mA":`...), s.Bat.MilliAmp, 10)
	dst = appendBool(append(dst, `,"usb":`...), s.Bat.USB)
	dst = strconv.AppendUint(append(dst, `},"sys":{"up":`...), s.Sys.Up, 10)
	dst = strconv.AppendUint(append(dst, `,"heap":`...), s.Sys.Heap, 10)
	dst = strconv.AppendUint(append(dst, `,"fsFree":`...), s.Sys.FSFree, 10)
	dst = strconv.AppendUint(append(dst, `,"fsTotal":`...), s.Sys.FSTotal, 10)
	dst = strconv.AppendUint(append(dst, `},"stats":{"appr":`...), s.Stats.Appr, 10)
	dst = strconv.AppendUint(append(dst, `,"deny":`...), s.Stats.Deny, 10)
	dst = strconv.AppendUint(append(dst, `,"vel":`...), s.Stats.Vel, 10)
	dst = strconv.AppendUint(append(dst, `,"nap":`...), s.Stats.Nap, 10)
	dst = strconv.AppendUint(append(dst, `,"lvl":`...), s.Stats.Lvl, 10)
	return append(dst, "}}}\n"...)
}

// statusSchema lists what the desktop requires (spec §7.3) plus our own
// rules: sec, fsFree and fsTotal always sent, every number an integer.
// Kinds: "s" string, "b" boolean, "i" integer; a trailing "?" = optional.
var statusSchema = []struct{ path, kind string }{
	{"name", "s"}, {"owner", "s?"}, {"sec", "b"},
	{"bat.pct", "i"}, {"bat.mV", "i"}, {"bat.mA", "i"}, {"bat.usb", "b"},
	{"sys.up", "i"}, {"sys.heap", "i"}, {"sys.fsFree", "i"}, {"sys.fsTotal", "i"},
	{"stats.appr", "i"}, {"stats.deny", "i"}, {"stats.vel", "i"}, {"stats.nap", "i"}, {"stats.lvl", "i"},
}

// ValidateStatusAck checks one status ack line (with or without its '\n')
// the way the desktop does before it shows anything: ack "status", ok true,
// and every required data field present with the right JSON type. It is
// stricter in three ways the spec asks of us: n must be present, sec,
// fsFree and fsTotal must be present, and numbers must be integers. The
// error names the first offending field.
func ValidateStatusAck(line []byte) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var top map[string]any
	if err := dec.Decode(&top); err != nil {
		return fmt.Errorf("buddy: status ack: %v", err)
	}
	if dec.More() {
		return errors.New("buddy: status ack: more than one JSON value")
	}
	if top["ack"] != "status" {
		return fmt.Errorf("buddy: status ack: field \"ack\": want \"status\", got %v", describe(top["ack"]))
	}
	if top["ok"] != true {
		return fmt.Errorf("buddy: status ack: field \"ok\": want true, got %v", describe(top["ok"]))
	}
	if err := checkKind("n", top["n"], "i"); err != nil {
		return err
	}
	data, ok := top["data"].(map[string]any)
	if !ok {
		return fmt.Errorf("buddy: status ack: field \"data\": want object, got %v", describe(top["data"]))
	}
	for _, f := range statusSchema {
		v, found := lookup(data, f.path)
		if !found && f.kind[len(f.kind)-1] == '?' {
			continue
		}
		if !found {
			return fmt.Errorf("buddy: status ack: field \"data.%s\" missing", f.path)
		}
		if err := checkKind("data."+f.path, v, f.kind[:1]); err != nil {
			return err
		}
	}
	return nil
}

func lookup(m map[string]any, path string) (any, bool) {
	head, rest, nested := cutDot(path)
	v, ok := m[head]
	if !ok || !nested {
		return v, ok
	}
	sub, isObj := v.(map[string]any)
	if !isObj {
		return nil, false
	}
	return lookup(sub, rest)
}

func cutDot(s string) (string, string, bool) {
	for i := range len(s) {
		if s[i] == '.' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

func checkKind(field string, v any, kind string) error {
	want := map[string]string{"s": "string", "b": "boolean", "i": "integer"}[kind]
	ok := false
	switch x := v.(type) {
	case string:
		ok = kind == "s"
	case bool:
		ok = kind == "b"
	case json.Number:
		_, err := strconv.ParseInt(string(x), 10, 64)
		ok = kind == "i" && err == nil
	}
	if !ok {
		return fmt.Errorf("buddy: status ack: field %q: want %s, got %s", field, want, describe(v))
	}
	return nil
}

func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null or nothing"
	case string:
		return "string " + strconv.Quote(x)
	case bool:
		return "boolean " + strconv.FormatBool(x)
	case json.Number:
		return "number " + string(x)
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return fmt.Sprintf("%T", v)
}

// Status decodes the data of a status ack. It runs [ValidateStatusAck]'s
// checks first, so a status the desktop would reject is an error here too.
func (a Ack) Status() (StatusAck, error) {
	if err := ValidateStatusAck(a.AppendJSON(nil)); err != nil {
		return StatusAck{}, err
	}
	var w struct {
		Name  string `json:"name"`
		Owner string `json:"owner"`
		Sec   bool   `json:"sec"`
		Bat   struct {
			Pct, MV, MA int64
			USB         bool `json:"usb"`
		} `json:"bat"`
		Sys struct {
			Up, Heap        uint64
			FSFree, FSTotal uint64
		} `json:"sys"`
		Stats Stats `json:"stats"`
	}
	if err := json.Unmarshal(a.Data, &w); err != nil {
		return StatusAck{}, fmt.Errorf("buddy: status ack: %v", err)
	}
	return StatusAck{
		Name: w.Name, Owner: w.Owner, Sec: w.Sec,
		Bat:   Battery{Pct: w.Bat.Pct, MilliVolt: w.Bat.MV, MilliAmp: w.Bat.MA, USB: w.Bat.USB},
		Sys:   System(w.Sys),
		Stats: w.Stats,
	}, nil
}
