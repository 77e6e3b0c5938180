package hookbridge

import (
	"strings"
	"testing"
)

func TestModeBadge(t *testing.T) {
	for mode, want := range map[string]string{
		"": "", ModeDefault: "", ModePlan: "plan", ModeAcceptEdits: "accept edits",
		ModeBypassPermissions: "bypass", ModeDontAsk: "don't ask",
		"auto": "auto", "a\u202eb\x00" + strings.Repeat("x", 40): "ab" + strings.Repeat("x", 14),
	} {
		if got := ModeBadge(mode); got != want {
			t.Errorf("ModeBadge(%q) = %q, want %q", mode, got, want)
		}
	}
	for mode, want := range map[string]bool{ModeBypassPermissions: true, ModeDontAsk: true, ModePlan: false, ModeAcceptEdits: false, "": false, "bypass": false} {
		if got := ModeSkipsPrompts(mode); got != want {
			t.Errorf("ModeSkipsPrompts(%q) = %v, want %v", mode, got, want)
		}
	}
}

func TestWaitsForUser(t *testing.T) {
	for typ, want := range map[string]bool{
		"permission_prompt": true, "idle_prompt": true, "elicitation_dialog": true, "agent_needs_input": true,
		"worker_permission_prompt": true, "elicitation_url_dialog": true,
		"auth_success": false, "agent_completed": false, "push_notification": false, "": false, "Idle_Prompt": false,
	} {
		if got := WaitsForUser(typ); got != want {
			t.Errorf("WaitsForUser(%q) = %v, want %v", typ, got, want)
		}
	}
}

// A Notification's type and every event's mode reach the Pi: decoded
// from the hook input, carried by Event, and refused when too long.
func TestNotificationAndModeDecode(t *testing.T) {
	in, err := DecodeHookInput([]byte(`{"session_id":"s","hook_event_name":"Notification","permission_mode":"plan",
		"message":"Claude is waiting for your input","notification_type":"idle_prompt"}`))
	if err != nil {
		t.Fatal(err)
	}
	if in.NotificationType != NotifyIdlePrompt || in.PermissionMode != ModePlan {
		t.Fatalf("decoded %+v, want notification_type idle_prompt and mode plan", in)
	}
	e, err := DecodeEvent([]byte(`{"session":"s","event":"Notification","mode":"plan","notification":"idle_prompt"}`))
	if err != nil || e.Mode != ModePlan || e.Notification != NotifyIdlePrompt {
		t.Fatalf("DecodeEvent = %+v, %v", e, err)
	}
	long := strings.Repeat("m", MaxTool+1)
	if _, err := DecodeEvent([]byte(`{"session":"s","event":"Stop","mode":"` + long + `"}`)); err == nil {
		t.Error("an over-long mode was accepted")
	}
	if _, err := DecodeEvent([]byte(`{"session":"s","event":"Stop","notification":"` + long + `"}`)); err == nil {
		t.Error("an over-long notification type was accepted")
	}
}

func TestDesktopHosted(t *testing.T) {
	for ep, want := range map[string]bool{
		"claude-desktop": true, "claude-desktop-3p": true, "local-agent": true, "local_agent": true,
		"cli": false, "": false, "sdk-ts": false, "claude-vscode": false, "remote_desktop": false, "Claude-Desktop": false,
	} {
		if got := DesktopHosted(ep); got != want {
			t.Errorf("DesktopHosted(%q) = %v, want %v", ep, got, want)
		}
	}
}

// TestRefusesUnknownFieldNamesDecodeStrictsWords: the words a hook reads
// in a Pi's 400 are the ones DecodeEvent writes for a field it does not
// know, and name that field only.
func TestRefusesUnknownFieldNamesDecodeStrictsWords(t *testing.T) {
	_, err := DecodeEvent([]byte(`{"session":"s","event":"Stop","project":"p","newer":"x"}`))
	if err == nil {
		t.Fatal("an unknown field was accepted")
	}
	if !RefusesUnknownField(err.Error(), "newer") {
		t.Fatalf("%q does not read as refusing newer", err)
	}
	if RefusesUnknownField(err.Error(), "mode") || RefusesUnknownField(err.Error(), "new") {
		t.Fatalf("%q reads as refusing another field", err)
	}
	_, err = DecodeEvent([]byte(`{"session":"","event":"Stop","project":"p","mode":"plan"}`))
	if err == nil || RefusesUnknownField(err.Error(), "mode") {
		t.Fatalf("an empty session reads as refusing mode: %v", err)
	}
}
