package ui

import (
	"fmt"
	"image"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
	bleactor "github.com/claude-pi/claude-pi/actors/ble"
	buddyactor "github.com/claude-pi/claude-pi/actors/buddy"
	"github.com/claude-pi/claude-pi/actors/buddy/stats"
	"github.com/claude-pi/claude-pi/actors/dock"
	"github.com/claude-pi/claude-pi/actors/lan"
	"github.com/claude-pi/claude-pi/actors/ui/screens"
	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
)

// SampleScreens lists the screens Sample renders.
var SampleScreens = []Screen{ScreenHome, ScreenApproval, ScreenPasskey, ScreenPairing, ScreenDock, ScreenInfo, ScreenPack, ScreenForget,
	ScreenStats, ScreenClock, ScreenSettings}

// Sample renders screen sc at w×h with made-up but realistic data, through
// the same code the actor uses, for `claude-pi screenshot` and the docs.
func Sample(sc Screen, w, h int) (*image.RGBA, error) {
	r, err := screens.NewRenderer(w, h)
	if err != nil {
		return nil, err
	}
	now := time.Date(2026, 5, 1, 10, 42, 0, 0, time.UTC)
	s := newState(now.Add(-time.Minute), 30*time.Second, true)
	link := bleactor.LinkState{Advertising: false, Connected: true, Central: "MacBook Pro", Subscribed: true,
		Secured: true, MTU: 185, CanPair: true, Security: "bonded"}
	s.apply(link, now)
	s.apply(dock.State{Connected: true, Ready: true, Event: true, Path: "/dev/ttyACM0"}, now)
	// The desktop's clock reads 10:42 in its zone, two hours east of UTC.
	desk := &buddyactor.DesktopClock{Epoch: now.Add(-2 * time.Hour).Unix(), Offset: 2 * 3600, Received: now}
	s.apply(buddyactor.State{Connected: true, Owner: "Ada", Name: pbuddy.DeviceName, Desktop: desk,
		Snapshot: &pbuddy.Heartbeat{Total: 3, Running: 2, Msg: "working", TokensToday: 31_200,
			Present: pbuddy.FieldTotal | pbuddy.FieldRunning | pbuddy.FieldMsg | pbuddy.FieldEntries | pbuddy.FieldTokensToday,
			Entries: []string{"10:41 yarn test", "10:41 All 212 tests passed", "10:42 git push origin feature/approval-ui"}},
		Stats: buddyactor.StatsView{Report: stats.Report{Appr: 128, Deny: 9, Vel: 6, Lvl: 14, Nap: 3*3600 + 12*60}, Tokens: 712_345, Fed: 4,
			Mood: 4, Energy: stats.Energy{Level: 5, Since: now.Add(-3 * time.Hour)}}}, now)
	s.wokeAt = time.Time{}
	switch sc {
	case ScreenHome:
	case ScreenApproval:
		for _, p := range []approvals.Prompt{
			{Source: "desktop", ID: "a", Tool: "Bash", Arrived: now.Add(-4 * time.Second),
				Hint: "find . -name '*.go' -newer go.mod -exec gofmt -l {} + | xargs -r git add && git commit -m 'fmt'"},
			{Source: "cli:9f3c2a10-6f1e", ID: "b", Tool: "Edit", Arrived: now.Add(-time.Second), Hint: "README.md",
				Label: "CLI engine · 9f3c2a10 · subagent Explore"},
		} {
			s.apply(approvals.PromptAppeared{Prompt: p}, now)
		}
	case ScreenPasskey:
		l := link
		l.Passkey, l.Secured = "042917", false
		s.apply(l, now)
	case ScreenPairing:
		s.lanOn = true
		s.apply(lan.State{Pairing: &lan.Pairing{Name: "ada-laptop", Code: "318054", Since: now.Add(-5 * time.Second)}}, now)
	case ScreenDock:
		s.apply(dock.State{Path: "/dev/ttyACM0", Serial: "3C:84:CE:00:12:AB",
			NewDock: dock.NewDock{Asking: true, Serial: "3C:84:CE:00:12:AB", Shown: "3C:84:CE:00:12:AB"}}, now)
	case ScreenInfo:
		s.page = 1
	case ScreenForget:
		s.page, s.forget = linksPage, forgetFlow{step: forgetAsking}
	case ScreenStats:
		s.page = statsPage
	case ScreenClock:
		s.page = s.clockPage()
	case ScreenSettings:
		s.settings = settingsFlow{open: true, cursor: rowBrightness}
	case ScreenPack:
		b := *s.buddy
		b.Push = &buddyactor.Progress{Active: true, Name: "bufo", File: "idle_1.gif", Received: 241_000, Total: 569_286}
		s.apply(b, now)
	default:
		return nil, fmt.Errorf("ui: no sample of screen %q (have %v)", sc, SampleScreens)
	}
	// dimmable: the HATs' ST7789 dims; the sim's framebuffer does not.
	p := &painter{r: r, char: &screens.BuiltIn{}, lg: legendOf(DefaultRoles), dimmable: true}
	r.Character = p.char
	p.personaSince = now.Add(-3 * time.Second)
	p.persona = screens.Persona(s.persona(now).String())
	img := r.NewFrame()
	p.paint(img, s, s.screen(), facts{board: "sim", version: "v0.3.0", started: now.Add(-76*time.Hour - 12*time.Minute),
		addrs: []string{"192.168.1.23"}}, now)
	return img, nil
}
