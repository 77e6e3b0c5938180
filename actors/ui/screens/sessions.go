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
		fill, restC := color.Color(panel), color.Color(dim)
		if b.NoPrompts {
			fill, restC = denyC, warnC
		}
		w := r.f.measure(Bold, size, b.Badge) + 8
		clear(dst, image.Rect(hud.Min.X, y+1, hud.Min.X+w, y+lh-1), fill)
		r.f.text(dst, hud.Min.X+4, y, Bold, size, fg, b.Badge)
		x := hud.Min.X + w + 5
		r.f.text(dst, x, y, Regular, size, restC, r.badgeText(b, size, hud.Max.X-x))
		y += lh
	}
	return y
}

// noPromptsText follows the project of a session whose mode sends no
// prompts. The warning must survive a narrow panel: the project is
// shortened first, then the warning ("no prompts"), then the project is
// left out.
const noPromptsText = "prompts won't come"

func (r *Renderer) badgeText(b SessionBadge, size float64, w int) string {
	if !b.NoPrompts {
		return r.f.ellipsize(Regular, size, b.Project, w)
	}
	least := r.f.measure(Regular, size, "engi…")
	for _, says := range []string{noPromptsText, "no prompts"} {
		if room := w - r.f.measure(Regular, size, ": "+says); room >= least {
			return r.f.ellipsize(Regular, size, b.Project, room) + ": " + says
		}
	}
	return r.f.ellipsize(Regular, size, "no prompts", w)
}
