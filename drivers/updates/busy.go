package updates

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// BusyPath is where the appliance marks itself busy: the file exists while a
// reboot or a restart of claude-pi would cut someone off (a prompt pending,
// the CoreS3 speaking), and holds the reasons, one a line. The image's
// reboot timer and apt-daily-upgrade's ExecCondition
// (/usr/lib/claude-pi/quiet) wait while it exists. /run/claude-pi is the
// unit's RuntimeDirectory: gone at every boot and when claude-pi stops, so
// a crash cannot leave the Pi "busy" forever (systemd removes it).
const BusyPath = "/run/claude-pi/busy"

// Busy keeps the marker file. Safe for concurrent use.
type Busy struct {
	path    string
	mu      sync.Mutex
	reasons map[string]bool
}

// NewBusy keeps the marker at path (BusyPath on the Pi).
func NewBusy(path string) *Busy { return &Busy{path: path, reasons: map[string]bool{}} }

// Set turns one reason ("prompt", "speaking") on or off and rewrites the
// marker: gone when no reason is on. Readers never see a half-written file.
func (b *Busy) Set(reason string, on bool) error {
	if reason == "" || strings.ContainsAny(reason, "\n\x00") {
		return fmt.Errorf("busy marker: reason %q: want one non-empty line", reason)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.reasons[reason] == on {
		return nil
	}
	if err := b.write(reason, on); err != nil {
		return err
	}
	if on {
		b.reasons[reason] = true
	} else {
		delete(b.reasons, reason)
	}
	return nil
}

// write makes the file say the reasons with one changed; the map is
// changed only once the file says so, and a failed write is tried afresh
// by the next Set.
func (b *Busy) write(reason string, on bool) error {
	rs := make([]string, 0, len(b.reasons)+1)
	for r := range b.reasons {
		if r != reason {
			rs = append(rs, r)
		}
	}
	if on {
		rs = append(rs, reason)
	}
	if len(rs) == 0 {
		if err := os.Remove(b.path); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("busy marker: %w", err)
		}
		return nil
	}
	slices.Sort(rs)
	tmp, err := os.CreateTemp(filepath.Dir(b.path), ".busy-*")
	if err != nil {
		return fmt.Errorf("busy marker: %w (is %s the unit's RuntimeDirectory?)", err, filepath.Dir(b.path))
	}
	_, werr := tmp.WriteString(strings.Join(rs, "\n") + "\n")
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), b.path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("busy marker: %w", werr)
	}
	return nil
}

// ReadBusy is the marker's reasons; none when there is no marker.
func ReadBusy(path string) ([]string, error) {
	b, err := readHead(path, 4096)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(b)), nil
}
