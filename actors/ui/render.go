package ui

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"strings"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
	"github.com/claude-pi/claude-pi/actors/buddy/stats"
	"github.com/claude-pi/claude-pi/actors/lan"
	"github.com/claude-pi/claude-pi/actors/ui/screens"
	"github.com/claude-pi/claude-pi/drivers/storage/statefile"
	"github.com/claude-pi/claude-pi/supervisor"
)

// facts are what the info pages show that no service publishes.
type facts struct {
	board, version, device string
	started                time.Time
	addrs                  []string
	services               []supervisor.ProcessInfo
	updates                *updatesRead // the System page's last reading; nil before one
	setAside               []statefile.Damage
}

// legend is the button labels for each role on this board.
type legend struct{ approve, deny, next, back string }

func legendOf(roles map[string]Role) legend {
	var l legend
	for name, r := range roles {
		switch r {
		case RoleApprove:
			l.approve = name
		case RoleDeny:
			l.deny = name
		case RoleNext:
			l.next = name
		case RoleBack:
			l.back = name
		}
	}
	if l.next == "" {
		l.next = l.approve
	}
	if l.back == "" {
		l.back = l.deny
	}
	return l
}

// painter renders the state into frames. It tracks when the persona
// began, so the animation restarts at each change of state.
type painter struct {
	r            *screens.Renderer
	char         screens.Character
	lg           legend
	persona      screens.Persona
	personaSince time.Time
	// approval is what the approval screen drew last, for View.
	approval screens.ApprovalDrawn
	// down is the home screen's last "approvals down since 20:31" line.
	down string
	// dimmable: the display has a backlight the brightness setting sets.
	dimmable bool
}

// paint draws sc into dst and returns how long until the picture changes
// by itself (the next animation frame, the prompt's age), 0 for never.
func (p *painter) paint(dst *image.RGBA, s *state, sc Screen, f facts, now time.Time) time.Duration {
	switch sc {
	case ScreenOff:
		draw.Draw(dst, dst.Bounds(), image.NewUniform(color.Black), image.Point{}, draw.Src)
		return 0
	case ScreenPasskey:
		v := screens.PasskeyView{Code: s.link.Passkey, Device: s.link.Central}
		p.r.Passkey(dst, v)
		return 0
	case ScreenPairing:
		pr := s.pairing()
		p.r.Pairing(dst, screens.PairingView{Name: pr.Name, Code: pr.Code, Accepted: pr.Accepted || s.pairAccepted == pr.Code,
			Approve: p.lg.approve, Deny: p.lg.deny})
		return 0
	case ScreenDock:
		nd := s.newDock()
		p.r.NewDock(dst, screens.NewDockView{Serial: nd.Shown, Looks: nd.Looks, Was: nd.Was, DisplayOnly: s.dock.DisplayOnly,
			Approve: p.lg.approve, Deny: p.lg.deny})
		return 0
	case ScreenForget:
		p.r.Forget(dst, forgetView(s, p.lg, f.device))
		return 0
	case ScreenApproval:
		v := s.prompts[s.shown()]
		age := time.Duration(0)
		if !v.Arrived.IsZero() {
			age = max(0, now.Sub(v.Arrived))
		}
		src, sub := sourceOf(v.Prompt)
		av := screens.ApprovalView{Tool: v.Tool, Hint: v.Hint, Detail: v.Detail, Warnings: v.Warnings, Age: age, Source: src, Subagent: sub,
			Index: s.shown() + 1, Of: len(s.prompts), Page: s.approvalPage, Approve: p.lg.approve, Deny: p.lg.deny}
		if s.pageKeys {
			av.Next, av.Back = p.lg.next, p.lg.back
		}
		if d, ok := s.sending[keyOf(v.Prompt)]; ok {
			av.Sent = d.String()
		} else if v.Decided {
			av.Sent = v.Decision.String()
		}
		av.Reconnecting = v.Reconnecting
		if qs := questionsOf(v.Prompt); qs != nil {
			av.Tool, av.Hint, av.Detail, av.ApproveVerb = questionCard(qs, s.flowFor(v.Prompt))
			av.DenyVerb = "next"
			if av.Sent != "" {
				av.Sent = "answer"
			}
		} else if isDesktopQuestion(v.Prompt) {
			av.Tool, av.Hint, av.Instead = "Question", "Claude is asking you something", DesktopQuestion
		}
		p.approval = p.r.Approval(dst, av)
		return time.Second - age%time.Second // the age counts seconds
	case ScreenPack:
		pr := s.buddy.Push
		p.r.Pack(dst, screens.PackView{Name: pr.Name, File: pr.File, Done: pr.Received, Total: pr.Total})
		return 0
	case ScreenInfo:
		p.r.Info(dst, infoPage(s, f, now, p.lg))
		switch s.page {
		case 1:
			return time.Second - now.Sub(f.started)%time.Second // uptime
		case s.systemPage():
			return time.Minute // the ages; and a stale reading is read again
		}
		return 0
	case ScreenStats:
		v := s.statsView(now, p.lg)
		p.r.Stats(dst, v)
		if e := s.buddy; e != nil && v.Energy > 0 {
			// The energy drops a cell every EnergyDecay since the last nap.
			return stats.EnergyDecay - max(now.Sub(e.Stats.Energy.Since), 0)%stats.EnergyDecay
		}
		return 0
	case ScreenClock:
		v := s.clockView(now, p.lg)
		p.r.Clock(dst, v)
		if v.Time.IsZero() {
			return 0 // the time line's arrival redraws
		}
		return time.Minute - time.Duration(v.Time.Second())*time.Second - time.Duration(v.Time.Nanosecond())
	case ScreenSettings:
		p.r.Settings(dst, s.settingsView(p.lg, p.dimmable))
		return 0
	}
	pe := screens.Persona(s.persona(now).String())
	if pe != p.persona || p.personaSince.IsZero() {
		p.persona, p.personaSince = pe, now
	}
	v := homeView(s, pe, now.Sub(p.personaSince))
	if t := s.desktopNow(now); !t.IsZero() {
		v.TimeText = t.Format("15:04")
	}
	// A service down takes a feature away: it outranks a link warning.
	if p.down = downLine(f.services, s.shownClock); p.down != "" {
		v.Warning = p.down
	}
	p.r.Home(dst, v)
	return p.char.Interval(pe)
}

