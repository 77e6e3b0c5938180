package lan

import (
	"crypto/tls"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/claude-pi/claude-pi/drivers/lanpair"
	"github.com/claude-pi/claude-pi/drivers/storage/statefile"
)

// The lan service's kept files, under the data directory.
const (
	clientsFile  = "lan/clients.json"
	identityFile = "lan/identity.pem"
)

// maxClientsFile and maxIdentityFile bound what is read: a few hundred
// paired computers, one key and certificate.
const (
	maxClientsFile  = 256 << 10
	maxIdentityFile = 64 << 10
)

// clientList is clients.json: the paired computers.
type clientList []Client

// Validate refuses an entry no pairing writes: one without a name or a
// certificate fingerprint would match nobody, or anybody.
func (l clientList) Validate() error {
	for i, c := range l {
		if c.Name == "" || c.Fingerprint == "" {
			return fmt.Errorf("entry %d has no name or no fingerprint", i)
		}
	}
	return nil
}

func (a *Actor) files() statefile.Dir { return statefile.Dir{Path: a.o.DataDir, Now: a.o.Now} }

// loadClients reads clients.json. A damaged one is set aside and no
// computer is paired: pairing them again is the cost, never a dead LAN
// bridge (issue 32).
func (a *Actor) loadClients() ([]Client, *statefile.Damage) {
	l, _, dmg := statefile.LoadJSON(a.files(), clientsFile, maxClientsFile, clientList(nil))
	if dmg != nil {
		a.h.Logger().Error("paired computers forgotten: pair them again (claude-pi pair)", "file", dmg.File, "reason", string(dmg.Reason), "err", dmg)
	}
	return l, dmg
}

func (a *Actor) writeClients() error {
	return a.files().SaveJSON(clientsFile, clientList(a.st.clients), 0o600)
}

// loadIdentity returns the Pi's TLS identity, creating it the first
// time. A damaged one is set aside and a new one made: every computer's
// pin then fails and it pairs again, which beats a LAN service that
// cannot start.
func (a *Actor) loadIdentity() (tls.Certificate, error) {
	_, dmg := a.files().Load(identityFile, maxIdentityFile, func(b []byte) error {
		_, err := tls.X509KeyPair(b, b)
		return err
	})
	if dmg != nil {
		a.h.Logger().Error("the Pi's LAN certificate was damaged; made a new one: pair the computers again", "reason", string(dmg.Reason), "err", dmg)
		if dmg.AsideErr != nil {
			return tls.Certificate{}, errors.Join(dmg, dmg.AsideErr)
		}
	}
	return lanpair.LoadOrCreate(filepath.Join(a.o.DataDir, filepath.FromSlash(identityFile)), "claude-pi")
}
