package appevent

import (
	"errors"
	"testing"
)

func TestMarshalSettings(t *testing.T) {
	for _, tc := range []struct {
		s    Settings
		want string
	}{
		{Settings{EventID: "settings-1", Volume: 0}, `{"type":"claude_pi.settings","event_id":"settings-1","tts":{"volume":0}}`},
		{Settings{EventID: "settings-ab12-7", Volume: 100}, `{"type":"claude_pi.settings","event_id":"settings-ab12-7","tts":{"volume":100}}`},
		{Settings{EventID: "q\"\n", Volume: 42}, `{"type":"claude_pi.settings","event_id":"q\"\n","tts":{"volume":42}}`},
	} {
		b, err := MarshalSettings(tc.s)
		if err != nil || string(b) != tc.want {
			t.Errorf("MarshalSettings(%+v) = %s, %v; want %s", tc.s, b, err, tc.want)
			continue
		}
		got, err := DecodeSettings(b)
		if err != nil || got != tc.s {
			t.Errorf("DecodeSettings(%s) = %+v, %v; want %+v", b, got, err, tc.s)
		}
		// A raw event: the firmware's router must not take it for stackchan.event.v1.
		if r, err := Route(b); err != nil || r.Kind != Raw || r.Type != TypeSettings {
			t.Errorf("Route(%s) = %+v, %v; want a raw %s", b, r, err, TypeSettings)
		}
	}
	for _, bad := range []Settings{{EventID: "", Volume: 1}, {EventID: "x", Volume: -1}, {EventID: "x", Volume: 101}} {
		if b, err := MarshalSettings(bad); !errors.Is(err, ErrSettings) {
			t.Errorf("MarshalSettings(%+v) = %s, %v; want ErrSettings", bad, b, err)
		}
	}
}

func TestDecodeSettingsRefuses(t *testing.T) {
	for _, b := range []string{
		`{"type":"claude_pi.settings","event_id":"x","tts":{"volume":101}}`,
		`{"type":"claude_pi.settings","event_id":"x","tts":{"volume":-1}}`,
		`{"type":"claude_pi.settings","event_id":"x","tts":{"volume":50.5}}`,
		`{"type":"claude_pi.settings","event_id":"x","tts":{"volume":"50"}}`,
		`{"type":"claude_pi.settings","event_id":"x","tts":{}}`,
		`{"type":"claude_pi.settings","event_id":"","tts":{"volume":5}}`,
		`{"type":"claude_pi.settings","tts":{"volume":5}}`,
		`{"type":"session.update","event_id":"x","tts":{"volume":5}}`,
		`{"schema":"stackchan.event.v1","type":"claude_pi.settings","event_id":"x","tts":{"volume":5}}`,
		`{"type":"claude_pi.settings","event_id":"x","tts":{"volume":5}} {}`,
		`null`,
	} {
		if s, err := DecodeSettings([]byte(b)); !errors.Is(err, ErrSettings) {
			t.Errorf("DecodeSettings(%s) = %+v, %v; want ErrSettings", b, s, err)
		}
	}
}

// FuzzDecodeSettings: no panic, and every accepted event re-encodes to
// bytes that decode to the same settings.
func FuzzDecodeSettings(f *testing.F) {
	f.Add([]byte(`{"type":"claude_pi.settings","event_id":"settings-1","tts":{"volume":70}}`))
	f.Add([]byte(`{"type":"claude_pi.settings","event_id":"x","tts":{"volume":1e2}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := DecodeSettings(b)
		if err != nil {
			return
		}
		enc, err := MarshalSettings(s)
		if err != nil {
			t.Fatalf("accepted %+v does not encode: %v", s, err)
		}
		if again, err := DecodeSettings(enc); err != nil || again != s {
			t.Fatalf("round trip %s -> %+v, %v; want %+v", enc, again, err, s)
		}
	})
}
