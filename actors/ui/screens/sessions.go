package screens

import (
	"fmt"
	"image"
	"image/color"
)

// SessionBadge is one terminal session whose permission mode is worth a
// line on the home screen: any mode but the default.
type SessionBadge struct {
	Project string // "engine"
	Badge   string // hookbridge.ModeBadge: "plan", "accept edits", "bypass"
	// NoPrompts: the mode asks for nothing (bypassPermissions, dontAsk),
	// so this Pi will never see the session's prompts. Drawn as a warning.
	NoPrompts bool
}

// maxBadgeLines keeps the transcript visible under the badges.
const maxBadgeLines = 3

// sessionLines draws the "Claude is waiting for you" notice and the mode
// badges at the top of the home HUD from y, and returns the y below them.
func (r *Renderer) sessionLines(dst *image.RGBA, hud image.Rectangle, y int, v HomeView) int {
	if v.Notice != "" {
		x := r.f.text(dst, hud.Min.X, y, Bold, 14, accent, r.f.ellipsize(Bold, 14, v.Notice, hud.Dx()))
		// Which session waits, where it fits: the notice itself matters more.
		if who := " · " + v.NoticeWho; v.NoticeWho != "" && x+r.f.measure(Regular, 14, who) <= hud.Max.X {
			r.f.text(dst, x, y, Regular, 14, dim, who)
		}
		y += r.f.lineHeight(Bold, 14)
	}
	const size = 12
	lh := r.f.lineHeight(Bold, size)
	for i, b := range v.Badges {
		if i == maxBadgeLines-1 && len(v.Badges) > maxBadgeLines {
			r.f.text(dst, hud.Min.X, y, Regular, size, dim, fmt.Sprintf("+%d more sessions in other modes", len(v.Badges)-i))
			y += lh
			break
		}
		fill, ink, rest := color.Color(panel), color.Color(fg), b.Project
		if b.NoPrompts {
			fill, ink, rest = denyC, fg, b.Project+": prompts won't come"
		}
		w := r.f.measure(Bold, size, b.Badge) + 8
		clear(dst, image.Rect(hud.Min.X, y+1, hud.Min.X+w, y+lh-1), fill)
		r.f.text(dst, hud.Min.X+4, y, Bold, size, ink, b.Badge)
		restC := color.Color(dim)
		if b.NoPrompts {
			restC = warnC
		}
		x := hud.Min.X + w + 5
		r.f.text(dst, x, y, Regular, size, restC, r.f.ellipsize(Regular, size, rest, hud.Max.X-x))
		y += lh
	}
	return y
}
