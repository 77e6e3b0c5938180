package screens

import (
	"fmt"
	"image"
	"image/color"
	"slices"
	"strings"
	"time"
)

// ApprovalView is a pending permission prompt.
type ApprovalView struct {
	Tool string
	Hint string
	// Detail is the rest of what the decision applies to (a whole
	// command, an edit's old and new text), paged after the hint.
	Detail string
	// Warnings are flags of the call that widen what it may do ("runs
	// outside the sandbox"), one per line, drawn on every page like the
	// hidden-character warning.
	Warnings string
	Age      time.Duration // since the prompt arrived
	// Source names where the prompt comes from ("desktop", "CLI engine ·
	// 9f3c2a10"); Subagent is "" or what marks a subagent's prompt
	// ("subagent Explore"), drawn apart so it survives a long source.
	Source, Subagent string
	// Index is the shown prompt's place in the queue (1-based) and Of the
	// number of prompts pending; "1 of 3" shows when Of > 1.
	Index, Of int
	// Page is the page asked for, counted from 0; any integer works, it
	// is taken modulo the number of pages (so next after the last is
	// the first, back before the first is the last).
	Page    int
	Approve string // button label for approve, e.g. "A"
	Deny    string // button label for deny, e.g. "B"
	Next    string // button label for the next page, e.g. "X"
	Back    string // button label for the previous page, e.g. "Y"
	// Sent is "" until a button was pressed, then "once" or "deny": the
	// screen says "sent…" until the prompt disappears.
	Sent string
	// Reconnecting: the prompt's link dropped and it cannot be answered
	// until its source confirms it; the screen says "reconnecting…" in
	// place of the buttons (and of "sent…").
	Reconnecting bool
	// ApproveVerb and DenyVerb name what the buttons do ("approve" and
	// "deny" when empty): a question's card chooses and steps.
	ApproveVerb, DenyVerb string
	// Instead, when set, is drawn in place of the buttons: a prompt the
	// Pi cannot answer (a desktop question) says where to answer it.
	Instead string
}

// Layout constants the tests rely on.
const (
	approvalSourceTop  = 29 // top of the source line, under the header
	approvalSourceSize = 13
	approvalToolTop    = 47 // top of the tool name on the first page
	approvalToolSize   = 30 // its point size
	approvalHintSize   = 15
	approvalWarnSize   = 13
	approvalLegendH    = 36
	approvalFooterH    = 17 // the "n/m" line above the legend
)

// HiddenWarning is the line every page of a prompt with hidden
// characters shows.
const HiddenWarning = "contains hidden characters"

// approvalPage is one laid-out approval: its pages of body lines.
type approvalPage struct {
	lines  [][]cell
	first  bool // the first page, with the tool drawn large
	hidden bool
	warn   []string // the warning lines every page draws above the tool
}

// approvalLayout splits the prompt into pages. The body is the hint,
// then the detail, then whatever a label had to elide (the full tool
// name and source), so every character the decision applies to is on
// some page.
func (r *Renderer) approvalLayout(v ApprovalView) []approvalPage {
	v.Page, v.Age, v.Sent, v.Reconnecting = 0, 0, "", false // what the pages do not depend on
	v.ApproveVerb, v.DenyVerb, v.Instead = "", "", ""
	if r.laidOut != nil && r.laidOutFor == v {
		return r.laidOut // paging and the age tick redraw the same prompt
	}
	r.laidOut, r.laidOutFor = r.layoutApproval(v), v
	return r.laidOut
}

