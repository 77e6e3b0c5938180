#include "raster.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <map>

#include "wire.h"

namespace sim {

namespace {

// 5x7 glyphs for ASCII 0x20-0x7E, one byte per row, bit 4 = leftmost column.
const uint8_t kFont[95][7] = {
    {0x00,0x00,0x00,0x00,0x00,0x00,0x00}, // ' '
    {0x04,0x04,0x04,0x04,0x04,0x00,0x04}, // '!'
    {0x0a,0x0a,0x00,0x00,0x00,0x00,0x00}, // '"'
    {0x0a,0x1f,0x0a,0x0a,0x1f,0x0a,0x00}, // '#'
    {0x04,0x0f,0x14,0x0e,0x05,0x1e,0x04}, // '$'
    {0x18,0x19,0x02,0x04,0x08,0x13,0x03}, // '%'
    {0x0c,0x12,0x0c,0x08,0x15,0x12,0x0d}, // '&'
    {0x04,0x04,0x00,0x00,0x00,0x00,0x00}, // "'"
    {0x02,0x04,0x08,0x08,0x08,0x04,0x02}, // '('
    {0x08,0x04,0x02,0x02,0x02,0x04,0x08}, // ')'
    {0x00,0x04,0x15,0x0e,0x15,0x04,0x00}, // '*'
    {0x00,0x04,0x04,0x1f,0x04,0x04,0x00}, // '+'
    {0x00,0x00,0x00,0x00,0x0c,0x04,0x08}, // ','
    {0x00,0x00,0x00,0x1f,0x00,0x00,0x00}, // '-'
    {0x00,0x00,0x00,0x00,0x00,0x0c,0x0c}, // '.'
    {0x00,0x01,0x02,0x04,0x08,0x10,0x00}, // '/'
    {0x0e,0x11,0x13,0x15,0x19,0x11,0x0e}, // '0'
    {0x04,0x0c,0x04,0x04,0x04,0x04,0x0e}, // '1'
    {0x0e,0x11,0x01,0x02,0x04,0x08,0x1f}, // '2'
    {0x1f,0x02,0x04,0x02,0x01,0x11,0x0e}, // '3'
    {0x02,0x06,0x0a,0x12,0x1f,0x02,0x02}, // '4'
    {0x1f,0x10,0x1e,0x01,0x01,0x11,0x0e}, // '5'
    {0x06,0x08,0x10,0x1e,0x11,0x11,0x0e}, // '6'
    {0x1f,0x01,0x02,0x04,0x08,0x08,0x08}, // '7'
    {0x0e,0x11,0x11,0x0e,0x11,0x11,0x0e}, // '8'
    {0x0e,0x11,0x11,0x0f,0x01,0x02,0x0c}, // '9'
    {0x00,0x0c,0x0c,0x00,0x0c,0x0c,0x00}, // ':'
    {0x00,0x0c,0x0c,0x00,0x0c,0x04,0x08}, // ';'
    {0x02,0x04,0x08,0x10,0x08,0x04,0x02}, // '<'
    {0x00,0x00,0x1f,0x00,0x1f,0x00,0x00}, // '='
    {0x08,0x04,0x02,0x01,0x02,0x04,0x08}, // '>'
    {0x0e,0x11,0x01,0x02,0x04,0x00,0x04}, // '?'
    {0x0e,0x11,0x01,0x0d,0x15,0x15,0x0e}, // '@'
    {0x0e,0x11,0x11,0x1f,0x11,0x11,0x11}, // 'A'
    {0x1e,0x11,0x11,0x1e,0x11,0x11,0x1e}, // 'B'
    {0x0e,0x11,0x10,0x10,0x10,0x11,0x0e}, // 'C'
    {0x1c,0x12,0x11,0x11,0x11,0x12,0x1c}, // 'D'
    {0x1f,0x10,0x10,0x1e,0x10,0x10,0x1f}, // 'E'
    {0x1f,0x10,0x10,0x1e,0x10,0x10,0x10}, // 'F'
    {0x0e,0x11,0x10,0x17,0x11,0x11,0x0f}, // 'G'
    {0x11,0x11,0x11,0x1f,0x11,0x11,0x11}, // 'H'
    {0x0e,0x04,0x04,0x04,0x04,0x04,0x0e}, // 'I'
    {0x07,0x02,0x02,0x02,0x02,0x12,0x0c}, // 'J'
    {0x11,0x12,0x14,0x18,0x14,0x12,0x11}, // 'K'
    {0x10,0x10,0x10,0x10,0x10,0x10,0x1f}, // 'L'
    {0x11,0x1b,0x15,0x15,0x11,0x11,0x11}, // 'M'
    {0x11,0x11,0x19,0x15,0x13,0x11,0x11}, // 'N'
    {0x0e,0x11,0x11,0x11,0x11,0x11,0x0e}, // 'O'
    {0x1e,0x11,0x11,0x1e,0x10,0x10,0x10}, // 'P'
    {0x0e,0x11,0x11,0x11,0x15,0x12,0x0d}, // 'Q'
    {0x1e,0x11,0x11,0x1e,0x14,0x12,0x11}, // 'R'
    {0x0f,0x10,0x10,0x0e,0x01,0x01,0x1e}, // 'S'
    {0x1f,0x04,0x04,0x04,0x04,0x04,0x04}, // 'T'
    {0x11,0x11,0x11,0x11,0x11,0x11,0x0e}, // 'U'
    {0x11,0x11,0x11,0x11,0x11,0x0a,0x04}, // 'V'
    {0x11,0x11,0x11,0x15,0x15,0x15,0x0a}, // 'W'
    {0x11,0x11,0x0a,0x04,0x0a,0x11,0x11}, // 'X'
    {0x11,0x11,0x11,0x0a,0x04,0x04,0x04}, // 'Y'
    {0x1f,0x01,0x02,0x04,0x08,0x10,0x1f}, // 'Z'
    {0x0e,0x08,0x08,0x08,0x08,0x08,0x0e}, // '['
    {0x00,0x10,0x08,0x04,0x02,0x01,0x00}, // '\\'
    {0x0e,0x02,0x02,0x02,0x02,0x02,0x0e}, // ']'
    {0x04,0x0a,0x11,0x00,0x00,0x00,0x00}, // '^'
    {0x00,0x00,0x00,0x00,0x00,0x00,0x1f}, // '_'
    {0x08,0x04,0x00,0x00,0x00,0x00,0x00}, // '`'
    {0x00,0x00,0x0e,0x01,0x0f,0x11,0x0f}, // 'a'
    {0x10,0x10,0x16,0x19,0x11,0x11,0x1e}, // 'b'
    {0x00,0x00,0x0e,0x10,0x10,0x11,0x0e}, // 'c'
    {0x01,0x01,0x0d,0x13,0x11,0x11,0x0f}, // 'd'
    {0x00,0x00,0x0e,0x11,0x1f,0x10,0x0e}, // 'e'
    {0x06,0x09,0x08,0x1c,0x08,0x08,0x08}, // 'f'
    {0x00,0x0f,0x11,0x11,0x0f,0x01,0x0e}, // 'g'
    {0x10,0x10,0x16,0x19,0x11,0x11,0x11}, // 'h'
    {0x04,0x00,0x0c,0x04,0x04,0x04,0x0e}, // 'i'
    {0x02,0x00,0x06,0x02,0x02,0x12,0x0c}, // 'j'
    {0x10,0x10,0x12,0x14,0x18,0x14,0x12}, // 'k'
    {0x0c,0x04,0x04,0x04,0x04,0x04,0x0e}, // 'l'
    {0x00,0x00,0x1a,0x15,0x15,0x11,0x11}, // 'm'
    {0x00,0x00,0x16,0x19,0x11,0x11,0x11}, // 'n'
    {0x00,0x00,0x0e,0x11,0x11,0x11,0x0e}, // 'o'
    {0x00,0x00,0x1e,0x11,0x1e,0x10,0x10}, // 'p'
    {0x00,0x00,0x0d,0x13,0x0f,0x01,0x01}, // 'q'
    {0x00,0x00,0x16,0x19,0x10,0x10,0x10}, // 'r'
    {0x00,0x00,0x0e,0x10,0x0e,0x01,0x1e}, // 's'
    {0x08,0x08,0x1c,0x08,0x08,0x09,0x06}, // 't'
    {0x00,0x00,0x11,0x11,0x11,0x13,0x0d}, // 'u'
    {0x00,0x00,0x11,0x11,0x11,0x0a,0x04}, // 'v'
    {0x00,0x00,0x11,0x11,0x15,0x15,0x0a}, // 'w'
    {0x00,0x00,0x11,0x0a,0x04,0x0a,0x11}, // 'x'
    {0x00,0x00,0x11,0x11,0x0f,0x01,0x0e}, // 'y'
    {0x00,0x00,0x1f,0x02,0x04,0x08,0x1f}, // 'z'
    {0x02,0x04,0x04,0x08,0x04,0x04,0x02}, // '{'
    {0x04,0x04,0x04,0x04,0x04,0x04,0x04}, // '|'
    {0x08,0x04,0x04,0x02,0x04,0x04,0x08}, // '}'
    {0x00,0x00,0x08,0x15,0x02,0x00,0x00}, // '~'
};

}  // namespace

void Canvas::FillRect(int x, int y, int w, int h, uint32_t c) {
  for (int j = y; j < y + h; j++)
    for (int i = x; i < x + w; i++) put(i, j, c);
}

void Canvas::FillCircle(int cx, int cy, int r, uint32_t c) {
  for (int dy = -r; dy <= r; dy++)
    for (int dx = -r; dx <= r; dx++)
      if (dx * dx + dy * dy <= r * r) put(cx + dx, cy + dy, c);
}

void Canvas::FillRoundRect(int x, int y, int w, int h, int r, uint32_t c) {
  if (r * 2 > w) r = w / 2;
  if (r * 2 > h) r = h / 2;
  // Corner discs centred r in from each corner, as M5GFX draws them.
  const int left = x + r, right = x + w - 1 - r, top = y + r, bottom = y + h - 1 - r;
  for (int py = y; py < y + h; py++)
    for (int px = x; px < x + w; px++) {
      int dx = px < left ? left - px : px > right ? px - right : 0;
      int dy = py < top ? top - py : py > bottom ? py - bottom : 0;
      if (dx * dx + dy * dy <= r * r) put(px, py, c);
    }
}

void Canvas::FillEllipse(int cx, int cy, int rx, int ry, uint32_t c) {
  if (rx <= 0 || ry <= 0) return;
  long rx2 = long(rx) * rx, ry2 = long(ry) * ry;
  for (int dy = -ry; dy <= ry; dy++)
    for (int dx = -rx; dx <= rx; dx++)
      if (long(dx) * dx * ry2 + long(dy) * dy * rx2 <= rx2 * ry2) put(cx + dx, cy + dy, c);
}

void Canvas::FillTriangle(int x1, int y1, int x2, int y2, int x3, int y3, uint32_t c) {
  int minX = std::min(x1, std::min(x2, x3)), maxX = std::max(x1, std::max(x2, x3));
  int minY = std::min(y1, std::min(y2, y3)), maxY = std::max(y1, std::max(y2, y3));
  auto edge = [](long ax, long ay, long bx, long by, long px, long py) { return (bx - ax) * (py - ay) - (by - ay) * (px - ax); };
  long area = edge(x1, y1, x2, y2, x3, y3);
  if (area == 0) return;
  for (int y = minY; y <= maxY; y++)
    for (int x = minX; x <= maxX; x++) {
      long a = edge(x1, y1, x2, y2, x, y), b = edge(x2, y2, x3, y3, x, y), d = edge(x3, y3, x1, y1, x, y);
      if (area > 0 ? (a >= 0 && b >= 0 && d >= 0) : (a <= 0 && b <= 0 && d <= 0)) put(x, y, c);
    }
}

void Canvas::glyph(unsigned char ch, int x, int y, int sx, int sy, uint32_t c) {
  if (ch < 0x20 || ch > 0x7e) ch = '?';
  const uint8_t* g = kFont[ch - 0x20];
  for (int row = 0; row < 7; row++)
    for (int col = 0; col < 5; col++)
      if (g[row] & (0x10 >> col)) FillRect(x + col * sx, y + row * sy, sx, sy, c);
}

int Canvas::Text(const std::string& s, int x, int y, int size, uint32_t c) {
  for (size_t i = 0; i < s.size(); i++) glyph(static_cast<unsigned char>(s[i]), x + int(i) * sc::kCellW * size, y, size, size, c);
  return sc::TextWidth(s, size);
}

int Canvas::Line(const sc::TextLine& line, int x, int y, uint32_t c) {
  for (const sc::Span& s : line) {
    if (s.kind == sc::SpanKind::Text) {
      for (size_t i = 0; i < s.text.size();) {
        unsigned char b = static_cast<unsigned char>(s.text[i]);
        size_t n = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : 4;
        if (n == 1) {
          glyph(b, x + 1, y + 1, 1, 2, c);
          x += sc::kBodyCellW;
        } else {  // no font for it here: a hollow box two columns wide
          FillRect(x + 1, y + 1, 14, 1, c);
          FillRect(x + 1, y + 14, 14, 1, c);
          FillRect(x + 1, y + 1, 1, 14, c);
          FillRect(x + 14, y + 1, 1, 14, c);
          x += 2 * sc::kBodyCellW;
        }
        i += n;
      }
      continue;
    }
    // An escape box, as src/face.cpp draws it: Font0 label, amber when hidden.
    int w = sc::TextWidth(s.text, 1) + 4;
    if (s.kind == sc::SpanKind::Tab) {
      FillRect(x + 1, y + 2, w, 1, 0x808080);
      FillRect(x + 1, y + 14, w, 1, 0x808080);
      FillRect(x + 1, y + 2, 1, 13, 0x808080);
      FillRect(x + w, y + 2, 1, 13, 0x808080);
      Text(s.text, x + 3, y + 5, 1, 0x808080);
    } else {
      FillRect(x + 1, y + 2, w, 13, s.kind == sc::SpanKind::Hidden ? 0xffb000 : 0x808080);
      Text(s.text, x + 3, y + 5, 1, 0x000000);
    }
    x += w + 2;
  }
  return x;
}

void Canvas::Draw(const sc::DisplayList& list) {
  std::fill(px_.begin(), px_.end(), list.background);
  for (const sc::DrawOp& o : list.ops) {
    switch (o.kind) {
      case sc::OpKind::FillRect: FillRect(o.x, o.y, o.w, o.h, o.color); break;
      case sc::OpKind::FillRoundRect: FillRoundRect(o.x, o.y, o.w, o.h, o.r, o.color); break;
      case sc::OpKind::FillCircle: FillCircle(o.x, o.y, o.r, o.color); break;
      case sc::OpKind::FillEllipse: FillEllipse(o.x, o.y, o.w, o.h, o.color); break;
      case sc::OpKind::FillTriangle: FillTriangle(o.x, o.y, o.w, o.h, o.x3, o.y3, o.color); break;
      case sc::OpKind::Text: {
        int w = sc::TextWidth(o.text, o.size);
        int x = o.align == sc::Align::Center ? o.x - w / 2 : o.align == sc::Align::Right ? o.x - w : o.x;
        Text(o.text, x, o.y, o.size, o.color);
        break;
      }
      case sc::OpKind::SafeLine: Line(o.line, o.x, o.y, o.color); break;
    }
  }
}

int Canvas::Count(int x, int y, int w, int h, uint32_t c) const {
  int n = 0;
  for (int j = y; j < y + h; j++)
    for (int i = x; i < x + w; i++)
      if (At(i, j) == c) n++;
  return n;
}

// ---- PNG

namespace {

class BitWriter {
 public:
  std::string out;
  void bits(uint32_t v, int n) {  // LSB first, as deflate wants
    for (int i = 0; i < n; i++) {
      acc_ |= ((v >> i) & 1u) << fill_;
      if (++fill_ == 8) flushByte();
    }
  }
  void huff(uint32_t code, int n) {  // Huffman codes go MSB first
    for (int i = n - 1; i >= 0; i--) bits((code >> i) & 1u, 1);
  }
  void finish() {
    if (fill_) flushByte();
  }

