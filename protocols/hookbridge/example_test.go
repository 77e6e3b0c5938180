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

func ExamplePairingCode() {
	pi, laptop := []byte("pi certificate DER"), []byte("laptop certificate DER")
	fmt.Println(hookbridge.PairingCode(pi, laptop) == hookbridge.PairingCode(laptop, pi))
	// Output: true
}
