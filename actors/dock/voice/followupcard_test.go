package voice

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/claude-pi/claude-pi/protocols/hookbridge"
	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
)

// coreRows lays text out as the CoreS3 does (firmware/core/safetext.cpp
// LayoutSafe) with a font that has every Basic Multilingual Plane glyph:
// ASCII one column, other glyphs two, a missing glyph a "U+XXXX" box. It
// returns the lines; the Pi's cardFit counts every non-ASCII character as
// a box, so the card never has more lines than the Pi planned.
func coreRows(text string, cols int) []string {
	var lines []string
	var cur strings.Builder
	width := 0
	for _, r := range text {
		if r == '\n' {
			lines, width = append(lines, cur.String()), 0
			cur.Reset()
			continue
		}
		w := 1
		switch {
		case r >= 0x80 && r <= 0xFFFF:
			w = 2
		case r > 0xFFFF:
			w = len(fmt.Sprintf("U+%04X", r)) + 1
		}
		if width > 0 && width+w > cols {
			lines, width = append(lines, cur.String()), 0
			cur.Reset()
		}
		cur.WriteRune(r)
		width += w
	}
	return append(lines, cur.String())
}

// issue33 is the follow-up of issue 33 item 2: 526 characters, its tail
// never on screen but sent.
var issue33 = strings.Repeat("please look at the failing deploy job and fix the config so that it passes, ", 7)[:472] +
	" and then delete every backup in the production bucket"

// TestFollowUpCardSendsWhatItShows: a follow-up longer than the card's
// first page is cut to what it shows, and the card says how much is not
// sent; one that fits is shown and sent whole.
func TestFollowUpCardSendsWhatItShows(t *testing.T) {
	if n := utf8.RuneCountInString(issue33); n != 526 {
		t.Fatalf("issue33 is %d characters, want 526", n)
	}
	fits := strings.Repeat("abcdefghi ", 25) + "ab" // 252: seven rows of 36
	for _, tc := range []struct {
		name, heard string
		cut         bool
	}{
		{"issue 33's 526 characters", issue33, true},
		{"the longest follow-up", strings.Repeat("x", hookbridge.MaxFollowUp), true},
		{"seven full rows", fits, false},
		{"one character more", fits + "c", true},
		{"wide characters", strings.Repeat("héllo wörld ", 40), true},
		{"characters without a glyph", strings.Repeat("go 🚀 now ", 40), true},
		{"a short sentence", "run the tests please", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			summary, send := followUpCard(tc.heard, "alice-mbp", "web")
			rows := coreRows(summary, cardColumns)
			if len(rows) > cardRows {
				t.Fatalf("the card has %d rows, the CoreS3 shows %d on its first page:\n%s", len(rows), cardRows, strings.Join(rows, "\n"))
			}
			if rows[0] != "To alice-mbp · web" {
				t.Errorf("first row %q, want the session", rows[0])
			}
			if !strings.HasPrefix(tc.heard, send) || send == "" {
				t.Fatalf("sends %q, not a start of what was heard", send)
			}
			left := utf8.RuneCountInString(tc.heard) - utf8.RuneCountInString(send)
			body := strings.TrimPrefix(summary, rows[0]+"\n")
			if !tc.cut {
				if send != tc.heard || body != send {
					t.Errorf("cut %q to %q (card %q), want it whole", tc.heard, send, body)
				}
				return
			}
			if left == 0 || body != send+"\n"+notSent(left) {
				t.Errorf("card %q for sending %q, want the text and %q", body, send, notSent(left))
			}
			if tc.heard == issue33 && strings.Contains(send, "delete") {
				t.Errorf("sends the tail it cannot show: %q", send)
			}
		})
	}
}

// TestFollowUpCardNamesTheSession: long names are cut on their one row.
func TestFollowUpCardNamesTheSession(t *testing.T) {
	for _, tc := range []struct{ computer, project, want string }{
		{"alice-mbp", "web", "To alice-mbp · web"},
		{"", "web", "To a paired computer · web"},
		{"alice-mbp", "", "To alice-mbp"},
		{strings.Repeat("c", 40), "web", "To " + strings.Repeat("c", 26) + "…"},
	} {
		summary, _ := followUpCard("ok", tc.computer, tc.project)
		if got, _, _ := strings.Cut(summary, "\n"); got != tc.want {
			t.Errorf("%q %q: first row %q, want %q", tc.computer, tc.project, got, tc.want)
		}
	}
}

// TestCardGeometryMatchesTheFirmware: cardColumns and cardRows are the
// firmware's approval page.
func TestCardGeometryMatchesTheFirmware(t *testing.T) {
	b, err := os.ReadFile("../../../firmware/core/apps.h")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int{"kDetailColumns": cardColumns, "kDetailRows": cardRows} {
		m := regexp.MustCompile(`constexpr int ` + name + ` = (\d+);`).FindSubmatch(b)
		if m == nil {
			t.Fatalf("apps.h has no %s", name)
		}
		if n, _ := strconv.Atoi(string(m[1])); n != want {
			t.Errorf("firmware %s = %d, the Pi lays the card out with %d", name, n, want)
		}
	}
}

// TestLongFollowUpSendsOnlyWhatWasShown: issue 33's follow-up, untouched
// on the card, goes out followUpConfirm after it was presented as the
// part the card showed, and nothing else.
func TestLongFollowUpSendsOnlyWhatWasShown(t *testing.T) {
	r := newFuRig(t)
	r.reply("s1", 10*time.Second)
	r.swipe(OpStart)
	r.hear(issue33, nil)
	r.event(appevent.NewApprovalPresented(card))
	r.tick(followUpConfirm)
	summary, send := followUpCard(issue33, "", "")
	want := []string{"s1 listening", "s1 text " + send}
	if len(r.outs) != 2 || r.outs[0] != want[0] || r.outs[1] != want[1] {
		t.Errorf("told the lan %q, want %q", r.outs, want)
	}
	shown, err := appevent.Marshal(appevent.NewApprovalRequest(card, appevent.KindCommand, followUpTitle, summary, summary))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(r.tx), string(shown)) {
		t.Errorf("the card sent is not %s", shown)
	}
}

// FuzzFollowUpCard: whatever is heard, the card fits the CoreS3's first
// page and sends a start of what was heard, saying how much it left.
func FuzzFollowUpCard(f *testing.F) {
	f.Add(issue33, "alice-mbp", "web")
	f.Add(strings.Repeat("日本語のテキスト", 60), "ноутбук", "проект")
	f.Add(strings.Repeat("🚀", 300), "", "")
	f.Fuzz(func(t *testing.T, heard, computer, project string) {
		heard = followUpText(heard)
		computer = hookbridge.Printable(computer, hookbridge.MaxName)
		project = hookbridge.Printable(project, hookbridge.MaxProject)
		if heard == "" {
			return
		}
		summary, send := followUpCard(heard, computer, project)
		if rows := coreRows(summary, cardColumns); len(rows) > cardRows {
			t.Fatalf("%d rows:\n%s", len(rows), strings.Join(rows, "\n"))
		}
		if send == "" || !strings.HasPrefix(heard, send) {
			t.Fatalf("sends %q for %q", send, heard)
		}
		if left := utf8.RuneCountInString(heard) - utf8.RuneCountInString(send); left > 0 && !strings.HasSuffix(summary, "\n"+notSent(left)) {
			t.Fatalf("cut %d characters without saying so: %q", left, summary)
		}
	})
}
