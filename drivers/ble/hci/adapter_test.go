package hci

import "testing"

func TestParseAdapter(t *testing.T) {
	for _, tt := range []struct {
		name string
		want int
		ok   bool
	}{
		{"", 0, true}, {"hci0", 0, true}, {"hci1", 1, true}, {"hci123", 123, true},
		{"hci", 0, false}, {"hci1234", 0, false}, {"hci-1", 0, false}, {"/org/bluez/hci1", 0, false}, {"HCI0", 0, false}, {"hci0 ", 0, false},
	} {
		got, err := ParseAdapter(tt.name)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseAdapter(%q) = %d, %v; want %d, ok %v", tt.name, got, err, tt.want, tt.ok)
		}
	}
}