func homeView(s *state, pe screens.Persona, anim time.Duration) screens.HomeView {
	v := screens.HomeView{Persona: pe, Anim: anim}
	if l := s.link; l != nil {
		v.Links.BLE = l.Connected && l.Subscribed
		v.Links.Encrypted = l.Secured
		if l.Connected && !l.Secured {
			v.Warning = "link not encrypted"
			if l.Security == "open" {
				v.Warning = "open link: not encrypted"
			}
		}
		if l.AdvertiseErr != "" && !l.Connected {
			v.Warning = l.AdvertiseErr
		}
	}
	if d := s.dock; d != nil {
		v.Links.Dock = d.Connected
	}
	if b := s.buddy; b != nil {
		v.Links.Desktop = b.Connected
		v.Owner = b.Owner
		if h := b.Snapshot; h != nil {
			v.Total, v.Running, v.Waiting = int(h.Total), int(h.Running), int(h.Waiting)
			v.Entries, v.Msg = h.Entries, h.Msg
		}
	}
	if l := s.lan; l != nil {
		// Terminal sessions count with the desktop's.
		for _, se := range l.Sessions {
			v.Total++
			switch se.State {
			case "running":
				v.Running++
			case "waiting":
				v.Waiting++
			}
		}
		if len(v.Entries) == 0 && len(l.Sessions) > 0 {
			se := l.Sessions[0] // the most recent
			v.Msg = strings.TrimSpace(se.CLIName() + " " + se.Project + ": " + se.State + " " + se.Activity)
		}
		v.Notice, v.NoticeWho, v.Badges = sessionLines(l.Sessions)
	}
	if v.Msg == "" && len(v.Entries) == 0 && (s.buddy == nil || !s.buddy.Connected) {
		v.Msg = "waiting for the Claude desktop"
	}
	return v
}

// sourceOf is the source line of the approval screen and the subagent
// tag: the prompt's Label, split at its " · subagent" part, or a label
// made from Source for producers that set none.
func sourceOf(p approvals.Prompt) (src, sub string) {
	l := p.Label
	if l == "" {
		switch {
		case p.Source == "desktop":
			l = "desktop"
		case strings.HasPrefix(p.Source, "cli:"):
			id := strings.TrimPrefix(p.Source, "cli:")
			if len(id) > 8 {
				id = id[:8]
			}
			l = "CLI · " + id
		default:
			l = p.Source
		}
	}
	if i := strings.Index(l, " · subagent"); i >= 0 {
		return l[:i], l[i+len(" · "):]
	}
	return l, ""
}

