#include "wire.h"

#include <cstring>

namespace sc {

namespace {
struct CrcTable {
  uint32_t t[256];
  constexpr CrcTable() : t() {
    for (uint32_t i = 0; i < 256; i++) {
      uint32_t c = i;
      for (int k = 0; k < 8; k++) c = (c & 1) ? (0xEDB88320u ^ (c >> 1)) : (c >> 1);
      t[i] = c;
    }
  }
};
constexpr CrcTable kCrc;
}  // namespace

uint32_t Crc32(const uint8_t* data, size_t len, uint32_t crc) {
  crc = ~crc;
  for (size_t i = 0; i < len; i++) crc = kCrc.t[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

size_t Encode(const Frame& f, uint8_t* out, size_t cap) {
  if (f.length > kMaxPayload || f.type > kMaxType) return 0;
  if (f.length > 0 && f.payload == nullptr) return 0;
  size_t n = kOverhead + f.length;
  if (cap < n) return 0;
  PutU16(out, kMagic);
  out[2] = kVersion;
  out[3] = f.type;
  PutU16(out + 4, f.flags);
  PutU16(out + 6, f.stream);
  PutU32(out + 8, f.sequence);
  PutU32(out + 12, f.sampleRate);
  PutU32(out + 16, f.length);
  if (f.length) std::memmove(out + kHeaderSize, f.payload, f.length);
  PutU32(out + kHeaderSize + f.length, Crc32(out, kHeaderSize + f.length));
  return n;
}

const char* DecodeErrorName(DecodeError e) {
  switch (e) {
    case DecodeError::None: return "ok";
    case DecodeError::Short: return "short frame";
    case DecodeError::Magic: return "bad magic";
    case DecodeError::Version: return "bad version";
    case DecodeError::Type: return "bad type";
    case DecodeError::Length: return "bad length";
    case DecodeError::Crc: return "crc mismatch";
    case DecodeError::Trailing: return "trailing bytes";
  }
  return "unknown";
}

DecodeError Decode(const uint8_t* d, size_t len, Frame* out) {
  if (len < kOverhead) return DecodeError::Short;
  if (GetU16(d) != kMagic) return DecodeError::Magic;
  if (d[2] != kVersion) return DecodeError::Version;
  if (d[3] > kMaxType) return DecodeError::Type;
  uint32_t n = GetU32(d + 16);
  if (n > kMaxPayload) return DecodeError::Length;
  if (len < kOverhead + n) return DecodeError::Short;
  if (len > kOverhead + n) return DecodeError::Trailing;
  if (Crc32(d, kHeaderSize + n) != GetU32(d + kHeaderSize + n)) return DecodeError::Crc;
  out->type = d[3];
  out->flags = GetU16(d + 4);
  out->stream = GetU16(d + 6);
  out->sequence = GetU32(d + 8);
  out->sampleRate = GetU32(d + 12);
  out->length = n;
  out->payload = d + kHeaderSize;
  return DecodeError::None;
}

void Parser::Reset() {
  start_ = end_ = consume_ = 0;
  stats_ = ParserStats{};
  arrivalCount_ = 0;
  base_ = 0;
  now_ = 0;
  clock_ = false;
}

void Parser::Compact() {
  if (start_ == 0) return;
  std::memmove(buf_, buf_ + start_, end_ - start_);
  end_ -= start_;
  start_ = 0;
}

// Advance consumes n bytes: they are a frame taken or garbage skipped.
void Parser::Advance(size_t n) {
  start_ += n;
  base_ += n;
  size_t k = 0;
  while (k < arrivalCount_ && arrivals_[k].end <= base_) k++;
  if (k == 0) return;
  for (size_t i = k; i < arrivalCount_; i++) arrivals_[i - k] = arrivals_[i];
  arrivalCount_ -= k;
}

void Parser::Skip(size_t n) {
  Advance(n);
  stats_.skippedBytes += n;
}

// setNow keeps the latest time: one before it (a wrap-safe comparison)
// counts as it, so a clock stepping back cannot extend a wait.
void Parser::setNow(uint32_t now) {
  if (!clock_ || int32_t(now - now_) > 0) now_ = now;
  clock_ = true;
}

// stale reports whether the partial frame at start_ has waited long enough.
bool Parser::stale() const {
  if (!clock_) return false;
  for (size_t i = 0; i < arrivalCount_; i++) {
    if (arrivals_[i].end > base_) return arrivals_[i].timed && uint32_t(now_ - arrivals_[i].at) >= kStaleAfterMs;
  }
  return false;
}

size_t Parser::feed(const uint8_t* data, size_t len, bool timed, uint32_t now) {
  if (timed) setNow(now);
  if (consume_) {  // the caller is done with the last frame's payload
    Advance(consume_);
    consume_ = 0;
  }
  if (start_ == end_) start_ = end_ = 0;
  if (kBuf - end_ < len) Compact();
  size_t n = kBuf - end_;
  if (n > len) n = len;
  if (n) std::memcpy(buf_ + end_, data, n);
  end_ += n;
  if (n) {
    Arrival a{base_ + (end_ - start_), now_, timed};
    Arrival* last = arrivalCount_ ? &arrivals_[arrivalCount_ - 1] : nullptr;
    if (last && last->timed == a.timed && last->at == a.at) last->end = a.end;
    else if (arrivalCount_ == kArrivals) *last = a;
    else arrivals_[arrivalCount_++] = a;
  }
  return n;
}

bool Parser::Next(Frame* out) {
  if (consume_) {
    Advance(consume_);
    consume_ = 0;
  }
  for (;;) {
    size_t avail = end_ - start_;
    if (avail < kOverhead) return false;  // step 1
    const uint8_t* p = buf_ + start_;
    size_t i = 0;  // step 2
    while (i + 1 < avail && !(p[i] == 0x43 && p[i + 1] == 0x53)) i++;
    if (i + 1 >= avail) {  // no magic: keep only the last byte
      Skip(avail - 1);
      return false;
    }
    if (i > 0) {
      Skip(i);
      continue;  // step 3 re-checks the length
    }
    if (p[2] != kVersion || p[3] > kMaxType) {  // step 4
      stats_.badHeaders++;
      Skip(1);
      continue;
    }
    uint32_t n = GetU32(p + 16);
    if (n > kMaxPayload) {  // step 5
      stats_.badHeaders++;
      Skip(1);
      continue;
    }
    if (avail < kOverhead + n) {  // step 6: the rest of the frame must fit
      if (stale()) {  // ...unless its sender was cut off mid-frame
        stats_.stale++;
        Skip(1);
        continue;
      }
      if (start_ + kOverhead + n > kBuf) Compact();
      return false;
    }
    if (Crc32(p, kHeaderSize + n) != GetU32(p + kHeaderSize + n)) {  // step 7
      stats_.crcErrors++;
      Skip(1);
      continue;
    }
    out->type = p[3];
    out->flags = GetU16(p + 4);
    out->stream = GetU16(p + 6);
    out->sequence = GetU32(p + 8);
    out->sampleRate = GetU32(p + 12);
    out->length = n;
    out->payload = p + kHeaderSize;
    consume_ = kOverhead + n;
    stats_.frames++;
    return true;
  }
}

void EncodeHelloPayload(const Hello& h, uint8_t out[8]) {
  PutU32(out, h.maxPayload);
  PutU32(out + 4, h.capabilities);
}

bool DecodeHelloPayload(const uint8_t* p, size_t len, Hello* out) {
  if (len != 8) return false;
  out->maxPayload = GetU32(p);
  out->capabilities = GetU32(p + 4);
  return true;
}

}  // namespace sc
