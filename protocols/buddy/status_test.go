package buddy

import (
	"strings"
	"testing"
)

var appliance = StatusAck{
	Name: "Claude_Pi", Owner: "Felix", Sec: true,
	Bat:   Battery{Pct: 100, MilliVolt: 5000, USB: true},
	Sys:   System{Up: 8412, Heap: 412000000, FSFree: 52000000, FSTotal: 60000000},
	Stats: Stats{Appr: 42, Deny: 3, Vel: 8, Nap: 12, Lvl: 5},
}

func TestEncodeStatus(t *testing.T) {
	want := `{"ack":"status","ok":true,"n":0,"data":{"name":"Claude_Pi","owner":"Felix","sec":true,"bat":{"pct":100,"mV":5000,"mA":0,"usb":true},"sys":{"up":8412,"heap":412000000,"fsFree":52000000,"fsTotal":60000000},"stats":{"appr":42,"deny":3,"vel":8,"nap":12,"lvl":5}}}` + "\n"
	got := EncodeStatus(appliance)
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if err := ValidateStatusAck(got); err != nil {
		t.Fatal(err)
	}
	// Zero value: still every field, owner omitted, still valid.
	zero := EncodeStatus(StatusAck{})
	if strings.Contains(string(zero), "owner") {
		t.Fatalf("empty owner sent: %s", zero)
	}
	if err := ValidateStatusAck(zero); err != nil {
		t.Fatalf("zero status rejected: %v", err)
	}
	// Names are escaped, never stripped (spec §12.11).
	named := EncodeStatus(StatusAck{Name: `Cl"aw\d`})
	if !strings.Contains(string(named), `"name":"Cl\"aw\\d"`) {
		t.Fatalf("name not escaped: %s", named)
	}
}

func TestStatusRoundTrip(t *testing.T) {
	m, err := Decode(EncodeStatus(appliance))
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.(Ack).Status()
	if err != nil {
		t.Fatal(err)
	}
	if got != appliance {
		t.Fatalf("got %+v, want %+v", got, appliance)
	}
}

func TestValidateStatusAck(t *testing.T) {
	good := string(EncodeStatus(appliance))
	tests := []struct {
		name, line, want string
	}{
		{"not json", `{"ack":`, "buddy: status ack: unexpected EOF"},
		{"two values", `{} {}`, "buddy: status ack: more than one JSON value"},
		{"wrong ack", strings.Replace(good, `"ack":"status"`, `"ack":"name"`, 1), `buddy: status ack: field "ack": want "status", got string "name"`},
		{"ok false", strings.Replace(good, `"ok":true`, `"ok":false`, 1), `buddy: status ack: field "ok": want true, got boolean false`},
		{"n missing", strings.Replace(good, `"n":0,`, ``, 1), `buddy: status ack: field "n": want integer, got null or nothing`},
		{"no data", `{"ack":"status","ok":true,"n":0}`, `buddy: status ack: field "data": want object, got null or nothing`},
		{"mA missing", strings.Replace(good, `"mA":0,`, ``, 1), `buddy: status ack: field "data.bat.mA" missing`},
		{"bat missing", strings.Replace(good, `"bat":{"pct":100,"mV":5000,"mA":0,"usb":true},`, ``, 1), `buddy: status ack: field "data.bat.pct" missing`},
		{"usb as number", strings.Replace(good, `"usb":true`, `"usb":1`, 1), `buddy: status ack: field "data.bat.usb": want boolean, got number 1`},
		{"heap as string", strings.Replace(good, `"heap":412000000`, `"heap":"400M"`, 1), `buddy: status ack: field "data.sys.heap": want integer, got string "400M"`},
		{"fractional vel", strings.Replace(good, `"vel":8`, `"vel":8.5`, 1), `buddy: status ack: field "data.stats.vel": want integer, got number 8.5`},
		{"name missing", strings.Replace(good, `"name":"Claude_Pi",`, ``, 1), `buddy: status ack: field "data.name" missing`},
		{"owner wrong type", strings.Replace(good, `"owner":"Felix"`, `"owner":7`, 1), `buddy: status ack: field "data.owner": want string, got number 7`},
		{"sec missing", strings.Replace(good, `"sec":true,`, ``, 1), `buddy: status ack: field "data.sec" missing`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateStatusAck([]byte(tt.line))
			if err == nil || err.Error() != tt.want {
				t.Fatalf("got %v, want %s", err, tt.want)
			}
		})
	}
	// Owner may be omitted: the schema marks it optional.
	if err := ValidateStatusAck([]byte(strings.Replace(good, `"owner":"Felix",`, ``, 1))); err != nil {
		t.Fatalf("status without owner rejected: %v", err)
	}
}
