package e2e

// The hooks as Claude Code runs them, in this process: the same inputs as
// internal/cli's hook tests (whose helpers a package outside cli cannot
// reach), started through cli.Run.

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// A PermissionRequest as Claude Code writes it for a Bash call.
const hookPermissionJSON = `{"session_id":"9f3c2a10-7d1e-4b8a-bc55-2f6e1d0a9c77","transcript_path":"/home/ada/.claude/projects/-home-ada-src-engine/9f3c2a10.jsonl","cwd":"/home/ada/src/engine","permission_mode":"default","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -rf build && make -j8","description":"Clean rebuild"},"permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"make:*"}],"behavior":"allow","destination":"localSettings"}]}`

// The PostToolUse of the same call: the same tool_input, keys in another
// order and spaced otherwise, as a separate process may write it.
const hookPostToolUseJSON = `{"session_id":"9f3c2a10-7d1e-4b8a-bc55-2f6e1d0a9c77","cwd":"/home/ada/src/engine","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{ "description": "Clean rebuild", "command": "rm -rf build \u0026\u0026 make -j8" },"tool_use_id":"toolu_01","tool_response":{"stdout":"ok"}}`

type hookRun struct {
	out     bytes.Buffer
	done    chan struct{}
	started time.Time
	ended   time.Time
}

func startHook(dir string, args []string, input string) *hookRun {
	h := &hookRun{done: make(chan struct{}), started: time.Now()}
	go func() {
		defer close(h.done)
		err := run(context.Background(), append([]string{"hook", "permission", "--config", dir}, args...), strings.NewReader(input), &h.out, io.Discard)
		h.ended = time.Now()
		if err != nil {
			h.out.WriteString("ERROR " + err.Error())
		}
	}()
	return h
}

func (h *hookRun) wait(t *testing.T) string {
	t.Helper()
	select {
	case <-h.done:
	case <-time.After(15 * time.Second):
		t.Fatal("hook did not exit")
	}
	return h.out.String()
}