func (r *Renderer) layoutApproval(v ApprovalView) []approvalPage {
	tool := toolName(v.Tool)
	body := v.Hint
	if v.Detail != "" {
		body += "\n" + v.Detail
	}
	if r.f.ellipsize(Bold, approvalToolSize, tool, r.w-16) != tool {
		body += "\ntool: " + tool
	}
	if r.sourceElided(v.Source, v.Subagent) {
		body += "\nfrom: " + strings.Join(slices.DeleteFunc([]string{v.Source, v.Subagent}, func(s string) bool { return s == "" }), " · ")
	}
	cs, hidden := r.f.cells(Mono, approvalHintSize, body, false)
	var flags []string
	for w := range strings.SplitSeq(v.Warnings, "\n") {
		if w = strings.TrimSpace(w); w != "" {
			flags = append(flags, "! "+w)
		}
	}
	for _, s := range append([]string{v.Tool, v.Source, v.Subagent}, flags...) {
		if _, h := r.f.cells(Regular, approvalSourceSize, s, true); h {
			hidden = true
		}
	}
	if hidden {
		flags = append([]string{"! " + HiddenWarning}, flags...)
	}
	lines := layout(cs, r.w-20)
	lh := r.f.lineHeight(Mono, approvalHintSize)
	warn := len(flags) * r.f.lineHeight(Bold, approvalWarnSize)
	bottom := r.h - approvalLegendH - approvalFooterH - 3
	firstN := max(1, (bottom-(approvalToolTop+warn+40))/lh)
	restN := max(1, (bottom-(approvalToolTop+warn+4))/lh)
	pages := []approvalPage{{first: true, hidden: hidden, warn: flags}}
	for i, n := 0, firstN; i < len(lines); n = restN {
		if i > 0 {
			pages = append(pages, approvalPage{hidden: hidden, warn: flags})
		}
		end := min(i+n, len(lines))
		pages[len(pages)-1].lines = lines[i:end]
		i = end
	}
	return pages
}

func toolName(t string) string {
	if t == "" {
		return "(tool)"
	}
	return t
}

// ApprovalPages is the number of pages Approval draws v on.
func (r *Renderer) ApprovalPages(v ApprovalView) int { return len(r.approvalLayout(v)) }

// ApprovalDrawn is what Approval drew: the page (0-based) of how many,
// whether the warning line for hidden characters is up, and how many
// warning lines (hidden characters and flags) it drew.
type ApprovalDrawn struct {
	Page, Pages int
	Hidden      bool
	Warnings    int
}

// Approval draws a pending prompt into dst: page v.Page of its pages.
func (r *Renderer) Approval(dst *image.RGBA, v ApprovalView) ApprovalDrawn {
	clear(dst, dst.Bounds(), bg)
	ps := r.approvalLayout(v)
	pages := len(ps)
	page := ((v.Page % pages) + pages) % pages
	p := ps[page]
	drawn := ApprovalDrawn{Page: page, Pages: pages, Hidden: p.hidden, Warnings: len(p.warn)}

	// "waiting", not "approve?": the seconds count up, nothing expires.
	head := fmt.Sprintf("waiting %ds", int(v.Age/time.Second))
	hc := accent
	if v.Age >= 10*time.Second {
		hc = denyC
	}
	clear(dst, image.Rect(0, 0, r.w, 26), panel)
	r.f.text(dst, 8, 4, Bold, 15, hc, head)
	if v.Of > 1 {
		q := fmt.Sprintf("%d of %d", v.Index, v.Of)
		r.f.text(dst, r.w-8-r.f.measure(Bold, 14, q), 4, Bold, 14, fg, q)
	}
	r.source(dst, v.Source, v.Subagent)
	y := approvalToolTop
	for _, w := range p.warn {
		r.f.text(dst, 8, y-2, Bold, approvalWarnSize, warnC, r.f.ellipsize(Bold, approvalWarnSize, w, r.w-16))
		y += r.f.lineHeight(Bold, approvalWarnSize)
	}
	tool := toolName(v.Tool)
	if p.first {
		r.f.text(dst, 8, y, Bold, approvalToolSize, fg, r.f.ellipsize(Bold, approvalToolSize, tool, r.w-16))
		y += 40
	} else {
		y += 4
	}
	lh := r.f.lineHeight(Mono, approvalHintSize)
	if len(p.lines) > 0 {
		clear(dst, image.Rect(6, y-3, r.w-6, y+len(p.lines)*lh+3), panel)
	}
	for i, l := range p.lines {
		r.f.drawCellsTinted(dst, 10, y+i*lh, Mono, approvalHintSize, fg, nonASCIIC, l)
	}

	if pages > 1 {
		foot := fmt.Sprintf("%d/%d", page+1, pages)
		fy := r.h - approvalLegendH - approvalFooterH
		r.f.text(dst, r.w-8-r.f.measure(Bold, 13, foot), fy, Bold, 13, fg, foot)
		if !p.first {
			r.f.text(dst, 8, fy, Regular, 12, dim, r.f.ellipsize(Regular, 12, tool, r.w/2))
		} else if v.Next != "" || v.Back != "" {
			r.f.text(dst, 8, fy, Regular, 12, dim, strings.TrimSpace(v.Next+" more  "+v.Back+" back"))
		}
	}
	legend := image.Rect(0, r.h-approvalLegendH, r.w, r.h)
	if v.Reconnecting || v.Sent != "" || v.Instead != "" {
		clear(dst, legend, panel)
		s := "sent… " + v.Sent
		switch {
		case v.Reconnecting:
			s = "reconnecting…"
		case v.Instead != "" && v.Sent == "":
			s = r.f.ellipsize(Bold, 16, v.Instead, r.w-8)
			r.f.text(dst, (r.w-r.f.measure(Bold, 16, s))/2, legend.Min.Y+9, Bold, 16, fg, s)
			return drawn
		}
		r.f.text(dst, (r.w-r.f.measure(Bold, 18, s))/2, legend.Min.Y+8, Bold, 18, dim, s)
		return drawn
	}
	r.legendVerbs(dst, v.Approve, v.Deny, v.ApproveVerb, v.DenyVerb)
	return drawn
}