 private:
  void flushByte() {
    out.push_back(char(acc_));
    acc_ = 0;
    fill_ = 0;
  }
  uint32_t acc_ = 0;
  int fill_ = 0;
};

void FixedLiteral(BitWriter& w, int v) {
  if (v < 144) w.huff(0x30 + v, 8);
  else if (v < 256) w.huff(0x190 + (v - 144), 9);
  else if (v < 280) w.huff(v - 256, 7);
  else w.huff(0xc0 + (v - 280), 8);
}

void FixedLength(BitWriter& w, int len) {
  static const int kBase[] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59,
                              67, 83, 99, 115, 131, 163, 195, 227, 258};
  static const int kExtra[] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3,
                               4, 4, 4, 4, 5, 5, 5, 5, 0};
  int i = 28;
  while (kBase[i] > len) i--;
  FixedLiteral(w, 257 + i);
  w.bits(uint32_t(len - kBase[i]), kExtra[i]);
}

// Deflate: one final fixed-Huffman block; a byte that repeats the one
// before it starts a run coded as matches at distance 1.
std::string Deflate(const std::string& in) {
  BitWriter w;
  w.bits(1, 1);  // BFINAL
  w.bits(1, 2);  // BTYPE 01: fixed Huffman
  size_t i = 0;
  while (i < in.size()) {
    size_t run = 0;
    if (i > 0)
      while (i + run < in.size() && run < 258 && in[i + run] == in[i - 1]) run++;
    if (run >= 3) {
      FixedLength(w, int(run));
      w.huff(0, 5);  // distance code 0 = distance 1
      i += run;
    } else {
      FixedLiteral(w, static_cast<unsigned char>(in[i]));
      i++;
    }
  }
  FixedLiteral(w, 256);
  w.finish();
  return w.out;
}

