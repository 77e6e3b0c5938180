package folderpush

import (
	"strings"
	"testing"
	"time"
)

func TestParseManifest(t *testing.T) {
	has := func(n string) bool { return strings.HasSuffix(n, ".gif") }
	for _, tt := range []struct {
		name, json string
		wantErr    string // "" = valid
	}{
		{"gif pack", `{"name":"bufo","states":{"idle":["a.gif","b.gif"],"sleep":"s.gif"}}`, ""},
		{"unknown keys ignored", `{"x":1,"states":{"idle":"a.gif","wave":7}}`, ""},
		{"text pack", `{"mode":"text","states":{"idle":{"frames":["(o_o)","(-_-)"],"delay":150}}}`, ""},
		{"trailing space", "{\"states\":{\"idle\":\"a.gif\"}}\n ", ""},
		{"not an object", `["states"]`, "manifest: json"},
		{"null", `null`, "not a JSON object"},
		{"trailing data", `{"states":{"idle":"a.gif"}} {}`, "data after"},
		{"no states", `{"name":"x"}`, "states missing"},
		{"no known state", `{"states":{"wave":"a.gif"}}`, "no known state"},
		{"name type", `{"name":3,"states":{"idle":"a.gif"}}`, "name is not a string"},
		{"mode type", `{"mode":true,"states":{"idle":"a.gif"}}`, "mode is not a string"},
		{"empty array", `{"states":{"idle":[]}}`, "states.idle is an empty array"},
		{"number state", `{"states":{"idle":5}}`, "neither a file name"},
		{"non-string entry", `{"states":{"busy":["a.gif",1]}}`, "states.busy[1]"},
		{"missing file", `{"states":{"idle":"a.png"}}`, "not in the pack"},
		{"path in manifest", `{"states":{"idle":"../a.gif"}}`, "invalid path"},
		{"long gif name", `{"states":{"idle":"` + strings.Repeat("a", 28) + `.gif"}}`, "longer than 31"},
		{"33 gifs", `{"states":{"idle":[` + strings.Repeat(`"a.gif",`, 32) + `"a.gif"]}}`, "more than 32"},
		{"bad colour", `{"colors":{"bg":"#12345"},"states":{"idle":"a.gif"}}`, "colors.bg"},
		{"colour not hex", `{"colors":{"ink":"#12345g"},"states":{"idle":"a.gif"}}`, "colors.ink"},
		{"colors type", `{"colors":"red","states":{"idle":"a.gif"}}`, "colors is not an object"},
		{"text frames missing", `{"mode":"text","states":{"idle":{"delay":5}}}`, "frames must be"},
		{"text 9 frames", `{"mode":"text","states":{"idle":{"frames":["a","a","a","a","a","a","a","a","a"]}}}`, "frames must be"},
		{"text frame too long", `{"mode":"text","states":{"idle":{"frames":["` + strings.Repeat("é", 20) + `"]}}}`, "frames[0]"},
		{"text bad delay", `{"mode":"text","states":{"idle":{"frames":["a"],"delay":1.5}}}`, "delay"},
		{"text state is a string", `{"mode":"text","states":{"idle":"a.gif"}}`, "not a text state"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseManifest([]byte(tt.json), has)
			if tt.wantErr == "" {
				if err != nil || m == nil {
					t.Fatalf("ParseManifest = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("ParseManifest = %v, want error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestParseManifestValues(t *testing.T) {
	m, err := ParseManifest([]byte(`{"mode":"text","colors":{"body":"#C05630"},
		"states":{"idle":{"frames":["a"]},"heart":{"frames":["<3"],"delay":400}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Text || m.GIFs != nil || m.Colors.Body != "#C05630" {
		t.Fatalf("manifest = %+v", m)
	}
	if d := m.Frames["idle"].Delay; d != DefaultDelay {
		t.Fatalf("default delay = %v", d)
	}
	if d := m.Frames["heart"].Delay; d != 400*time.Millisecond {
		t.Fatalf("heart delay = %v", d)
	}
}

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(`{"name":"bufo","colors":{"body":"#6B8E23"},"states":{"idle":["idle_0.gif","idle_1.gif"],"busy":"busy.gif"}}`))
	f.Add([]byte(`{"mode":"text","states":{"idle":{"frames":["(o_o)"],"delay":200}}}`))
	f.Add([]byte(`{"states":{"idle":[]}}`))
	f.Add([]byte(`null`))
	has := func(n string) bool { return len(n)%2 == 0 }
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest(data, has)
		if (m == nil) == (err == nil) {
			t.Fatalf("manifest %v with error %v", m, err)
		}
		if err != nil {
			return
		}
		// Whatever passes must be safe to hand to the loader.
		refs := 0
		for state, names := range m.GIFs {
			if len(names) == 0 {
				t.Fatalf("state %s has no files", state)
			}
			for _, n := range names {
				if CheckName(n) != nil || !has(n) || len(n) > MaxGIFName {
					t.Fatalf("state %s references %q", state, n)
				}
			}
			refs += len(names)
		}
		if refs > MaxGIFRefs || len(m.GIFs)+len(m.Frames) == 0 {
			t.Fatalf("refs=%d states=%d", refs, len(m.GIFs)+len(m.Frames))
		}
		for state, ts := range m.Frames {
			if len(ts.Frames) == 0 || len(ts.Frames) > MaxTextFrames || ts.Delay <= 0 {
				t.Fatalf("text state %s = %+v", state, ts)
			}
		}
	})
}
