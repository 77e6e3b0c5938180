package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/claude-pi/claude-pi/actors/lan"
	"github.com/claude-pi/claude-pi/internal/appliance/appliancetest"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// The real CLI's hooks report the session's permission mode: a project
// set to acceptEdits shows as such on the Pi while its Bash prompt waits.
func TestClaudeCodeSessionMode(t *testing.T) {
	e2e(t)
	bin := claudeBinary(t)
	cli := filepath.Join(t.TempDir(), "claude-pi")
	appliancetest.Build(t, cli)
	a := startApplianceWith(t, func(c *Config) { c.LAN.Listen = "127.0.0.1:0" })
	config := a.pairByButton(t, "laptop")
	r := &claudeRig{bin: bin, home: installHooks(t, cli), api: newFakeAPI(t), config: config, a: a, work: t.TempDir()}

	project := filepath.Join(r.work, "edits", ".claude")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(project, "settings.json"), `{"permissions":{"defaultMode":"acceptEdits"}}`)
	// acceptEdits approves a plain `touch` in the project by itself; run
	// through sh, the call asks.
	c := r.start(t, "edits", "create M", plan{turns: [][]toolCall{{bash("sh -c 'touch M'")}}, final: "Done."}, "CLAUDE_CODE_ENTRYPOINT=cli")
	pv := r.shown(t, c)
	st := supervisortest.Ask[lan.State](t, a.Tree, lan.ServiceName, lan.GetState{})
	i := slices.IndexFunc(st.Sessions, func(s lan.Session) bool { return lan.SourcePrefix+s.ID == pv.Source })
	if i < 0 || st.Sessions[i].Mode != hookbridge.ModeAcceptEdits {
		t.Fatalf("the prompt's session on the Pi: %+v, want mode acceptEdits", st.Sessions)
	}
	r.decide(t, pv, "A")
	c.wait(t)
	if !exists(c.file("M")) {
		t.Fatal("approved on the Pi, but M was not created")
	}
}
