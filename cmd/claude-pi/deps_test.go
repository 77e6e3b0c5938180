package main

import (
	"flag"
	"os"
	"os/exec"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite deps.txt from go list")

// depsPlatform is the platform deps.txt is listed for: a Mac, where most
// people run Claude Code. Other platforms differ only in the standard
// library's and x/sys's own files.
var depsPlatform = []string{"GOOS=darwin", "GOARCH=arm64", "CGO_ENABLED=0"}

// TestDeps keeps deps.txt, every package the computer's claude-pi links,
// equal to what go list says (go test -run TestDeps -update rewrites
// it), so a new dependency shows in review, and checks that none of it
// is the appliance.
func TestDeps(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", ".")
	cmd.Env = append(os.Environ(), depsPlatform...)
	cmd.Stderr = os.Stderr
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, pkg := range strings.Fields(string(got)) {
		for _, banned := range []string{"/actors/", "/boards/", "/internal/appliance", "/supervisor", "protoactor", "prometheus", "opentelemetry", "go-ble", "periph.io", "go.bug.st/serial"} {
			if strings.Contains(pkg+"/", banned) {
				t.Errorf("the computer's claude-pi links %s (%s belongs to the appliance)", pkg, banned)
			}
		}
	}
	if *update {
		if err := os.WriteFile("deps.txt", got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile("deps.txt")
	if err != nil {
		t.Fatalf("%v (go test ./cmd/claude-pi -run TestDeps -update writes it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("deps.txt is not what the computer's claude-pi links; if the change is meant, run: go test ./cmd/claude-pi -run TestDeps -update\n%s", diff(string(want), string(got)))
	}
}

func diff(want, got string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Fields(s) {
			m[l] = true
		}
		return m
	}
	w, g := in(want), in(got)
	var b strings.Builder
	for l := range g {
		if !w[l] {
			b.WriteString("+ " + l + "\n")
		}
	}
	for l := range w {
		if !g[l] {
			b.WriteString("- " + l + "\n")
		}
	}
	return b.String()
}
