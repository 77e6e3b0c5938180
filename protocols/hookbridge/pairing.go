package hookbridge

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
)

// Pairing is numeric comparison with a commitment, as in BLE Secure
// Connections and ZRTP. A 6-digit code is only safe when neither end can
// choose its input after seeing the other's; a code of the two
// certificates alone let a relay vary the certificate it shows the Pi
// until both codes matched (issue 23). So each end adds a fresh 32-byte
// nonce, and the client commits to its nonce before it learns the Pi's:
//
//  1. client → Pi  PairCommit{name, Commitment(client, pi, nc)}
//  2. Pi → client  PairNonce{np}              (fresh for every commit)
//  3. client → Pi  PairReveal{nc}             the Pi checks the commitment
//  4. both         Code(client, pi, nc, np)   the Pi shows it, the client prints it
//
// client and pi are the two TLS certificates (DER) as each end saw them in
// its own session. A relay in the middle holds a certificate of its own on
// each side, so it runs two pairings, and the two codes are equal only by
// chance: the client's code depends on nc, hidden from the relay when it
// picks the nonce it hands the client; the Pi's code depends on np, which
// the Pi draws after the relay committed to everything else. Each try
// costs the relay a fresh Pi nonce, which the Pi rations (actors/lan), so
// the chance is 10^-6 per nonce and bounded per pairing.

// NonceSize is the length of both pairing nonces.
const NonceSize = 32

// Labels separate the two hashes of the pairing from each other and from
// any other hash of the same certificates.
const (
	commitLabel = "claude-pi pairing commitment v2\x00"
	codeLabel   = "claude-pi pairing code v2\x00"
)

// Commitment is the client's commitment to its nonce nc, bound to both
// certificates: a relay cannot pass it on to the Pi, which sees another
// client certificate, nor open it to another nonce.
func Commitment(client, pi, nc []byte) []byte {
	return sum(commitLabel, client, pi, nc)
}

// CheckCommitment reports whether nc opens commitment for the two
// certificates, in constant time.
func CheckCommitment(commitment, client, pi, nc []byte) bool {
	if len(nc) != NonceSize || len(commitment) != sha256.Size {
		return false
	}
	return subtle.ConstantTimeCompare(Commitment(client, pi, nc), commitment) == 1
}

// Code is the 6-digit code both ends show: SHA-256 over a label and the
// two certificates and two nonces, each length-prefixed and in a fixed
// order (client first), reduced mod 10^6 (the bias of 2^64 mod 10^6 is
// below 10^-13).
func Code(client, pi, nc, np []byte) string {
	return NewCodeHasher(client, pi).Code(nc, np)
}

// CodeHasher is Code with the two certificates hashed once, for a caller
// that tries many nonces (a benchmark, the relay test):
// Code(client, pi, nc, np) == NewCodeHasher(client, pi).Code(nc, np).
type CodeHasher struct{ h hash.Cloner }

// NewCodeHasher hashes the fixed part of Code.
func NewCodeHasher(client, pi []byte) *CodeHasher {
	h := sha256.New().(hash.Cloner)
	h.Write([]byte(codeLabel))
	writeLP(h, client)
	writeLP(h, pi)
	return &CodeHasher{h}
}

// Code finishes the hash with the two nonces.
func (c *CodeHasher) Code(nc, np []byte) string {
	h, _ := c.h.Clone() // SHA-256 always clones
	writeLP(h, nc)
	writeLP(h, np)
	s := h.Sum(nil)
	return fmt.Sprintf("%06d", binary.BigEndian.Uint64(s[:8])%1_000_000)
}

func sum(label string, parts ...[]byte) []byte {
	h := sha256.New()
	h.Write([]byte(label))
	for _, p := range parts {
		writeLP(h, p)
	}
	return h.Sum(nil)
}

// writeLP writes p with its length first, so that no two lists of parts
// hash the same bytes.
func writeLP(h hash.Hash, p []byte) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(p)))
	h.Write(n[:])
	h.Write(p)
}

// Fingerprint is the pin of a certificate: hex SHA-256 of its DER.
func Fingerprint(der []byte) string {
	s := sha256.Sum256(der)
	return hex.EncodeToString(s[:])
}