void PutBE32(std::string* s, uint32_t v) {
  for (int i = 3; i >= 0; i--) s->push_back(char(v >> (8 * i)));
}

void Chunk(std::string* png, const char* type, const std::string& data) {
  PutBE32(png, uint32_t(data.size()));
  std::string body = std::string(type, 4) + data;
  png->append(body);
  PutBE32(png, sc::Crc32(reinterpret_cast<const uint8_t*>(body.data()), body.size()));
}

}  // namespace

std::string EncodePng(const Canvas& c) {
  const int w = c.width(), h = c.height();
  std::map<uint32_t, int> index;
  std::vector<uint32_t> palette;
  for (uint32_t p : c.pixels()) {
    if (index.count(p)) continue;
    if (palette.size() == 256) break;
    index[p] = 0;
    palette.push_back(p);
  }
  bool paletted = index.size() <= 256 && palette.size() == index.size();
  for (uint32_t p : c.pixels())
    if (!index.count(p)) paletted = false;
  if (paletted) {  // palette sorted by colour: the order of discovery must not matter
    std::sort(palette.begin(), palette.end());
    for (size_t i = 0; i < palette.size(); i++) index[palette[i]] = int(i);
  }
  const size_t bpp = paletted ? 1 : 3, stride = size_t(w) * bpp;
  std::string raw, prev(stride, '\0');
  for (int y = 0; y < h; y++) {
    std::string row(stride, '\0');
    for (int x = 0; x < w; x++) {
      uint32_t p = c.At(x, y);
      if (paletted) {
        row[size_t(x)] = char(index[p]);
      } else {
        row[size_t(x) * 3] = char(p >> 16);
        row[size_t(x) * 3 + 1] = char(p >> 8);
        row[size_t(x) * 3 + 2] = char(p);
      }
    }
    raw.push_back(2);  // filter: Up
    for (size_t i = 0; i < stride; i++) raw.push_back(char(uint8_t(row[i]) - uint8_t(prev[i])));
    prev = row;
  }
  uint32_t a = 1, b = 0;  // Adler-32 of the raw data (zlib trailer)
  for (unsigned char ch : raw) {
    a = (a + ch) % 65521;
    b = (b + a) % 65521;
  }
  std::string z = "\x78\x01";
  z += Deflate(raw);
  PutBE32(&z, (b << 16) | a);

  std::string png = "\x89PNG\r\n\x1a\n";
  std::string ihdr;
  PutBE32(&ihdr, uint32_t(w));
  PutBE32(&ihdr, uint32_t(h));
  ihdr += std::string{char(8), char(paletted ? 3 : 2), 0, 0, 0};
  Chunk(&png, "IHDR", ihdr);
  if (paletted) {
    std::string plte;
    for (uint32_t p : palette) plte += std::string{char(p >> 16), char(p >> 8), char(p)};
    Chunk(&png, "PLTE", plte);
  }
  Chunk(&png, "IDAT", z);
  Chunk(&png, "IEND", "");
  return png;
}

bool WriteFileAtomic(const std::string& path, const std::string& data, std::string* err) {
  std::string tmp = path + ".tmp";
  // A fresh file, never through a link someone left at the temporary name.
  ::unlink(tmp.c_str());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    *err = "create " + tmp + ": " + std::strerror(errno);
    return false;
  }
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *err = "write " + tmp + ": " + std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      return false;
    }
    off += size_t(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    *err = "sync " + tmp + ": " + std::strerror(errno);
    ::unlink(tmp.c_str());
    return false;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    *err = "rename " + tmp + " to " + path + ": " + std::strerror(errno);
    ::unlink(tmp.c_str());
    return false;
  }
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return true;
}

}  // namespace sim
