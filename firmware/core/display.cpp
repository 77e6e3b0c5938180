#include "display.h"

#include <cstdio>

namespace sc {

namespace {
DrawOp Shape(OpKind k, int x, int y, int w, int h, uint32_t c) {
  DrawOp o;
  o.kind = k;
  o.x = int16_t(x);
  o.y = int16_t(y);
  o.w = int16_t(w);
  o.h = int16_t(h);
  o.color = c;
  return o;
}

struct Fnv {
  uint64_t h = 1469598103934665603ull;
  void bytes(const void* p, size_t n) {
    const uint8_t* b = static_cast<const uint8_t*>(p);
    for (size_t i = 0; i < n; i++) {
      h ^= b[i];
      h *= 1099511628211ull;
    }
  }
  void u32(uint32_t v) {
    uint8_t b[4] = {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)};
    bytes(b, 4);
  }
  void str(const std::string& s) {
    u32(uint32_t(s.size()));
    bytes(s.data(), s.size());
  }
};
}  // namespace

void DisplayList::Clear(uint32_t bg) {
  background = bg;
  ops.clear();
}

void DisplayList::Rect(int x, int y, int w, int h, uint32_t c) { ops.push_back(Shape(OpKind::FillRect, x, y, w, h, c)); }

void DisplayList::RoundRect(int x, int y, int w, int h, int r, uint32_t c) {
  DrawOp o = Shape(OpKind::FillRoundRect, x, y, w, h, c);
  o.r = int16_t(r);
  ops.push_back(o);
}

void DisplayList::Circle(int x, int y, int r, uint32_t c) {
  DrawOp o = Shape(OpKind::FillCircle, x, y, 0, 0, c);
  o.r = int16_t(r);
  ops.push_back(o);
}

void DisplayList::Ellipse(int x, int y, int rx, int ry, uint32_t c) {
  ops.push_back(Shape(OpKind::FillEllipse, x, y, rx, ry, c));
}

void DisplayList::Triangle(int x1, int y1, int x2, int y2, int x3, int y3, uint32_t c) {
  DrawOp o = Shape(OpKind::FillTriangle, x1, y1, x2, y2, c);
  o.x3 = int16_t(x3);
  o.y3 = int16_t(y3);
  ops.push_back(o);
}

void DisplayList::Text(const std::string& s, int x, int y, int size, uint32_t c, Align a) {
  DrawOp o = Shape(OpKind::Text, x, y, 0, 0, c);
  o.size = uint8_t(size);
  o.align = a;
  o.text = s;
  ops.push_back(o);
}

void DisplayList::Line(const TextLine& l, int x, int y, uint32_t c) {
  DrawOp o = Shape(OpKind::SafeLine, x, y, 0, 0, c);
  o.line = l;
  ops.push_back(o);
}

uint64_t DisplayList::Hash() const {
  Fnv f;
  f.u32(background);
  for (const DrawOp& o : ops) {
    int16_t v[7] = {o.x, o.y, o.w, o.h, o.r, o.x3, o.y3};
    f.u32(uint32_t(o.kind));
    for (int16_t i : v) f.u32(uint32_t(uint16_t(i)));
    f.u32(o.color);
    f.u32(uint32_t(o.size) << 8 | uint32_t(o.align));
    f.str(o.text);
    f.u32(uint32_t(o.line.size()));
    for (const Span& s : o.line) {
      f.u32(uint32_t(s.kind));
      f.str(s.text);
    }
  }
  return f.h;
}

std::string DisplayList::Describe() const {
  static const char* const kNames[] = {"rect", "roundrect", "circle", "ellipse", "triangle", "text", "line"};
  std::string out;
  char buf[160];
  std::snprintf(buf, sizeof buf, "background #%06x\n", unsigned(background));
  out += buf;
  for (const DrawOp& o : ops) {
    std::snprintf(buf, sizeof buf, "%s %d,%d %dx%d r%d (%d,%d) #%06x", kNames[int(o.kind)], o.x, o.y, o.w, o.h, o.r,
                  o.x3, o.y3, unsigned(o.color));
    out += buf;
    if (o.kind == OpKind::Text) out += " \"" + o.text + "\"";
    if (o.kind == OpKind::SafeLine)
      for (const Span& s : o.line) out += " [" + s.text + "]";
    out += "\n";
  }
  return out;
}

}  // namespace sc
