package clientcli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/claude-pi/claude-pi/drivers/lanpair"
	"github.com/claude-pi/claude-pi/internal/client"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

// notificationWithMode is a Notification hook input carrying both fields
// that Pis before them refuse: permission_mode and notification_type.
const notificationWithMode = `{"session_id":"s-1","cwd":"/home/ada/src/engine","permission_mode":"plan","hook_event_name":"Notification","message":"Claude needs your permission to use Bash","notification_type":"permission_prompt"}`

// eventBeforeModes is /v1/event's body as Pis before mode and
// notification decode it: strictly, without those two.
type eventBeforeModes struct {
	Session  string `json:"session"`
	Event    string `json:"event"`
	Project  string `json:"project"`
	Agent    string `json:"agent,omitempty"`
	Activity string `json:"activity,omitempty"`
	Call     string `json:"call,omitempty"`
	Reply    string `json:"reply,omitempty"`
	CLI      string `json:"cli,omitempty"`
}

func decodeBeforeModes(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var ev eventBeforeModes
	if err := dec.Decode(&ev); err != nil {
		return err
	}
	return nil
}

// fakePi serves /v1/event over the Pi's pinned mutual TLS, answering each
// body with answer ("" is 200 OK, anything else a 400 with that text),
// and records the bodies; the hook's config dir is paired with it.
func fakePi(t *testing.T, answer func(body []byte) string) (config string, bodies func() []string) {
	t.Helper()
	id, err := lanpair.LoadOrCreate(filepath.Join(t.TempDir(), "identity.pem"), "Claude_Pi")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []string
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, string(b))
		mu.Unlock()
		if r.URL.Path != hookbridge.PathEvent {
			http.NotFound(w, r)
			return
		}
		if msg := answer(b); msg != "" {
			http.Error(w, msg, http.StatusBadRequest)
			return
		}
		w.Write([]byte(`{}`))
	}))
	srv.TLS = lanpair.ServerConfig(id)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	config = t.TempDir()
	cs := &client.State{Dir: config, Pis: []client.Pi{{Name: "Claude_Pi", Addr: srv.Listener.Addr().String(), Pin: hookbridge.Fingerprint(id.Certificate[0])}}}
	if err := cs.Save(); err != nil {
		t.Fatal(err)
	}
	return config, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
}

// TestHookEventRetriesWhatAnOlderPiRefuses: a Pi that predates the mode
// and notification fields answers 400 to an event that sets them; the
// hook sends it once more without them, and only on that refusal.
func TestHookEventRetriesWhatAnOlderPiRefuses(t *testing.T) {
	t.Setenv("CLAUDE_CODE_ENTRYPOINT", "cli")
	older := func(b []byte) string {
		if err := decodeBeforeModes(b); err != nil {
			return "hookbridge: bad request: " + err.Error()
		}
		return ""
	}
	current := func(b []byte) string {
		if _, err := hookbridge.DecodeEvent(b); err != nil {
			return err.Error()
		}
		return ""
	}
	for _, tc := range []struct {
		name      string
		answer    func([]byte) string
		wantSent  int  // requests the Pi got
		wantModes bool // the last one carries mode and notification
		delivered bool
	}{
		{name: "an older Pi gets the event without the new fields", answer: older, wantSent: 2, delivered: true},
		{name: "a current Pi gets it whole, once", answer: current, wantSent: 1, wantModes: true, delivered: true},
		{name: "another refusal is not retried", answer: func([]byte) string { return "hookbridge: bad request: session is empty" },
			wantSent: 1, wantModes: true},
		{name: "the retry is the only one", answer: func([]byte) string { return `hookbridge: bad request: json: unknown field "mode"` },
			wantSent: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			config, bodies := fakePi(t, tc.answer)
			var stdout, stderr bytes.Buffer
			if err := HookEventCommand(context.Background(), []string{"--config", config}, strings.NewReader(notificationWithMode), &stdout, &stderr); err != nil {
				t.Fatal(err)
			}
			sent := bodies()
			if len(sent) != tc.wantSent {
				t.Fatalf("the Pi got %d requests, want %d: %q", len(sent), tc.wantSent, sent)
			}
			if !strings.Contains(sent[0], `"mode":"plan"`) || !strings.Contains(sent[0], `"notification":"permission_prompt"`) {
				t.Fatalf("the first request lacks mode or notification: %s", sent[0])
			}
			last := sent[len(sent)-1]
			if hasModes := strings.Contains(last, `"mode"`) || strings.Contains(last, `"notification"`); hasModes != tc.wantModes {
				t.Fatalf("the last request %s: mode or notification present %v, want %v", last, hasModes, tc.wantModes)
			}
			if !strings.Contains(last, `"session":"s-1"`) || !strings.Contains(last, `"event":"Notification"`) {
				t.Fatalf("the last request lost the event itself: %s", last)
			}
			if failed := strings.Contains(stderr.String(), "event not delivered"); failed == tc.delivered {
				t.Fatalf("delivered %v, but stderr says %q", tc.delivered, stderr.String())
			}
		})
	}
}
