// What the CoreS3 draws of untrusted text (an approval's title, summary
// and detail), by the same rules as the Pi's screens (protocols/safetext):
// printable characters as themselves, in logical order; invisible and
// deceptive ones (bidi controls, zero-width characters, C0/C1 controls,
// the ESC of an ANSI sequence) as a named escape box, which also raises
// the "contains hidden characters" warning; a character the font lacks as
// a U+XXXX box. Invalid UTF-8 becomes U+FFFD. Pure: no drawing here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sc {

enum class SpanKind : uint8_t {
  Text,     // UTF-8 drawn with the font
  Hidden,   // an invisible or deceptive character: a warning-coloured box
  NoGlyph,  // a character the font lacks: a grey box
  Tab,      // a tab: an outlined box, no warning
};

struct Span {
  SpanKind kind = SpanKind::Text;
  std::string text;  // Text: the characters; otherwise the box's label ("RLO", "U+E000")
  uint32_t cp = 0;   // the character of an escape
  bool operator==(const Span& o) const { return kind == o.kind && text == o.text && cp == o.cp; }
};
using TextLine = std::vector<Span>;

// HasGlyph reports whether the screen's font draws cp; nullptr: every
// Basic Multilingual Plane character (the host build has no font).
using HasGlyph = bool (*)(uint32_t cp);

// IsHiddenCodePoint is safetext.IsHidden, range for range (a test checks
// it against protocols/safetext/testdata/hidden.txt).
bool IsHiddenCodePoint(uint32_t cp);
// EscapeLabel is the box's label: a name ("RLO", "ZWSP") or "U+XXXX".
std::string EscapeLabel(uint32_t cp);

// SafeText is text laid out in lines of at most cols columns of 8 px: an
// ASCII character is one column, any other two (efont draws CJK, and
// some Greek and Cyrillic, 16 px wide; a line wraps early, never late),
// an escape box its label's length plus one (labels use a 6 px font).
struct SafeText {
  std::vector<TextLine> lines;
  bool hidden = false;
};

// LayoutSafe breaks text at newlines (oneLine: a newline is an LF escape
// instead) and at cols columns, never inside an escape.
SafeText LayoutSafe(const std::string& text, int cols, HasGlyph has = nullptr, bool oneLine = false);
// FitSafe is one line of at most cols columns, its middle replaced with
// "…" when it is longer, so both ends of a name stay visible.
TextLine FitSafe(const std::string& text, int cols, HasGlyph has = nullptr, bool* hidden = nullptr);
// Plain renders a line as a string, escapes as ⟨label⟩ (for logs, the
// simulator and tests; a screen draws boxes instead).
std::string Plain(const TextLine& line);

}  // namespace sc