// sourceElided reports whether the source line cannot show src and sub
// whole.
func (r *Renderer) sourceElided(src, sub string) bool {
	s, b := r.sourceFit(src, sub)
	return s != src || b != sub
}

// sourceFit is what the source line shows of src and sub: a narrow
// panel shortens "subagent" to "sub", then the middle of either goes.
func (r *Renderer) sourceFit(src, sub string) (string, string) {
	const sz = approvalSourceSize
	right := r.w - 8
	if sub != "" {
		if r.f.measure(Regular, sz, src)+r.f.measure(Bold, sz, sub) > right-16-8 {
			sub = strings.Replace(sub, "subagent", "sub", 1)
		}
		sub = r.f.ellipsize(Bold, sz, sub, max(right-16-8-r.f.measure(Regular, sz, src), r.w/3))
		right -= r.f.measure(Bold, sz, sub) + 8
	}
	return r.f.ellipsize(Regular, sz, src, right-16), sub
}

// source draws the line under the header that says where the prompt comes
// from: a coloured mark (blue for the desktop, orange for a terminal),
// the source, and the subagent tag on the right in the warning colour.
func (r *Renderer) source(dst *image.RGBA, src, sub string) {
	if src == "" && sub == "" {
		return
	}
	y := approvalSourceTop
	mark := desktopC
	if src != "desktop" {
		mark = accent
	}
	clear(dst, image.Rect(8, y+3, 12, y+13), mark)
	shownSrc, shownSub := r.sourceFit(src, sub)
	if shownSub != "" {
		x := r.w - 8 - r.f.measure(Bold, approvalSourceSize, shownSub)
		r.f.text(dst, x, y, Bold, approvalSourceSize, warnC, shownSub)
	}
	r.f.text(dst, 16, y, Regular, approvalSourceSize, dim, shownSrc)
}

// legend draws the approve and deny buttons along the bottom edge,
// labelled with the buttons' names (A and B when empty).
func (r *Renderer) legend(dst *image.RGBA, approve, deny string) {
	r.legendVerbs(dst, approve, deny, "", "")
}

// legendVerbs is legend with what each button does ("approve" and
// "deny" when empty).
func (r *Renderer) legendVerbs(dst *image.RGBA, approve, deny, approveVerb, denyVerb string) {
	if approveVerb == "" {
		approveVerb = "approve"
	}
	if denyVerb == "" {
		denyVerb = "deny"
	}
	if approve == "" {
		approve = "A"
	}
	if deny == "" {
		deny = "B"
	}
	half := r.w / 2
	top := r.h - 36
	r.button(dst, image.Rect(4, top, half-2, r.h-4), approve+"  "+approveVerb, approveC)
	r.button(dst, image.Rect(half+2, top, r.w-4, r.h-4), deny+"  "+denyVerb, denyC)
}

