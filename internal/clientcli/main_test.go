package clientcli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func runMain(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = Main(context.Background(), "1.2.3", args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestMainCommands(t *testing.T) {
	if code, out, _ := runMain("help"); code != 0 || !strings.Contains(out, "hook permission") || !strings.Contains(out, "mcp") || strings.Contains(out, "doctor") {
		t.Errorf("help: %d\n%s", code, out)
	}
	if code, out, _ := runMain("--version"); code != 0 || out != "claude-pi 1.2.3 (computer)\n" {
		t.Errorf("--version: %d %q", code, out)
	}
	if code, _, errOut := runMain("doctor"); code != 2 || !strings.Contains(errOut, "runs on the Pi") {
		t.Errorf("doctor on the computer: %d %q", code, errOut)
	}
	if code, _, errOut := runMain("paer"); code != 2 || !strings.Contains(errOut, `unknown command "paer"`) {
		t.Errorf("a typo: %d %q", code, errOut)
	}
	if code, _, _ := runMain(); code != 2 {
		t.Errorf("no command: %d, want a usage error", code)
	}
	if code, out, _ := runMain("help", "pair"); code != 0 || !strings.Contains(out, "Usage: claude-pi pair") || strings.Contains(out, "--local") {
		t.Errorf("help pair (the computer's has no --local): %d\n%s", code, out)
	}
	dir := t.TempDir()
	if code, out, errOut := runMain("pair", "--list", "--config", dir); code != 0 || out != "" {
		t.Errorf("pair --list with nothing paired: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := runMain("pair", "--revoke", "attic", "--config", dir); code != 1 || !strings.Contains(errOut, `"attic"`) {
		t.Errorf("pair --revoke of an unknown Pi: %d %q", code, errOut)
	}
}
