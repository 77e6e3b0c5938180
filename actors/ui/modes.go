package ui

import (
	"github.com/claude-pi/claude-pi/actors/lan"
	"github.com/claude-pi/claude-pi/actors/ui/screens"
	"github.com/claude-pi/claude-pi/protocols/hookbridge"
)

// WaitingNotice is the home screen's line while a terminal session waits
// for its user (a Notification hook said so); the dock says it too.
const WaitingNotice = lan.WaitingText

// sessionLines is what the home screen shows of the terminal sessions
// beyond their counts: the waiting notice with the project of the session
// that has waited longest, and a badge per session not in the default
// mode. Sessions whose mode sends no prompts come first: their warning
// is the one that must not scroll away.
func sessionLines(sessions []lan.Session) (notice, who string, badges []screens.SessionBadge) {
	var oldest lan.Session
	for _, se := range sessions {
		if !se.WaitingSince.IsZero() && (oldest.WaitingSince.IsZero() || se.WaitingSince.Before(oldest.WaitingSince)) {
			oldest = se
		}
	}
	if !oldest.WaitingSince.IsZero() {
		notice, who = WaitingNotice, oldest.Project
	}
	var rest []screens.SessionBadge
	for _, se := range sessions {
		b := hookbridge.ModeBadge(se.Mode)
		if b == "" {
			continue
		}
		sb := screens.SessionBadge{Project: se.Project, Badge: b, NoPrompts: hookbridge.ModeSkipsPrompts(se.Mode)}
		if sb.NoPrompts {
			badges = append(badges, sb)
		} else {
			rest = append(rest, sb)
		}
	}
	return notice, who, append(badges, rest...)
}
