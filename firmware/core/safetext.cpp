#include "safetext.h"

#include <cstdio>

namespace sc {

namespace {

struct Range {
  uint32_t lo, hi;
};

// Keep in step with protocols/safetext (the test compares the two).
constexpr Range kHidden[] = {
    {0x0000, 0x001F},   {0x007F, 0x00A0},   {0x00AD, 0x00AD},   {0x0600, 0x0605},   {0x061C, 0x061C},
    {0x06DD, 0x06DD},   {0x070F, 0x070F},   {0x0890, 0x0891},   {0x08E2, 0x08E2},   {0x115F, 0x1160},
    {0x1680, 0x1680},   {0x180B, 0x180F},   {0x2000, 0x200F},   {0x2028, 0x202F},   {0x205F, 0x2064},
    {0x2066, 0x206F},   {0x2800, 0x2800},   {0x3000, 0x3000},   {0x3164, 0x3164},   {0xFE00, 0xFE0F},
    {0xFEFF, 0xFEFF},   {0xFFA0, 0xFFA0},   {0xFFF9, 0xFFFB},   {0x110BD, 0x110BD}, {0x110CD, 0x110CD},
    {0x13430, 0x1343F}, {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A}, {0xE0000, 0xE007F}, {0xE0100, 0xE01EF},
};

struct Name {
  uint32_t cp;
  const char* name;
};
constexpr Name kNames[] = {
    {0x00, "NUL"},    {0x07, "BEL"},    {0x08, "BS"},     {0x0A, "LF"},     {0x0B, "VT"},     {0x0C, "FF"},
    {0x0D, "CR"},     {0x1B, "ESC"},    {0x7F, "DEL"},    {0x9B, "CSI"},    {0xA0, "NBSP"},   {0xAD, "SHY"},
    {0x061C, "ALM"},  {0x200B, "ZWSP"}, {0x200C, "ZWNJ"}, {0x200D, "ZWJ"},  {0x200E, "LRM"},  {0x200F, "RLM"},
    {0x2028, "LSEP"}, {0x2029, "PSEP"}, {0x202A, "LRE"},  {0x202B, "RLE"},  {0x202C, "PDF"},  {0x202D, "LRO"},
    {0x202E, "RLO"},  {0x2060, "WJ"},   {0x2066, "LRI"},  {0x2067, "RLI"},  {0x2068, "FSI"},  {0x2069, "PDI"},
    {0xFEFF, "BOM"},
};

// Decode reads one code point at s[i], advancing i; a byte that does not
// start a valid, shortest-form sequence (a surrogate, an overlong form, a
// cut sequence) is U+FFFD and one byte, as Go's decoder does.
uint32_t Decode(const std::string& s, size_t& i) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  if (c < 0x80) {
    i++;
    return c;
  }
  size_t n = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
  if (n > 0 && c <= 0xF4 && i + n < s.size()) {
    uint32_t cp = c & (0x3F >> n);
    bool ok = true;
    for (size_t k = 1; ok && k <= n; k++) {
      ok = (b(i + k) & 0xC0) == 0x80;
      cp = (cp << 6) | (b(i + k) & 0x3F);
    }
    static constexpr uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (ok && cp >= kMin[n] && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF)) {
      i += n + 1;
      return cp;
    }
  }
  i++;
  return 0xFFFD;
}

void Encode(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
}

// A cell is one character or one escape, before lines are made.
struct Cell {
  Span span;
  int cols = 1;
  bool newline = false;
};

std::vector<Cell> Cells(const std::string& text, HasGlyph has, bool oneLine, bool& hidden) {
  std::vector<Cell> cells;
  for (size_t i = 0; i < text.size();) {
    uint32_t cp = Decode(text, i);
    Cell c;
    if (cp == '\n' && !oneLine) {
      c.newline = true;
      c.cols = 0;
    } else if (cp == '\t' || IsHiddenCodePoint(cp) || (has ? !has(cp) : cp > 0xFFFF)) {
      c.span.kind = cp == '\t' ? SpanKind::Tab : IsHiddenCodePoint(cp) ? SpanKind::Hidden : SpanKind::NoGlyph;
      c.span.text = cp == '\t' ? "TAB" : EscapeLabel(cp);
      c.span.cp = cp;
      c.cols = int(c.span.text.size()) + 1;
      if (c.span.kind == SpanKind::Hidden) hidden = true;
    } else {
      Encode(c.span.text, cp);
      c.cols = cp < 0x80 ? 1 : 2;  // efont draws most of the rest 16 px wide
    }
    cells.push_back(c);
  }
  return cells;
}

void Append(TextLine& line, const Span& s) {
  if (s.kind == SpanKind::Text && !line.empty() && line.back().kind == SpanKind::Text) {
    line.back().text += s.text;
  } else {
    line.push_back(s);
  }
}

}  // namespace

bool IsHiddenCodePoint(uint32_t cp) {
  for (const Range& r : kHidden) {
    if (cp < r.lo) return false;
    if (cp <= r.hi) return true;
  }
  return false;
}

std::string EscapeLabel(uint32_t cp) {
  for (const Name& n : kNames) {
    if (n.cp == cp) return n.name;
  }
  char buf[16];
  snprintf(buf, sizeof buf, "U+%04X", unsigned(cp));
  return buf;
}

SafeText LayoutSafe(const std::string& text, int cols, HasGlyph has, bool oneLine) {
  SafeText t;
  std::vector<Cell> cells = Cells(text, has, oneLine, t.hidden);
  TextLine cur;
  int width = 0;
  bool any = false;
  for (const Cell& c : cells) {
    if (c.newline) {
      t.lines.push_back(cur);
      cur.clear();
      width = 0;
      any = false;
      continue;
    }
    if (any && width + c.cols > cols) {
      t.lines.push_back(cur);
      cur.clear();
      width = 0;
    }
    Append(cur, c.span);
    width += c.cols;
    any = true;
  }
  if (any || t.lines.empty()) t.lines.push_back(cur);
  return t;
}

TextLine FitSafe(const std::string& text, int cols, HasGlyph has, bool* hidden) {
  bool h = false;
  std::vector<Cell> cells = Cells(text, has, true, h);
  if (hidden) *hidden = h;
  int total = 0;
  for (const Cell& c : cells) total += c.cols;
  TextLine line;
  if (total <= cols) {
    for (const Cell& c : cells) Append(line, c.span);
    return line;
  }
  // Take cells from both ends, the end first (it tells paths apart),
  // until the next would not fit beside the ellipsis.
  size_t head = 0, tail = cells.size();
  int used = 0, budget = cols - 1;
  while (head < tail) {
    size_t next = cells.size() - tail > head ? head : tail - 1;
    if (used + cells[next].cols > budget) break;
    used += cells[next].cols;
    if (next == head) head++;
    else tail--;
  }
  for (size_t k = 0; k < head; k++) Append(line, cells[k].span);
  Append(line, Span{SpanKind::Text, "\xE2\x80\xA6", 0});
  for (size_t k = tail; k < cells.size(); k++) Append(line, cells[k].span);
  return line;
}

std::string Plain(const TextLine& line) {
  std::string out;
  for (const Span& s : line) {
    if (s.kind == SpanKind::Text) out += s.text;
    else out += "\xE2\x9F\xA8" + s.text + "\xE2\x9F\xA9";  // ⟨label⟩
  }
  return out;
}

}  // namespace sc