// button draws a filled legend with centred dark text.
func (r *Renderer) button(dst *image.RGBA, box image.Rectangle, label string, c color.Color) {
	clear(dst, box, c)
	label = r.f.ellipsize(Bold, 16, label, box.Dx()-8)
	x := box.Min.X + (box.Dx()-r.f.measure(Bold, 16, label))/2
	r.f.text(dst, x, box.Min.Y+(box.Dy()-r.f.lineHeight(Bold, 16))/2, Bold, 16, ink, label)
}

// PasskeyView is the pairing code the desktop asks for.
type PasskeyView struct {
	Code   string // six digits
	Device string // the central's name, or ""
}

// Passkey draws the pairing screen.
func (r *Renderer) Passkey(dst *image.RGBA, v PasskeyView) {
	clear(dst, dst.Bounds(), bg)
	r.centre(dst, 24, Bold, 18, accent, "Bluetooth pairing")
	size := 52.0
	for size > 20 && r.f.measure(Bold, size, v.Code) > r.w-16 {
		size -= 4
	}
	y := (r.h - r.f.lineHeight(Bold, size)) / 2
	r.centre(dst, y, Bold, size, fg, v.Code)
	r.centre(dst, r.h-60, Regular, 14, dim, "Enter this code")
	dev := "on your computer"
	if v.Device != "" {
		dev = "on " + v.Device
	}
	r.centre(dst, r.h-40, Regular, 14, dim, r.f.ellipsize(Regular, 14, dev, r.w-16))
}

// PairingView is a computer asking to pair over the LAN: the Pi shows
// the code, the computer prints the same, and a long press of approve
// accepts. The screen says "pair a new computer?" in so many words, so
// nobody mistakes it for a prompt.
type PairingView struct {
	Name string // the computer's name
	Code string // six digits
	// Accepted: approve was held; the computer's user confirms next
	// (within a minute), so the screen says "confirm on <name>" and the
	// legend keeps only deny, which cancels.
	Accepted      bool
	Approve, Deny string // button labels, e.g. "A" and "B"
}

// Pairing draws the LAN pairing screen.
func (r *Renderer) Pairing(dst *image.RGBA, v PairingView) {
	clear(dst, dst.Bounds(), bg)
	name := v.Name
	if name == "" {
		name = "a computer"
	}
	r.centre(dst, 8, Bold, 18, accent, "Pair a new computer?")
	r.centre(dst, 32, Regular, 14, fg, r.f.ellipsize(Regular, 14, name, r.w-16))
	size := 52.0
	for size > 20 && r.f.measure(Bold, size, v.Code) > r.w-16 {
		size -= 4
	}
	y := (r.h-r.f.lineHeight(Bold, size))/2 - 8
	r.centre(dst, y, Bold, size, fg, v.Code)
	ask := "Same code on the computer?"
	if v.Accepted {
		ask = "Now confirm on " + name
	}
	r.centre(dst, r.h-68, Regular, 14, dim, r.f.ellipsize(Regular, 14, ask, r.w-16))
	if v.Accepted {
		// Waiting for y on the computer (at most a minute): deny still
		// cancels, and the screen says so.
		deny := v.Deny
		if deny == "" {
			deny = "B"
		}
		half, top := r.w/2, r.h-36
		legend := image.Rect(0, top, half, r.h)
		clear(dst, legend, panel)
		s := r.f.ellipsize(Bold, 16, "waiting…", half-8)
		r.f.text(dst, (half-r.f.measure(Bold, 16, s))/2, legend.Min.Y+9, Bold, 16, dim, s)
		r.button(dst, image.Rect(half+2, top, r.w-4, r.h-4), deny+"  cancel", denyC)
		return
	}
	r.holdLegend(dst, v.Approve, v.Deny, "pair")
}

