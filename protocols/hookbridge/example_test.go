package hookbridge_test

import (
	"fmt"

	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

func ExampleDecodeHookInput() {
	in, err := hookbridge.DecodeHookInput([]byte(`{"session_id":"abc","cwd":"/src/engine","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"make test"}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	hint, _ := hookbridge.Summary(in.ToolName, in.ToolInput)
	fmt.Println(hookbridge.ProjectName(in.CWD), in.ToolName, hint)
	// Output: engine Bash make test
}

func ExampleAllowOutput() {
	fmt.Print(string(hookbridge.AllowOutput()))
	fmt.Print(string(hookbridge.DenyOutput(hookbridge.DenyMessage("Claude_Pi", ""))))
	// Output:
	// {"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}
	// {"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"Denied on Claude_Pi."}}}
}

func ExampleCode() {
	laptop, pi := []byte("laptop certificate DER"), []byte("pi certificate DER")
	nc, np := make([]byte, hookbridge.NonceSize), make([]byte, hookbridge.NonceSize)
	np[0] = 1
	// The laptop commits, the Pi answers with its nonce, the laptop
	// reveals; the Pi checks the reveal, and both show the same code.
	c := hookbridge.Commitment(laptop, pi, nc)
	fmt.Println(hookbridge.CheckCommitment(c, laptop, pi, nc), len(hookbridge.Code(laptop, pi, nc, np)))
	// Output: true 6
}
