#include "face.h"

namespace {

constexpr int kW = 320, kH = 240;
constexpr uint32_t kAmber = 0xffb000;

M5Canvas* gCanvas;  // drawn off-screen, pushed in one go (no flicker)

// Spans draws a line of the core's safe text: characters in efont, each
// escape as a box with its label in the 6x8 font (amber for a hidden
// character, grey for a missing glyph, an outline for a tab), so no
// typed text can pass for one. sim/raster.cpp draws the same boxes.
void Spans(M5Canvas& c, const sc::TextLine& line, int x, int y, uint32_t fg) {
  c.setTextDatum(top_left);
  c.setTextSize(1);
  for (const sc::Span& s : line) {
    if (s.kind == sc::SpanKind::Text) {
      c.setFont(&fonts::efontJA_16);
      c.setTextColor(fg);
      x += int(c.drawString(s.text.c_str(), x, y));
      continue;
    }
    c.setFont(&fonts::Font0);
    int w = int(c.textWidth(s.text.c_str())) + 4;
    if (s.kind == sc::SpanKind::Tab) {
      c.drawRect(x + 1, y + 2, w, 13, 0x808080u);
      c.setTextColor(0x808080u);
    } else {
      c.fillRect(x + 1, y + 2, w, 13, s.kind == sc::SpanKind::Hidden ? kAmber : 0x808080u);
      c.setTextColor(0x000000u);
    }
    c.drawString(s.text.c_str(), x + 3, y + 5);
    x += w + 2;
  }
}

void Op(M5Canvas& c, const sc::DrawOp& o) {
  switch (o.kind) {
    case sc::OpKind::FillRect: c.fillRect(o.x, o.y, o.w, o.h, o.color); break;
    case sc::OpKind::FillRoundRect: c.fillRoundRect(o.x, o.y, o.w, o.h, o.r, o.color); break;
    case sc::OpKind::FillCircle: c.fillCircle(o.x, o.y, o.r, o.color); break;
    case sc::OpKind::FillEllipse: c.fillEllipse(o.x, o.y, o.w, o.h, o.color); break;
    case sc::OpKind::FillTriangle: c.fillTriangle(o.x, o.y, o.w, o.h, o.x3, o.y3, o.color); break;
    case sc::OpKind::Text:
      c.setFont(&fonts::Font0);  // 6x8 cells, as sc::TextWidth counts them
      c.setTextSize(o.size);
      c.setTextColor(o.color);
      c.setTextDatum(o.align == sc::Align::Center ? top_center : o.align == sc::Align::Right ? top_right : top_left);
      c.drawString(o.text.c_str(), o.x, o.y);
      break;
    case sc::OpKind::SafeLine: Spans(c, o.line, o.x, o.y, o.color); break;
  }
}

}  // namespace

void FaceBegin(M5GFX& d) {
  d.setRotation(1);
  gCanvas = new M5Canvas(&d);
  gCanvas->setPsram(true);
  gCanvas->createSprite(kW, kH);
}

void FaceDraw(M5GFX& d, const sc::DisplayList& list) {
  static uint64_t shown = 0;
  uint64_t h = list.Hash();
  if (h == shown) return;
  shown = h;
  M5Canvas& c = *gCanvas;
  c.fillScreen(list.background);
  for (const sc::DrawOp& o : list.ops) Op(c, o);
  c.pushSprite(&d, 0, 0);
}

bool FaceHasGlyph(uint32_t cp) {
  if (cp > 0xFFFF) return false;  // efont covers the BMP only
  lgfx::FontMetrics m;
  return fonts::efontJA_16.updateFontMetric(&m, uint16_t(cp));
}