// holdLegend draws the "hold A <verb>" / "B  refuse" buttons of a screen
// a long press accepts (LAN pairing, a new dock); "" labels are A and B.
func (r *Renderer) holdLegend(dst *image.RGBA, approve, deny, verb string) {
	if approve == "" {
		approve = "A"
	}
	if deny == "" {
		deny = "B"
	}
	half := r.w / 2
	top := r.h - 36
	r.button(dst, image.Rect(4, top, half-2, r.h-4), "hold "+approve+" "+verb, approveC)
	r.button(dst, image.Rect(half+2, top, r.w-4, r.h-4), deny+"  refuse", denyC)
}

func (r *Renderer) centre(dst *image.RGBA, y int, st Style, size float64, c color.Color, s string) {
	r.f.text(dst, (r.w-r.f.measure(st, size, s))/2, y, st, size, c, s)
}

// InfoRow is one "label: value" line; Warn colours the value.
type InfoRow struct {
	Label, Value string
	Warn         bool
}

// InfoView is one info page.
type InfoView struct {
	Title      string
	Page, Of   int // 1-based; Of 0 hides the page number
	Rows       []InfoRow
	Next, Back string // button labels for the footer, "" hides
}

// Info draws an info page (links, device, stats).
func (r *Renderer) Info(dst *image.RGBA, v InfoView) {
	clear(dst, dst.Bounds(), bg)
	r.pageHeader(dst, v.Title, v.Page, v.Of)
	l := r.infoLayout(v)
	for i, row := range l.rows {
		y := infoTop + i*l.lh
		r.f.text(dst, 8, y+1, Regular, 14, dim, row.Label)
		c := fg
		if row.Warn {
			c = warnC
		}
		r.f.text(dst, l.valueX, y, Bold, 15, c, row.Value)
	}
	r.pageFooter(dst, v.Next, v.Back, "")
}

// InfoDrawn is what Info draws of v on this panel: the rows that fit
// above the footer, each label and value as drawn (ellipsized to the
// width). The rows past the bottom are left out, so a page that grows a
// row can test that it still fits on both panel sizes.
func (r *Renderer) InfoDrawn(v InfoView) []InfoRow { return r.infoLayout(v).rows }

const infoTop = 34 // below the page header

type infoLayout struct {
	rows       []InfoRow
	lh, valueX int
}

func (r *Renderer) infoLayout(v InfoView) infoLayout {
	l := infoLayout{lh: r.f.lineHeight(Regular, 15) + 4}
	labelW := 0
	for _, row := range v.Rows {
		labelW = max(labelW, r.f.measure(Regular, 14, row.Label))
	}
	labelW = min(labelW, r.w/2-8)
	l.valueX = 8 + labelW + 10
	for i, row := range v.Rows {
		if infoTop+(i+1)*l.lh > r.h-24 {
			break
		}
		l.rows = append(l.rows, InfoRow{Label: r.f.ellipsize(Regular, 14, row.Label, labelW),
			Value: r.f.ellipsize(Bold, 15, row.Value, r.w-l.valueX-6), Warn: row.Warn})
	}
	return l
}

// PackView is a character-pack transfer in progress.
type PackView struct {
	Name        string
	File        string // the file being received
	Done, Total int64  // bytes
	Failed      string // "" while fine; an error ends the transfer
}

