package hookbridge

import "encoding/json"

// DefaultDevice names the Pi in a deny message whose decision named no
// device. It is the appliance's own name (protocols/buddy's DeviceName,
// which a test holds it to), kept here so the hook's codec needs nothing
// of the BLE one.
const DefaultDevice = "Claude_Pi"

// permissionOutput is the shape the hook prints for a tool call. It has
// no room for updatedPermissions, updatedInput or interrupt: one decision
// for one request, as over BLE. (A question and a plan are answered with
// their own input echoed: QuestionOutput, PlanAllowOutput.)
type permissionOutput struct {
	HookSpecificOutput struct {
		HookEventName string `json:"hookEventName"`
		Decision      struct {
			Behavior string `json:"behavior"`
			Message  string `json:"message,omitempty"`
		} `json:"decision"`
	} `json:"hookSpecificOutput"`
}

// AllowOutput is the PermissionRequest hook output that allows this one
// tool call.
func AllowOutput() []byte { return permissionJSON(BehaviorAllow, "") }

// DenyOutput is the PermissionRequest hook output that denies this one
// tool call; message tells Claude (and the user) who denied it.
func DenyOutput(message string) []byte { return permissionJSON(BehaviorDeny, message) }

func permissionJSON(behavior, message string) []byte {
	var o permissionOutput
	o.HookSpecificOutput.HookEventName = EventPermissionRequest
	o.HookSpecificOutput.Decision.Behavior = behavior
	o.HookSpecificOutput.Decision.Message = message
	b, _ := json.Marshal(o) // cannot fail: strings only
	return append(b, '\n')
}

// DenyMessage names the device and the input that denied a request.
func DenyMessage(device, by string) string {
	if device == "" {
		device = DefaultDevice
	}
	if by == "" || by == device {
		return "Denied on " + device + "."
	}
	return "Denied on " + device + " (" + by + ")."
}
