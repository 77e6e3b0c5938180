package keyfile

import (
	"bytes"
	"errors"
	"testing"
)

// info is an info file as bluetoothd 5.82 writes one for a bonded
// desktop (values changed).
const info = `[General]
Name=MacBook Pro
AddressType=public
SupportedTechnologies=LE;
Trusted=false
Blocked=false
WakeAllowed=true
Services=00001800-0000-1000-8000-00805f9b34fb;6e400001-b5a3-f393-e0a9-e50e24dcca9e;

[IdentityResolvingKey]
Key=0F1E2D3C4B5A69788796A5B4C3D2E1F0

[LongTermKey]
Key=00112233445566778899AABBCCDDEEFF
Authenticated=2
EncSize=16
EDiv=0
Rand=0

[ConnectionParameters]
MinInterval=6
MaxInterval=9
Latency=44
Timeout=216
`

func TestCheckAcceptsWhatBluetoothdWrites(t *testing.T) {
	for name, s := range map[string]string{
		"info":          info,
		"settings":      "[General]\nDiscoverable=false\nAlias=Claude_Pi\n",
		"no final":      "[General]\nAlias=desk1",
		"crlf":          "[General]\r\nAlias=desk1\r\n",
		"comment first": "# a comment\n\n[General]\nA=1\n",
		"locale":        "[General]\nName[de]=Schreibtisch\n",
		"empty value":   "[General]\nAlias=\n",
		"utf-8":         "[General]\nName=Café ☕\n",
		"spaces":        "  [General]  \n  Key = value  \n",
		"vertical tab":  "\v[General]\n\fKey=v\n",
		"groups only":   "[General]\n[LongTermKey]\n",
		"blank only":    "\n\n",
		"comment only":  "# nothing\n",
	} {
		if err := Check([]byte(s)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestCheckRefusesWhatACutLeaves(t *testing.T) {
	for name, c := range map[string]struct {
		in     []byte
		reason Reason
		line   int
	}{
		"empty":            {nil, Empty, 0},
		"zero-filled":      {make([]byte, len(info)), Zeroed, 0},
		"one zero":         {[]byte{0}, Zeroed, 0},
		"zeros after text": {append([]byte("[General]\nAlias=desk1\n"), make([]byte, 40)...), NotKeyFile, 3},
		"zero in a value":  {[]byte("[General]\nAlias=de\x00sk\n"), NotKeyFile, 2},
		"zero in a group":  {[]byte("[Gen\x00eral]\n"), NotKeyFile, 1},
		"key first":        {[]byte("Alias=desk1\n[General]\n"), NoGroup, 1},
		"not a pair":       {[]byte("[General]\nAlias\n"), NotKeyFile, 2},
		"no key":           {[]byte("[General]\n=x\n"), NotKeyFile, 2},
		"open group":       {[]byte("[General\nA=1\n"), NotKeyFile, 1},
		"empty group":      {[]byte("[]\n"), NotKeyFile, 1},
		"bracket in group": {[]byte("[Gen[eral]\n"), NotKeyFile, 1},
		"bad locale":       {[]byte("[General]\nName[de=x\n"), NotKeyFile, 2},
		"bracket first":    {[]byte("[General]\n[x=1\n"), NotKeyFile, 2},
		"close bracket":    {[]byte("[General]\nNa]me=x\n"), NotKeyFile, 2},
		"latin-1":          {[]byte("[General]\nName=Caf\xe9\n"), NotUTF8, 2},
		"cut mid-rune":     {[]byte("[General]\nName=\xe2\x98"), NotUTF8, 2},
	} {
		err := Check(c.in)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: Check = %v, want an *Error", name, err)
			continue
		}
		if e.Reason != c.reason || e.Line != c.line {
			t.Errorf("%s: %v (reason %q line %d), want %q line %d", name, err, e.Reason, e.Line, c.reason, c.line)
		}
	}
}

// Every prefix of a whole file is what a cut mid-write of a file with no
// fsync can also leave; Check must never panic on one, and the whole
// file's prefixes that end on a line boundary stay whole.
func TestCheckPrefixes(t *testing.T) {
	for i := range len(info) + 1 {
		err := Check([]byte(info[:i]))
		if i == 0 {
			if err == nil {
				t.Fatal("the empty prefix passed")
			}
			continue
		}
		if i == len(info) || info[i-1] == '\n' {
			if err != nil {
				t.Errorf("prefix to line end %d: %v", i, err)
			}
		}
	}
}

func TestErrorText(t *testing.T) {
	if got := Check(bytes.Repeat([]byte{0}, 8)).Error(); got != "keyfile: zero-filled" {
		t.Errorf("%q", got)
	}
	if got := Check([]byte("x\n")).Error(); got != "keyfile: line 1: not a key file" {
		t.Errorf("%q", got)
	}
}