// Pack draws the pack-install progress.
func (r *Renderer) Pack(dst *image.RGBA, v PackView) {
	clear(dst, dst.Bounds(), bg)
	r.centre(dst, 28, Bold, 18, accent, "Installing character")
	r.centre(dst, 60, Bold, 22, fg, r.f.ellipsize(Bold, 22, v.Name, r.w-16))
	bar := image.Rect(16, r.h/2+4, r.w-16, r.h/2+22)
	clear(dst, bar, panel)
	if v.Total > 0 {
		done := min(max(v.Done, 0), v.Total)
		fill := bar
		fill.Max.X = bar.Min.X + int(int64(bar.Dx())*done/v.Total)
		c := approveC
		if v.Failed != "" {
			c = denyC
		}
		clear(dst, fill, c)
		pct := fmt.Sprintf("%d%%  ·  %d / %d KB", 100*done/v.Total, (done+1023)/1024, (v.Total+1023)/1024)
		r.centre(dst, bar.Max.Y+8, Regular, 13, dim, pct)
	}
	if v.Failed != "" {
		for i, l := range r.f.wrap(Regular, 14, v.Failed, r.w-16, 2) {
			r.centre(dst, r.h-44+i*18, Regular, 14, denyC, l)
		}
	} else if v.File != "" {
		r.centre(dst, r.h-36, Mono, 13, dim, r.f.ellipsize(Mono, 13, v.File, r.w-16))
	}
}

// NewDockView is a CoreS3 plugged in for the first time: the Pi shows its
// USB serial number and a long press of approve accepts it. Until then the
// dock gets nothing, so the screen says what accepting gives away.
type NewDockView struct {
	// Serial is made safe to draw by the dock service, and drawn whole,
	// wrapped: it is exactly what the Pi compares to accepted docks.
	Serial string
	// Looks is its USB product and manufacturer; Was, when set, how a dock
	// with this serial looked when it was accepted (a copied serial?).
	Looks, Was    string
	DisplayOnly   bool   // dock.approvals = false: it will show prompts, never answer them
	Approve, Deny string // button labels, e.g. "A" and "B"
}

// newDockSerialRows is how many rows the serial may take: the dock
// service never asks about one longer than 64 characters.
const newDockSerialRows = 4

// serialRows lays a serial out whole, never elided: one row when a
// smaller size fits it, else wrapped at any character into at most
// newDockSerialRows rows (more only past the smallest size).
func (r *Renderer) serialRows(serial string) ([]string, float64) {
	size := 22.0
	for size > 12 && r.f.measure(Mono, size, serial) > r.w-16 {
		size -= 2
	}
	rows := r.f.wrap(Mono, size, serial, r.w-16, 0)
	for size > 10 && len(rows) > newDockSerialRows {
		size--
		rows = r.f.wrap(Mono, size, serial, r.w-16, 0)
	}
	return rows, size
}

// NewDock draws the "New dock" screen.
func (r *Renderer) NewDock(dst *image.RGBA, v NewDockView) {
	clear(dst, dst.Bounds(), bg)
	title := "New dock plugged in"
	if v.Was != "" {
		title = "Dock looks different"
	}
	r.centre(dst, 8, Bold, 18, accent, r.f.ellipsize(Bold, 18, title, r.w-16))
	r.centre(dst, 34, Regular, 14, dim, "CoreS3 with serial number")
	rows, size := r.serialRows(v.Serial)
	y := 56
	for _, row := range rows {
		r.centre(dst, y, Mono, size, fg, row)
		y += r.f.lineHeight(Mono, size)
	}
	// What it says it is, and what it said when accepted, as room allows.
	notes := []struct {
		text string
		c    color.Color
	}{{v.Looks, dim}}
	if v.Was != "" {
		notes = []struct {
			text string
			c    color.Color
		}{{"now " + v.Looks, denyC}, {"was " + v.Was, dim}}
	}
	for _, n := range notes {
		if n.text == "" || y+16 > r.h-100 {
			continue
		}
		r.centre(dst, y+2, Regular, 12, n.c, r.f.ellipsize(Regular, 12, n.text, r.w-16))
		y += 16
	}
	what := "It will show prompts and"
	then := "can approve them."
	if v.DisplayOnly {
		then = "never answer them."
	}
	r.centre(dst, r.h-100, Regular, 14, fg, r.f.ellipsize(Regular, 14, what, r.w-16))
	r.centre(dst, r.h-82, Regular, 14, fg, r.f.ellipsize(Regular, 14, then, r.w-16))
	r.centre(dst, r.h-60, Regular, 14, dim, r.f.ellipsize(Regular, 14, "Is this your dock?", r.w-16))
	r.holdLegend(dst, v.Approve, v.Deny, "accept")
}
