package sim

import (
	"image"
	"strings"
	"testing"
	"time"
)

func TestPromptPanelLines(t *testing.T) {
	tests := []struct {
		p    PromptPanel
		cols int
		want []string
	}{
		{PromptPanel{Hint: "npm test"}, 20, []string{"npm test", "", "A approve · B deny"}},
		{PromptPanel{Hint: "go test -race ./internal/auth/...", Sent: true, More: 2}, 16,
			[]string{"go test -race", "./internal/auth/", "...", "", "sent...", "+2 more waiting"}},
		{PromptPanel{Hint: strings.Repeat("x", 100)}, 10,
			[]string{"xxxxxxxxxx", "xxxxxxxxxx", "xxxxxxxxxx", "xxxxxxxxxx", "", "A approve · B deny"}},
	}
	for _, tt := range tests {
		got := tt.p.Lines(tt.cols)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("Lines(%d) of %+v = %q, want %q", tt.cols, tt.p, got, tt.want)
		}
	}
}

func TestKeyChangesWithWhatIsDrawn(t *testing.T) {
	base := StatusScreen{Board: "sim", Now: time.Unix(100, 0)}
	with := base
	with.Prompt = &PromptPanel{Tool: "Bash", Age: 1500 * time.Millisecond}
	later := base
	later.Prompt = &PromptPanel{Tool: "Bash", Age: 1900 * time.Millisecond}
	sent := base
	sent.Prompt = &PromptPanel{Tool: "Bash", Age: 1900 * time.Millisecond, Sent: true}
	if base.Key() == with.Key() {
		t.Error("a prompt does not change the key")
	}
	if with.Key() != later.Key() {
		t.Error("the key changes within the same second of age")
	}
	if later.Key() == sent.Key() {
		t.Error("sent... does not change the key")
	}
	// Rendering a prompt draws something the plain screen does not.
	a, b := image.NewRGBA(image.Rect(0, 0, 240, 240)), image.NewRGBA(image.Rect(0, 0, 240, 240))
	base.Render(a)
	with.Render(b)
	if string(a.Pix) == string(b.Pix) {
		t.Error("the prompt panel drew nothing")
	}
}
