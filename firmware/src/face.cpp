#include "face.h"

namespace {

constexpr int kW = 320, kH = 240;
constexpr uint32_t kBadgeBg = 0x202428, kAmber = 0xffb000, kTaskBlue = 0x42bde8;
using sc::kButtonsY;

M5Canvas* gCanvas;  // drawn off-screen, pushed in one go (no flicker)

void Spinner(M5Canvas& c, int cx, int cy, uint32_t color, uint32_t now) {
  int frame = (now / 250) % 4;  // 4 frames, 250 ms each (spec §12.8)
  for (int i = 0; i < 4; i++) {
    float a = (i + frame) * 3.14159f / 2;
    c.fillCircle(cx + int(7 * cosf(a)), cy + int(7 * sinf(a)), i == 0 ? 3 : 2, i == 0 ? color : 0x606060);
  }
}

void Badges(M5Canvas& c, const UiState& s, uint32_t now) {
  int x = kW - 14 - 4, y = 18;
  if (s.status != 0) {
    c.fillRoundRect(x - 14, y - 14, 28, 28, 6, kBadgeBg);
    switch (s.status) {
      case 1: Spinner(c, x, y, TFT_WHITE, now); break;        // recognizing
      case 2: c.fillRoundRect(x - 4, y - 8, 8, 12, 4, 0x808080); break;  // speaking: muted mic
      case 3: c.fillRoundRect(x - 4, y - 8, 8, 12, 4, TFT_WHITE); break;  // listening: mic
      case 4: Spinner(c, x, y, kAmber, now); break;            // connecting
      case 5: c.setTextColor(TFT_RED); c.drawCenterString("!", x, y - 8); break;
    }
  }
  if (s.taskRunning) {
    c.fillRoundRect(x - 40 - 14, y - 14, 28, 28, 6, kBadgeBg);
    Spinner(c, x - 40, y, kTaskBlue, now);
  }
}

// Spans draws a line of the core's safe text: characters in efont, each
// escape as a box with its label in the 6x8 font (amber for a hidden
// character, grey for a missing glyph, an outline for a tab), so no
// typed text can pass for one. Returns the x after the line.
int Spans(M5Canvas& c, const sc::TextLine& line, int x, int y, uint32_t fg) {
  for (const sc::Span& s : line) {
    if (s.kind == sc::SpanKind::Text) {
      c.setTextColor(fg);
      x += int(c.drawString(s.text.c_str(), x, y));
      continue;
    }
    c.setFont(&fonts::Font0);
    int w = int(c.textWidth(s.text.c_str())) + 4;
    if (s.kind == sc::SpanKind::Tab) {
      c.drawRect(x + 1, y + 2, w, 13, 0x808080);
      c.setTextColor(0x808080);
    } else {
      c.fillRect(x + 1, y + 2, w, 13, s.kind == sc::SpanKind::Hidden ? kAmber : 0x808080);
      c.setTextColor(TFT_BLACK);
    }
    c.drawString(s.text.c_str(), x + 3, y + 5);
    c.setFont(&fonts::efontJA_16);
    x += w + 2;
  }
  return x;
}

void Face(M5Canvas& c, const UiState& s) {
  c.fillCircle(100, 100, 10, TFT_WHITE);
  c.fillCircle(220, 100, 10, TFT_WHITE);
  int open = int(s.mouth * 30);  // mouth opens with the core's 0.1 steps
  c.fillRect(130, 150 - open / 2, 60, 4 + open, TFT_WHITE);
  if (!s.caption.empty()) {  // two-line balloon at the bottom, height 44
    c.fillRoundRect(4, kH - 48, kW - 8, 44, 8, TFT_WHITE);
    sc::SafeText t = sc::LayoutSafe(s.caption, 35, FaceHasGlyph);
    for (size_t i = 0; i < t.lines.size() && i < 2; i++) Spans(c, t.lines[i], 12, kH - 44 + int(i) * 18, TFT_BLACK);
  }
}

void Approval(M5Canvas& c, const sc::ApprovalView& v) {
  Spans(c, v.titleLine, 8, 8, TFT_WHITE);
  for (size_t i = 0; i < v.lines.size() && i < size_t(sc::kDetailRows); i++) Spans(c, v.lines[i], 8, 36 + int(i) * 16, TFT_WHITE);
  c.setTextColor(v.hidden ? kAmber : 0xA0A0A0);  // "contains hidden characters" stands out
  c.drawString(v.statusLine.c_str(), 8, kButtonsY - 20);
  uint32_t dim = 0x404040;
  // Where the core's hit test (core/touch.h) expects them.
  auto button = [&](const sc::Rect& r, uint32_t color, const char* label) {
    c.fillRoundRect(r.x, r.y, r.w, r.h, 8, color);
    c.setTextColor(TFT_WHITE);
    c.drawCenterString(label, r.x + r.w / 2, r.y + 14);
  };
  button(sc::kNgButtonRect, v.buttonsEnabled ? TFT_RED : dim, "NG");
  button(sc::kMiddleButtonRect, 0x3050A0, v.middleLabel.c_str());
  button(sc::kOkButtonRect, v.buttonsEnabled ? TFT_GREEN : dim, "OK");
}

}  // namespace

void FaceBegin(M5GFX& d) {
  d.setRotation(1);
  gCanvas = new M5Canvas(&d);
  gCanvas->setPsram(true);
  gCanvas->createSprite(kW, kH);
  gCanvas->setFont(&fonts::efontJA_16);  // UTF-8 captions and approvals
}

void FaceDraw(M5GFX& d, const UiState& s, uint32_t now) {
  static uint32_t lastVersion = ~0u, lastFrame = 0;
  bool animating = s.taskRunning || s.status == 1 || s.status == 4;
  if (s.version == lastVersion && !(animating && now - lastFrame >= 250)) return;
  lastVersion = s.version;
  lastFrame = now;
  M5Canvas& c = *gCanvas;
  c.fillScreen(TFT_BLACK);
  if (s.approval.visible) Approval(c, s.approval);
  else Face(c, s);
  Badges(c, s, now);
  c.pushSprite(&d, 0, 0);
}

bool FaceHasGlyph(uint32_t cp) {
  if (cp > 0xFFFF) return false;  // efont covers the BMP only
  lgfx::FontMetrics m;
  return fonts::efontJA_16.updateFontMetric(&m, uint16_t(cp));
}
