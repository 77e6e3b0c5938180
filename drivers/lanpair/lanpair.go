// Package lanpair keeps the TLS identities and pinned peers of the LAN
// bridge between a developer's computer and the Pi: a self-signed ECDSA
// certificate per end, created once and stored atomically, and tls.Configs
// that trust exactly one pinned certificate instead of a CA.
//
// Only crypto/tls, crypto/ecdsa, crypto/x509 and SHA-256 are used.
package lanpair

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"time"

	"github.com/claude-pi/claude-pi/drivers/storage"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

// LoadOrCreate returns the identity stored at path (a PEM file with the
// private key and the certificate), creating it with commonName when the
// file does not exist. The file is written with mode 0600.
func LoadOrCreate(path, commonName string) (tls.Certificate, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		cert, err := tls.X509KeyPair(b, b)
		if err != nil {
			return tls.Certificate{}, fmt.Errorf("lanpair: reading identity %s: %v", path, err)
		}
		return cert, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return tls.Certificate{}, fmt.Errorf("lanpair: reading identity: %w", err)
	}
	pemBytes, err := newIdentity(commonName)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("lanpair: creating identity: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return tls.Certificate{}, fmt.Errorf("lanpair: creating identity: %w", err)
	}
	if err := storage.WriteFile(path, pemBytes, 0o600); err != nil {
		return tls.Certificate{}, err
	}
	return tls.X509KeyPair(pemBytes, pemBytes)
}

func newIdentity(cn string) ([]byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: cn},
		// Pinned certificates are never checked for expiry; the validity
		// is long so that a strict verifier elsewhere does not trip.
		NotBefore:   now.Add(-time.Hour),
		NotAfter:    now.AddDate(30, 0, 0),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		DNSNames:    []string{cn},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	kb, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	out := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kb})
	return append(out, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})...), nil
}

// ServerConfig is the Pi's TLS config: it asks every client for a
// certificate and accepts any that is validly self-signed, because an
// unpaired client must reach the pairing endpoint; the API checks the
// certificate's pin on each request. (RequireAnyClientCert alone checks
// only that the client holds the key, not that the certificate is
// signed at all.)
func ServerConfig(id tls.Certificate) *tls.Config {
	return &tls.Config{
		Certificates: []tls.Certificate{id},
		ClientAuth:   tls.RequireAnyClientCert,
		MinVersion:   tls.VersionTLS13,
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("lanpair: the client sent no certificate")
			}
			return CheckSelfSigned(cs.PeerCertificates[0])
		},
	}
}

// CheckSelfSigned checks that c is signed by its own key: the shape of
// every certificate LoadOrCreate makes.
func CheckSelfSigned(c *x509.Certificate) error {
	if err := c.CheckSignature(c.SignatureAlgorithm, c.RawTBSCertificate, c.Signature); err != nil {
		return fmt.Errorf("lanpair: the peer's certificate is not self-signed: %v", err)
	}
	return nil
}

// ErrPin: the peer's certificate is not the pinned one.
var ErrPin = errors.New("lanpair: the Pi's certificate does not match the pinned one (re-pair with claude-pi pair)")

// ClientConfig is the computer's TLS config. With pin set (a
// hookbridge.Fingerprint), only that server certificate is accepted: the
// chain and name checks of a CA are replaced by the pin, which is
// stronger here. With pin "" (pairing), any certificate is accepted and
// the user compares the pairing code instead.
func ClientConfig(id tls.Certificate, pin string) *tls.Config {
	return &tls.Config{
		Certificates:       []tls.Certificate{id},
		InsecureSkipVerify: true, // replaced by VerifyConnection's pin check
		MinVersion:         tls.VersionTLS13,
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("lanpair: the Pi sent no certificate")
			}
			if pin != "" && hookbridge.Fingerprint(cs.PeerCertificates[0].Raw) != pin {
				return ErrPin
			}
			return CheckSelfSigned(cs.PeerCertificates[0])
		},
	}
}

// ReadJSON decodes the JSON file at path into v. A missing file leaves v
// alone and is not an error.
func ReadJSON(path string, v any) error { return readJSON(os.ReadFile, path, v) }

// ReadJSONNoFollow is ReadJSON for root reading the appliance's file: a
// symbolic link at path or for its directory is refused
// (storage.ReadFileNoFollow), and so is anything but a regular file.
func ReadJSONNoFollow(path string, v any) error {
	return readJSON(storage.ReadFileNoFollow, path, v)
}

func readJSON(read func(string) ([]byte, error), path string, v any) error {
	b, err := read(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("lanpair: reading %s: %w", path, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("lanpair: reading %s: %v", path, err)
	}
	return nil
}

// WriteJSON writes v to path atomically (temp file, fsync, rename) with
// mode 0600, creating the directory.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("lanpair: encoding %s: %v", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("lanpair: writing %s: %w", path, err)
	}
	return storage.WriteFile(path, append(b, '\n'), 0o600)
}

// ReplaceJSON writes v to path like WriteJSON, but an existing file keeps
// its mode, owner and group, and a symbolic link at path or for its
// directory is refused (storage.ReplaceFile says why).
func ReplaceJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("lanpair: encoding %s: %v", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("lanpair: writing %s: %w", path, err)
	}
	return storage.ReplaceFile(path, append(b, '\n'), 0o600)
}
