// Package clitest holds what the CLI's tests and the end-to-end tests share
// about the hooks: Claude Code's hook inputs and a hook run in-process.
// Only _test.go files import it.
package clitest

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// A PermissionRequest as Claude Code writes it for a Bash call.
const HookPermissionJSON = `{"session_id":"9f3c2a10-7d1e-4b8a-bc55-2f6e1d0a9c77","transcript_path":"/home/ada/.claude/projects/-home-ada-src-engine/9f3c2a10.jsonl","cwd":"/home/ada/src/engine","permission_mode":"default","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -rf build && make -j8","description":"Clean rebuild"},"permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"make:*"}],"behavior":"allow","destination":"localSettings"}]}`

// The PostToolUse of the same call: the same tool_input, keys in another
// order and spaced otherwise, as a separate process may write it.
const HookPostToolUseJSON = `{"session_id":"9f3c2a10-7d1e-4b8a-bc55-2f6e1d0a9c77","cwd":"/home/ada/src/engine","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{ "description": "Clean rebuild", "command": "rm -rf build \u0026\u0026 make -j8" },"tool_use_id":"toolu_01","tool_response":{"stdout":"ok"}}`

// Run is the command line cli.Run runs, with its streams apart.
type Run func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error

// Hook is one `claude-pi hook permission` run, as Claude Code starts it.
type Hook struct {
	out     bytes.Buffer
	done    chan struct{}
	Started time.Time // when it was started
	Ended   time.Time // when it returned
}

// StartHook runs the permission hook with the CLI state in dir, the extra
// args, and input on its stdin, in a goroutine; a failure is its output
// "ERROR ...".
func StartHook(run Run, dir string, args []string, input string) *Hook {
	h := &Hook{done: make(chan struct{}), Started: time.Now()}
	go func() {
		defer close(h.done)
		err := run(context.Background(), append([]string{"hook", "permission", "--config", dir}, args...), strings.NewReader(input), &h.out, io.Discard)
		h.Ended = time.Now()
		if err != nil {
			h.out.WriteString("ERROR " + err.Error())
		}
	}()
	return h
}

// Wait returns what the hook printed, once it has returned.
func (h *Hook) Wait(t testing.TB) string {
	t.Helper()
	select {
	case <-h.done:
	case <-time.After(15 * time.Second):
		t.Fatal("hook did not exit")
	}
	return h.out.String()
}
