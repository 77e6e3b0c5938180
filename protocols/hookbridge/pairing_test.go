package hookbridge

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func nonce(b byte) []byte { return bytes.Repeat([]byte{b}, NonceSize) }

func TestCodeIsSixDigitsAndBindsEveryInput(t *testing.T) {
	client, pi, nc, np := []byte("client cert"), []byte("pi cert"), nonce(1), nonce(2)
	c := Code(client, pi, nc, np)
	if len(c) != 6 || strings.Trim(c, "0123456789") != "" {
		t.Fatalf("code %q is not 6 digits", c)
	}
	if Code(client, pi, nc, np) != c || NewCodeHasher(client, pi).Code(nc, np) != c {
		t.Fatal("the code is not a function of its inputs")
	}
	// Each input changes it (these four differ from c by construction of
	// the test values; a collision here would be a 10^-6 accident, and
	// the values are fixed, so it is checked once and for all).
	for name, other := range map[string]string{
		"client": Code([]byte("client cerT"), pi, nc, np),
		"pi":     Code(client, []byte("pi cerT"), nc, np),
		"nc":     Code(client, pi, nonce(3), np),
		"np":     Code(client, pi, nc, nonce(3)),
		// Roles are fixed: swapping the certificates or nonces is
		// another code, so one end's input cannot stand for the other's.
		"swapped certs":  Code(pi, client, nc, np),
		"swapped nonces": Code(client, pi, np, nc),
		// Length prefixes: moving a byte across a boundary.
		"boundary": Code([]byte("client cer"), []byte("tpi cert"), nc, np),
	} {
		if other == c {
			t.Errorf("changing %s keeps the code %s", name, c)
		}
	}
}

func TestCommitment(t *testing.T) {
	client, pi, nc := []byte("client cert"), []byte("pi cert"), nonce(7)
	c := Commitment(client, pi, nc)
	if !CheckCommitment(c, client, pi, nc) {
		t.Fatal("the commitment does not open with its own nonce")
	}
	for name, ok := range map[string]bool{
		"another nonce":          CheckCommitment(c, client, pi, nonce(8)),
		"another client cert":    CheckCommitment(c, []byte("relay cert"), pi, nc),
		"another Pi cert":        CheckCommitment(c, client, []byte("relay cert"), nc),
		"a short nonce":          CheckCommitment(c, client, pi, nc[:16]),
		"a truncated commitment": CheckCommitment(c[:16], client, pi, nc),
		"the code label":         CheckCommitment(sum(codeLabel, client, pi, nc), client, pi, nc),
	} {
		if ok {
			t.Errorf("the commitment opens with %s", name)
		}
	}
}

func TestPrintable(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"Claude_Pi", "Claude_Pi"},
		{"Claude_Pi button", "Claude_Pi button"},
		{"a\nb\tc\x1b[31m", "abc[31m"},
		{"safe\u202etxt.exe", "safetxt.exe"}, // bidi override
		{"bad \xff utf8", "bad  utf8"},
		{strings.Repeat("é", 100), strings.Repeat("é", MaxLabel)},
	} {
		if got := Printable(tt.in, MaxLabel); got != tt.want {
			t.Errorf("Printable(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestDecisionLabelsAreCut is issue 23 item 5: Device and By reach Claude
// verbatim in the deny message; a Pi (or anything answering for it) that
// sends 90 KB or control characters there gets 64 printable characters.
func TestDecisionLabelsAreCut(t *testing.T) {
	long := strings.Repeat("x", 90<<10)
	b, _ := json.Marshal(Decision{ID: "r1", Behavior: BehaviorDeny, Device: long, By: "voice\n\x1b]0;pwned\a"})
	d, err := DecodeDecision(b, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if utf8.RuneCountInString(d.Device) != MaxLabel || d.By != "voice]0;pwned" {
		t.Fatalf("decoded Device of %d runes, By %q", utf8.RuneCountInString(d.Device), d.By)
	}
	if msg := DenyMessage(d.Device, d.By); len(msg) > 3*MaxLabel+40 {
		t.Fatalf("deny message of %d bytes", len(msg))
	}
}

func TestDecodePairing(t *testing.T) {
	h := func(b byte, n int) string { return hex.EncodeToString(bytes.Repeat([]byte{b}, n)) }
	for _, tt := range []struct {
		in string
		ok bool
	}{
		{`{"name":"laptop","commitment":"` + h(1, 32) + `"}`, true},
		{`{"name":"","commitment":"` + h(1, 32) + `"}`, false},
		{`{"name":"lap\ntop","commitment":"` + h(1, 32) + `"}`, false},
		{`{"name":"laptop","commitment":"` + h(1, 31) + `"}`, false},
		{`{"name":"laptop","commitment":"` + strings.Repeat("zz", 32) + `"}`, false},
		{`{"name":"laptop"}`, false},
		{`{"name":"laptop","commitment":"` + h(1, 32) + `","nonce":"00"}`, false},
	} {
		if _, _, err := DecodePairCommit([]byte(tt.in)); (err == nil) != tt.ok {
			t.Errorf("DecodePairCommit(%s): %v", tt.in, err)
		}
	}
	if n, err := DecodePairReveal([]byte(`{"nonce":"` + h(9, 32) + `"}`)); err != nil || !bytes.Equal(n, nonce(9)) {
		t.Errorf("DecodePairReveal: %x %v", n, err)
	}
	if _, err := DecodePairReveal([]byte(`{"nonce":"` + h(9, 16) + `"}`)); err == nil {
		t.Error("a 16-byte nonce accepted")
	}
	if n, dev, err := DecodePairNonce([]byte(`{"nonce":"` + h(2, 32) + `","device":"Claude\u202e_Pi"}`)); err != nil || !bytes.Equal(n, nonce(2)) || dev != "Claude_Pi" {
		t.Errorf("DecodePairNonce: %x %q %v", n, dev, err)
	}
	if _, err := DecodePairResponse([]byte(`{"status":"paired!"}`)); err == nil {
		t.Error("an unknown pairing status accepted")
	}
}
