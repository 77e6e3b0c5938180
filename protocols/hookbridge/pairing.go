package hookbridge

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
)

// pairingLabel separates this use of SHA-256 from any other hash of the
// same certificates.
const pairingLabel = "claude-pi pairing code v1\x00"

// PairingCode is the 6-digit code both ends of a pairing show, like BLE
// numeric comparison: SHA-256 over a label and both certificates (DER),
// in byte order so that both ends compute the same value, each prefixed
// with its length so no two pairs of certificates share an input. A
// man in the middle holds a different certificate on at least one side,
// so the codes differ unless it wins a one-in-a-million guess per try.
func PairingCode(certA, certB []byte) string {
	if bytes.Compare(certA, certB) > 0 {
		certA, certB = certB, certA
	}
	h := sha256.New()
	h.Write([]byte(pairingLabel))
	var n [8]byte
	for _, c := range [][]byte{certA, certB} {
		binary.BigEndian.PutUint64(n[:], uint64(len(c)))
		h.Write(n[:])
		h.Write(c)
	}
	sum := h.Sum(nil)
	return fmt.Sprintf("%06d", binary.BigEndian.Uint64(sum[:8])%1_000_000)
}

// Fingerprint is the pin of a certificate: hex SHA-256 of its DER.
func Fingerprint(der []byte) string {
	s := sha256.Sum256(der)
	return hex.EncodeToString(s[:])
}
