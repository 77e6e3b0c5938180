package appliance

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestHeldLogLetsTheFirstLineComeFirst(t *testing.T) {
	var out bytes.Buffer
	var hl heldLog
	log := slog.New(hl.handler(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug})))
	log.Info("service started", "name", "ui")
	log.With("actor", "lan").Debug("listening")
	log.Warn("the sim web page is reachable from the network")
	out.WriteString("Claude_Pi on board sim: web http://127.0.0.1:8330\n")
	hl.release()
	log.Info("after")
	hl.release()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{"reachable from the network", "Claude_Pi on board sim", "service started", "actor=lan", "after"}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), out.String())
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("line %d = %q, want it to hold %q", i, lines[i], w)
		}
	}
}
