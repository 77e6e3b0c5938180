#include "wav.h"

#include <fstream>
#include <iterator>

namespace sim {

namespace {
uint32_t U32(const uint8_t* p) { return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24; }
uint16_t U16(const uint8_t* p) { return uint16_t(p[0] | p[1] << 8); }
}  // namespace

bool ParseWav16kMono(const std::vector<uint8_t>& d, std::vector<int16_t>* out, std::string* err) {
  if (d.size() < 12 || std::string(d.begin(), d.begin() + 4) != "RIFF" || std::string(d.begin() + 8, d.begin() + 12) != "WAVE") {
    *err = "not a RIFF/WAVE file";
    return false;
  }
  bool fmt = false;
  size_t off = 12;
  while (off + 8 <= d.size()) {
    std::string id(d.begin() + long(off), d.begin() + long(off) + 4);
    uint32_t len = U32(&d[off + 4]);
    size_t body = off + 8;
    if (len > d.size() - body) len = uint32_t(d.size() - body);
    if (id == "fmt " && len >= 16) {
      uint16_t format = U16(&d[body]), channels = U16(&d[body + 2]), bits = U16(&d[body + 14]);
      uint32_t rate = U32(&d[body + 4]);
      if (format != 1 || channels != 1 || rate != 16000 || bits != 16) {
        *err = "need 16-bit PCM mono at 16000 Hz (got format " + std::to_string(format) + ", " + std::to_string(channels) +
               " ch, " + std::to_string(rate) + " Hz, " + std::to_string(bits) + " bit)";
        return false;
      }
      fmt = true;
    } else if (id == "data") {
      if (!fmt) {
        *err = "data chunk before fmt chunk";
        return false;
      }
      out->clear();
      for (size_t i = 0; i + 1 < len; i += 2) out->push_back(int16_t(U16(&d[body + i])));
      if (out->empty()) *err = "no samples";
      return !out->empty();
    }
    off = body + len + (len & 1);
  }
  *err = "no data chunk";
  return false;
}

bool LoadWav16kMono(const std::string& path, std::vector<int16_t>* out, std::string* err) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    *err = "cannot open";
    return false;
  }
  std::vector<uint8_t> d((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return ParseWav16kMono(d, out, err);
}

}  // namespace sim
