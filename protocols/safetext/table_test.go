package safetext

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

var updateTable = flag.Bool("update-hidden", false, "rewrite testdata/hidden.txt from IsHidden and the escape names")

// hiddenTable is IsHidden as ranges and the escape names, in a form the
// firmware's tests read: the CoreS3 must escape exactly what the Pi does.
func hiddenTable() string {
	var b strings.Builder
	b.WriteString("# What safetext.IsHidden escapes, as inclusive ranges, and the escape names.\n")
	b.WriteString("# Generated: go test ./protocols/safetext -run HiddenTable -update-hidden\n")
	b.WriteString("# Read by firmware/test/test_safetext.cpp.\n")
	start := rune(-1)
	for r := rune(0); r <= 0x110000; r++ {
		h := r < 0x110000 && IsHidden(r)
		switch {
		case h && start < 0:
			start = r
		case !h && start >= 0:
			fmt.Fprintf(&b, "range %04X %04X\n", start, r-1)
			start = -1
		}
	}
	keys := make([]rune, 0, len(names))
	for r := range names {
		keys = append(keys, r)
	}
	slices.Sort(keys)
	for _, r := range keys {
		fmt.Fprintf(&b, "name %04X %s\n", r, names[r])
	}
	return b.String()
}

func TestHiddenTable(t *testing.T) {
	want := hiddenTable()
	if *updateTable {
		if err := os.WriteFile("testdata/hidden.txt", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("testdata/hidden.txt")
	if err != nil || string(got) != want {
		t.Fatalf("testdata/hidden.txt is stale (%v): rewrite it with -update-hidden, then run make -C firmware test", err)
	}
}
