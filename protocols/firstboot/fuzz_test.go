package firstboot

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// FuzzSeed: no input panics or hangs; whatever is accepted is one line a
// value (so Format cannot be made to write a key of its own), and
// Format's output reads back as the same settings.
func FuzzSeed(f *testing.F) {
	for _, dir := range []string{"full", "keyonly", "open", "sshoff"} {
		for _, name := range []string{"user-data", "network-config"} {
			if b, err := os.ReadFile("testdata/" + dir + "/" + name); err == nil {
				if name == "user-data" {
					f.Add(b, []byte(nil))
				} else {
					f.Add([]byte(nil), b)
				}
			}
		}
	}
	f.Add([]byte("#cloud-config\nuser:\n  name: \"a\\nhostname = evil\"\n"), []byte("network:\n  version: 2\n  wifis:\n    wlan0:\n      access-points:\n        \"\\x00\\n\":\n"))
	f.Fuzz(func(t *testing.T, userData, networkConfig []byte) {
		s, _ := ParseSeed(Seed{UserData: userData, NetworkConfig: networkConfig})
		s.Notes, s.InstanceID = nil, ""
		out := Format(s)
		if n := strings.Count(string(out), "\n"); n != 1+len(s.SSHKeys)+countSet(s) {
			t.Fatalf("Format wrote %d lines for %+v:\n%s", n, s, out)
		}
		if back := ParseTxt(out); !reflect.DeepEqual(back, s) {
			t.Fatalf("read back %+v\nwant      %+v", back, s)
		}
	})
}

func countSet(s Settings) int {
	n := 0
	for _, k := range txtKeys {
		if *k.field(&s) != "" {
			n++
		}
	}
	return n
}