// infoPage is page 1 (links and the device), the paired computers
// (computersPage) or the System page (systemPage); page 2, the stats, is
// the stats page (pages.go).
func infoPage(s *state, f facts, now time.Time, lg legend) screens.InfoView {
	v := screens.InfoView{Page: s.page, Of: s.pages(), Next: lg.next, Back: lg.back}
	row := func(label, value string, warn bool) {
		v.Rows = append(v.Rows, screens.InfoRow{Label: label, Value: value, Warn: warn})
	}
	switch s.page {
	case s.computersPage():
		v.Title = "Computers"
		computersPage(s.lan, row)
		return v
	case s.systemPage():
		v.Title = "System"
		systemRows(f.updates, now, row)
		// Here, not on Links: that page has no row to spare.
		if sa := setAsideRow(f.setAside, now); sa != "" {
			row("Set aside", sa, true)
		}
		return v
	}
	v.Title = "Links"
	switch l := s.link; {
	case l == nil:
		row("BLE", "starting", true)
	case l.Connected:
		row("BLE", "connected "+l.Central, false)
	case l.Advertising:
		row("BLE", "advertising", false)
	default:
		row("BLE", "off "+l.AdvertiseErr, true)
	}
	// What is configured and what the link has now are two facts: a
	// bonded appliance with no central is not "unencrypted".
	if l := s.link; l != nil {
		mode := l.Security
		if mode == "open" {
			mode = "open (no pairing)"
		}
		row("Security", mode, l.Security == "open")
		if l.Connected {
			link := "encrypted"
			if !l.Secured {
				link = "not encrypted"
			}
			row("Link", link, !l.Secured)
		}
	}
	// The way into ScreenForget, said where the link's state is.
	row("Pairing", "hold "+lg.approve+" to forget", false)
	switch d := s.dock; {
	case d == nil:
		row("Dock", "no CoreS3", false)
	case d.Ready:
		row("Dock", "CoreS3 ready "+d.Path, false)
	case d.Connected:
		row("Dock", "CoreS3 "+d.Description, true)
	default:
		row("Dock", "no CoreS3", false)
	}
	ip := strings.Join(f.addrs, " ")
	if ip == "" {
		ip = "no network"
	}
	row("IP", ip, ip == "no network")
	row("Uptime", uptime(now.Sub(f.started)), false)
	row("Version", f.version+" · "+f.board, false)
	return v
}

// computersPage lists the LAN API and the paired computers, with each
// one's CLI sessions.
func computersPage(l *lan.State, row func(label, value string, warn bool)) {
	switch {
	case l == nil:
		row("LAN", "not answering", true)
		return
	case l.Addr == "":
		row("LAN", "off ([lan] listen)", false)
	default:
		row("LAN", l.Addr, false)
	}
	if len(l.Clients) == 0 {
		row("Paired", "none: claude-pi pair", false)
		return
	}
	for _, c := range l.Clients {
		n, waiting := 0, 0
		for _, se := range l.Sessions {
			if se.Client == c.Name {
				n++
				waiting += se.Pending
			}
		}
		val := fmt.Sprintf("%d session", n)
		if n != 1 {
			val += "s"
		}
		if waiting > 0 {
			val += fmt.Sprintf(", %d waiting", waiting)
		}
		if !c.Paired.IsZero() {
			val += " · since " + c.Paired.Format("Jan 2")
		}
		row(c.Name, val, false)
	}
}

// uptime is "3d 4h 12m" or "4m 09s".
func uptime(d time.Duration) string {
	d = max(d, 0)
	days, h, m, sec := int(d/(24*time.Hour)), int(d/time.Hour)%24, int(d/time.Minute)%60, int(d/time.Second)%60
	switch {
	case days > 0:
		return fmt.Sprintf("%dd %dh %02dm", days, h, m)
	case h > 0:
		return fmt.Sprintf("%dh %02dm %02ds", h, m, sec)
	}
	return fmt.Sprintf("%dm %02ds", m, sec)
}
