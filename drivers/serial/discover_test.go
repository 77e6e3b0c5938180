package serial

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func core(name, serial string) *PortDetails {
	return &PortDetails{Name: name, IsUSB: true, VID: "303A", PID: "1001", SerialNumber: serial,
		Product: "USB JTAG/serial debug unit", Manufacturer: "Espressif"}
}

func TestMatch(t *testing.T) {
	ftdi := &PortDetails{Name: "/dev/ttyUSB0", IsUSB: true, VID: "0403", PID: "6001", SerialNumber: "A1"}
	uart := &PortDetails{Name: "/dev/ttyAMA0"}
	lower := &PortDetails{Name: "/dev/ttyACM3", IsUSB: true, VID: "303a", PID: "1001", SerialNumber: "lc"}
	notUSB := &PortDetails{Name: "/dev/ttyACM9", VID: "303A", PID: "1001"}
	tests := []struct {
		name    string
		ports   []*PortDetails
		serial  string
		want    string
		wantErr string
	}{
		{"none", nil, "", "", "no CoreS3 on USB (looking for 303a:1001)"},
		{"only others", []*PortDetails{ftdi, uart, nil, notUSB}, "", "", "no CoreS3 on USB (looking for 303a:1001)"},
		{"one", []*PortDetails{ftdi, core("/dev/ttyACM0", "S1")}, "", "/dev/ttyACM0", ""},
		{"lower-case ids", []*PortDetails{lower}, "", "/dev/ttyACM3", ""},
		{"two unpinned picks lowest path", []*PortDetails{core("/dev/ttyACM1", "S2"), core("/dev/ttyACM0", "S1")}, "", "/dev/ttyACM0", ""},
		{"pinned", []*PortDetails{core("/dev/ttyACM0", "S1"), core("/dev/ttyACM1", "S2")}, "S2", "/dev/ttyACM1", ""},
		{"pinned missing", []*PortDetails{core("/dev/ttyACM1", "S2"), core("/dev/ttyACM0", "")}, "S9",
			"", `CoreS3 with serial "S9" not found; found one without a serial number at /dev/ttyACM0, "S2" at /dev/ttyACM1`},
		{"pinned none plugged", []*PortDetails{ftdi}, "S9", "", "no CoreS3 on USB (looking for 303a:1001)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := match(tt.ports, &Opts{Serial: tt.serial})
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("match() error = %v, want %q", err, tt.wantErr)
				}
				if !errors.Is(err, ErrNotFound) {
					t.Fatalf("match() error %v does not wrap ErrNotFound", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Name != tt.want {
				t.Fatalf("match() = %s, want %s", got.Name, tt.want)
			}
		})
	}
}

func TestMatchNilOpts(t *testing.T) {
	got, err := match([]*PortDetails{core("/dev/ttyACM0", "")}, nil)
	if err != nil || got.Name != "/dev/ttyACM0" {
		t.Fatalf("match(nil opts) = %v, %v", got, err)
	}
}

func TestFindErrors(t *testing.T) {
	_, err := Find(&Opts{Enumerate: func() ([]*PortDetails, error) { return nil, errors.New("sysfs gone") }})
	if err == nil || !strings.Contains(err.Error(), "enumerating ports: sysfs gone") || errors.Is(err, ErrNotFound) {
		t.Fatalf("Find() with failing enumerator = %v", err)
	}
	_, err = Find(&Opts{Enumerate: func() ([]*PortDetails, error) { return nil, nil }})
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("Find() with no ports = %v, want ErrNotFound", err)
	}
}

// mkUSB builds the sysfs shape of a USB tty: class/tty/NAME links to the tty
// node under the interface, whose device link points at the interface; the
// USB device directory above holds the id attributes.
func mkUSB(t *testing.T, sys, name, usbDev string, attrs map[string]string, depth int) {
	t.Helper()
	dev := filepath.Join(sys, "devices", "usb1", usbDev)
	iface := filepath.Join(dev, usbDev+":1.0")
	if depth == 2 {
		iface = filepath.Join(iface, "ttyUSB-port")
	}
	node := filepath.Join(iface, "tty", name)
	for _, d := range []string{node, filepath.Join(sys, "class", "tty")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for k, v := range attrs {
		if err := os.WriteFile(filepath.Join(dev, k), []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(iface, filepath.Join(node, "device")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(node, filepath.Join(sys, "class", "tty", name)); err != nil {
		t.Fatal(err)
	}
}

func TestSysfsPorts(t *testing.T) {
	sys := t.TempDir()
	mkUSB(t, sys, "ttyACM0", "1-1.2", map[string]string{"idVendor": "303a", "idProduct": "1001", "serial": "F4:12:FA:00:11:22", "product": "USB JTAG/serial debug unit"}, 1)
	mkUSB(t, sys, "ttyUSB0", "1-1.3", map[string]string{"idVendor": "0403", "idProduct": "6001"}, 2)
	// A tty without a device link (virtual) and a non-matching name.
	if err := os.MkdirAll(filepath.Join(sys, "class", "tty", "ttyACM7"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(sys, "class", "tty", "ttyS0"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := sysfsPorts(sys, "/dev")
	if err != nil {
		t.Fatal(err)
	}
	want := []*PortDetails{
		{Name: "/dev/ttyACM0", IsUSB: true, VID: "303A", PID: "1001", SerialNumber: "F4:12:FA:00:11:22", Product: "USB JTAG/serial debug unit"},
		{Name: "/dev/ttyACM7"},
		{Name: "/dev/ttyUSB0", IsUSB: true, VID: "0403", PID: "6001"},
	}
	if !reflect.DeepEqual(got, want) {
		for _, g := range got {
			t.Logf("got %+v", *g)
		}
		t.Fatal("sysfsPorts mismatch")
	}
	m, err := match(got, nil)
	if err != nil || m.Name != "/dev/ttyACM0" {
		t.Fatalf("match(sysfs) = %v, %v", m, err)
	}
}

func TestSysfsEnumeratorRuns(t *testing.T) {
	// The real tree: must not fail even where there is no USB at all.
	if _, err := SysfsEnumerator(); err != nil {
		t.Fatal(err)
	}
}
