package e2e

// One prompt, shown once: a Claude Code session that the desktop app
// hosts runs claude-pi's hooks (installed with --user) and also sends its
// prompts in the desktop's BLE heartbeat. The real CLI, marked as the
// desktop marks it (CLAUDE_CODE_ENTRYPOINT=claude-desktop), and the
// desktop stand-in showing the same prompt run against one Pi.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/lan"
	"github.com/claude-pi/claude-pi/internal/appliance/appliancetest"
	"github.com/claude-pi/claude-pi/internal/appliance/appliancetest/fakedesktop"
	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

func TestDesktopHostedPromptShownOnce(t *testing.T) {
	e2e(t)
	bin := claudeBinary(t)
	cli := filepath.Join(t.TempDir(), "claude-pi")
	appliancetest.Build(t, cli)
	a := startApplianceWith(t, func(c *Config) { c.LAN.Listen = "127.0.0.1:0" })
	config := a.pairByButton(t, "laptop")
	r := &claudeRig{bin: bin, home: installHooks(t, cli), api: newFakeAPI(t), config: config, a: a, work: t.TempDir()}
	d := a.Dial(t, &fakedesktop.Options{StatusEvery: -1, Debounce: 20 * time.Millisecond})

	// Every entrypoint Claude Code counts as hosted by the desktop app;
	// local agent mode also scrubs its subprocesses' environment, so the
	// hook must still see the marker there.
	for _, ep := range []string{"claude-desktop", "claude-desktop-3p", "local-agent"} {
		t.Run(ep, func(t *testing.T) {
			// The desktop shows the tool call in its heartbeat as the session asks;
			// the session's hooks run at the same time.
			id := "toolu_01Hosted_" + ep
			c := r.start(t, "hosted-"+ep, "create H", plan{turns: [][]toolCall{{bash("touch H")}}, final: "Understood."},
				"CLAUDE_CODE_ENTRYPOINT="+ep)
			d.SetPrompt(id, "Bash", "touch H")
			a.awaitPrompt(t, id)

			// Until the CLI is done, every hook of the session included, the Pi
			// shows the desktop's prompt and nothing else.
			most := 0
			for !c.exitedNow() {
				v := a.UIView(t)
				most = max(most, len(v.Prompts))
				for _, p := range v.Prompts {
					if p.Source != "desktop" {
						t.Fatalf("a prompt from %s (%s) beside the desktop's: the session's prompt is shown twice", p.Source, p.Hint)
					}
				}
				time.Sleep(20 * time.Millisecond)
			}
			c.wait(t)
			t.Logf("%s: claude -p ran %v, its hooks stepping aside", ep, c.exited.Sub(c.start))
			log, _ := os.ReadFile(c.debug)
			if !strings.Contains(string(log), cli+" hook permission") {
				t.Fatalf("the permission hook never ran in the hosted session, so this proves nothing; hook lines:\n%s", hookLines(c.debug))
			}
			if res := r.api.Results("hosted-" + ep); len(res) != 1 || strings.Contains(res[0].Text, "Claude_Pi") {
				t.Fatalf("the hook decided in a desktop-hosted session: tool results %+v", res)
			}
			if most != 1 {
				t.Fatalf("the Pi showed %d prompts at once, want the desktop's alone", most)
			}
			st := supervisortest.Ask[lan.State](t, a.Tree, lan.ServiceName, lan.GetState{})
			if st.Pending != 0 || len(st.Sessions) != 0 {
				t.Fatalf("the hosted session reached the Pi through the hooks too: %d pending, sessions %+v", st.Pending, st.Sessions)
			}

			// One press answers it, on the path the desktop listens on.
			a.Press(t, "A")
			if p := oneDecision(t, d, 300*time.Millisecond); p.ID != id || p.Decision != pbuddy.Once {
				t.Fatalf("desktop got %s, want once for %s", p.Line, id)
			}
		})
	}
}
