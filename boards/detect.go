package boards

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// HAT is what a HAT's ID EEPROM says of it. The Pi's firmware reads the
// EEPROM (on ID_SD/ID_SC, pins 27/28) at boot and copies its vendor atom
// into the device tree's /hat node, one file a field; a HAT without an
// EEPROM leaves no /hat node.
type HAT struct {
	Vendor, Product string
	UUID            string
	ProductID       string // "0x0001"
	ProductVer      string
}

func (h HAT) String() string {
	s := fmt.Sprintf("vendor %q, product %q", h.Vendor, h.Product)
	if h.UUID != "" {
		s += ", uuid " + h.UUID
	}
	return s
}

// hatDirs hold the /hat node, as modelFiles hold the model.
var hatDirs = []string{"proc/device-tree/hat", "sys/firmware/devicetree/base/hat"}

// ReadHAT reads the /hat node under root ("/" normally; a temporary
// directory in tests). ok is false when no HAT with an ID EEPROM is fitted
// (or the firmware did not read it).
func ReadHAT(root string) (hat HAT, ok bool) {
	for _, dir := range hatDirs {
		read := func(name string) string {
			b, err := os.ReadFile(filepath.Join(root, dir, name))
			if err != nil {
				return ""
			}
			return strings.TrimSpace(strings.TrimRight(string(b), "\x00"))
		}
		hat = HAT{Vendor: read("vendor"), Product: read("product"), UUID: read("uuid"),
			ProductID: read("product_id"), ProductVer: read("product_ver")}
		if hat.Vendor != "" || hat.Product != "" {
			return hat, true
		}
	}
	return HAT{}, false
}

// hatID is one HAT this package can tell by its EEPROM: Vendor and
// Product as the EEPROM spells them (exact), or a UUID.
type hatID struct {
	Vendor, Product, UUID string
	Board                 string
}

// hatIDs is empty because none of the supported HATs carries an ID EEPROM:
// pinout.xyz lists the Pirate Audio (a pHAT; "no pHAT products do",
// Pimoroni) and the Display HAT Mini with "eeprom: no", and Waveshare's
// 1.3" LCD HAT documents none. Nor can they be told apart by a probe that
// is safe: their displays are write-only SPI, their buttons read the same
// with nobody pressing, and the Pirate Audio and Display HAT Mini use the
// very same pins for both. A HAT added later with an EEPROM gets its row
// here, with the source of its vendor and product strings.
var hatIDs []hatID

// Detection is the board this machine has, when it can be known, and how
// that was found out, for the log and doctor.
type Detection struct {
	Board string // "" when it cannot be known
	How   string // a sentence
	HAT   *HAT   // the EEPROM's, when one was read
}

// Detect works out the board of the machine whose root file system is at
// root, from a HAT ID EEPROM.
func Detect(root string) Detection { return detect(root, hatIDs) }

func detect(root string, ids []hatID) Detection {
	hat, ok := ReadHAT(root)
	if !ok {
		return Detection{How: "no HAT ID EEPROM (no /proc/device-tree/hat), and the HATs of boards " +
			strings.Join(noEEPROM, ", ") + " carry none, so which one is fitted cannot be told"}
	}
	for _, id := range ids {
		if id.UUID != "" && strings.EqualFold(id.UUID, hat.UUID) || id.UUID == "" && id.Vendor == hat.Vendor && id.Product == hat.Product {
			return Detection{Board: id.Board, How: "chosen by the HAT's ID EEPROM (" + hat.String() + ")", HAT: &hat}
		}
	}
	return Detection{How: "a HAT ID EEPROM says " + hat.String() + ", not a HAT claude-pi has a profile for", HAT: &hat}
}

// noEEPROM names the boards whose HAT has no ID EEPROM (hatIDs says
// why): every one, today.
var noEEPROM = []string{"display-hat-mini", "pirate-audio", "waveshare-lcd13"}
