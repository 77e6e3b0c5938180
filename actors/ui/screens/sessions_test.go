package screens

import (
	"strings"
	"testing"
)

// The warning of a session whose prompts will not come survives a narrow
// HUD: the project gives way first.
func TestBadgeTextKeepsTheWarning(t *testing.T) {
	r, err := NewRenderer(240, 240)
	if err != nil {
		t.Fatal(err)
	}
	b := SessionBadge{Project: "scratch", Badge: "bypass", NoPrompts: true}
	for _, tt := range []struct {
		w    int
		want string
	}{
		{400, "scratch: prompts won't come"},
		{r.f.measure(Regular, 12, "scratch: no prompts"), "scratch: no prompts"},
		{r.f.measure(Regular, 12, "no prompts"), "no prompts"},
	} {
		if got := r.badgeText(b, 12, tt.w); got != tt.want {
			t.Errorf("width %d: %q, want %q", tt.w, got, tt.want)
		}
	}
	if got := r.badgeText(SessionBadge{Project: strings.Repeat("long-project-", 8), Badge: "plan"}, 12, 100); r.f.measure(Regular, 12, got) > 100 {
		t.Errorf("%q overflows 100 px", got)
	}
}
