// Our own rasterizer for the core's display lists (core/display.h), so the
// cores3-sim and the host tests see the frames the CoreS3 is told to draw:
// the same shapes at the same pixels; text in a 5x7 font of ours in M5GFX
// Font0's 6x8 cells (the device's efont lines are approximated one 8x16
// cell per column). No anti-aliasing, so a frame has few colours.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "display.h"

namespace sim {

class Canvas {
 public:
  Canvas(int w = 320, int h = 240) : w_(w), h_(h), px_(size_t(w) * size_t(h), 0) {}
  void Draw(const sc::DisplayList& list);
  uint32_t At(int x, int y) const { return x >= 0 && y >= 0 && x < w_ && y < h_ ? px_[size_t(y) * w_ + x] : 0; }
  // Count of pixels of colour c inside the rectangle (tests).
  int Count(int x, int y, int w, int h, uint32_t c) const;
  int width() const { return w_; }
  int height() const { return h_; }
  const std::vector<uint32_t>& pixels() const { return px_; }

  void FillRect(int x, int y, int w, int h, uint32_t c);
  void FillRoundRect(int x, int y, int w, int h, int r, uint32_t c);
  void FillCircle(int cx, int cy, int r, uint32_t c);
  void FillEllipse(int cx, int cy, int rx, int ry, uint32_t c);
  void FillTriangle(int x1, int y1, int x2, int y2, int x3, int y3, uint32_t c);
  // Text in the cell font; returns the width drawn.
  int Text(const std::string& s, int x, int y, int size, uint32_t c);
  // Line of safe text in the body-font approximation; returns the x after it.
  int Line(const sc::TextLine& line, int x, int y, uint32_t c);

 private:
  void put(int x, int y, uint32_t c) {
    if (x >= 0 && y >= 0 && x < w_ && y < h_) px_[size_t(y) * w_ + x] = c;
  }
  void glyph(unsigned char ch, int x, int y, int sx, int sy, uint32_t c);
  int w_, h_;
  std::vector<uint32_t> px_;
};

// EncodePng writes the canvas as a PNG: 8-bit palette when it has at most
// 256 colours (else RGB), every row "Up"-filtered, deflated with the fixed
// Huffman code and run-length matches. Deterministic: the same pixels give
// the same bytes, so a kept screenshot can be compared byte for byte.
std::string EncodePng(const Canvas& c);

// WriteFileAtomic writes data to path by a temporary file, fsync, rename
// and a directory fsync. false with err set when anything fails.
bool WriteFileAtomic(const std::string& path, const std::string& data, std::string* err);

}  // namespace sim
