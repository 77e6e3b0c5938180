// A frame of the CoreS3 screen as data: a short list of shapes and text
// in 24-bit colour, in drawing order. The face model (face.h) builds it;
// src/face.cpp draws it with M5GFX on the device and sim/raster.h with our
// own rasterizer on the host (the cores3-sim's screenshots and the tests),
// so what the tests check is what the device is told to draw.
//
// Only primitives both sides draw the same way are used: filled rectangles,
// rounded rectangles, circles, ellipses and triangles, ASCII text in a 6x8
// cell font (M5GFX's Font0) at scale 1 or 2, and lines of the core's safe
// text (safetext.h) in the device's efont (the host draws them in the cell
// font, one cell per character).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "safetext.h"

namespace sc {

enum class OpKind : uint8_t {
  FillRect,       // x, y, w, h
  FillRoundRect,  // x, y, w, h, r
  FillCircle,     // x, y (centre), r
  FillEllipse,    // x, y (centre), w = rx, h = ry
  FillTriangle,   // (x, y), (w, h), (x3, y3): three corners
  Text,           // text at x, y; size 1 (6x8 cells) or 2 (12x16); align
  SafeLine,       // line (safetext) at x, y in the body font, colour = text colour
};

enum class Align : uint8_t { Left, Center, Right };

struct DrawOp {
  OpKind kind = OpKind::FillRect;
  int16_t x = 0, y = 0, w = 0, h = 0, r = 0, x3 = 0, y3 = 0;
  uint32_t color = 0;  // 0xRRGGBB
  uint8_t size = 1;
  Align align = Align::Left;
  std::string text;
  TextLine line;
};

// The cell font's metrics (Font0 in M5GFX: 6x8 per character at size 1).
constexpr int kCellW = 6, kCellH = 8;
// The body font (efontJA_16 on the device): 16 px high, 8 px per ASCII
// character; the host approximates every character as one 8 px cell.
constexpr int kBodyH = 16, kBodyCellW = 8;

class DisplayList {
 public:
  uint32_t background = 0x000000;
  std::vector<DrawOp> ops;

  void Clear(uint32_t bg);
  void Rect(int x, int y, int w, int h, uint32_t c);
  void RoundRect(int x, int y, int w, int h, int r, uint32_t c);
  void Circle(int x, int y, int r, uint32_t c);
  void Ellipse(int x, int y, int rx, int ry, uint32_t c);
  void Triangle(int x1, int y1, int x2, int y2, int x3, int y3, uint32_t c);
  void Text(const std::string& s, int x, int y, int size, uint32_t c, Align a = Align::Left);
  void Line(const TextLine& l, int x, int y, uint32_t c);

  // Hash is FNV-1a 64 over every field of every op: equal lists hash
  // equal, so the device skips a redraw and the tests pin a frame.
  uint64_t Hash() const;
  // Describe is one line per op, for test failure messages.
  std::string Describe() const;
};

// TextWidth of s in the cell font at size (ASCII; one cell per byte).
inline int TextWidth(const std::string& s, int size) { return int(s.size()) * kCellW * size; }

}  // namespace sc
