// Wire v2 of the Stack-chan dock protocol (spec §2-§7): constants, CRC-32,
// the frame codec and the resynchronising stream parser of §4.
//
// Portable C++17: no Arduino or M5 header, no heap per frame. The parser owns
// one fixed buffer of two maximum frames, so a frame can always be completed
// while the next read is already arriving.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sc {

constexpr uint16_t kMagic = 0x5343;  // "CS" on the wire
constexpr uint8_t kVersion = 2;
constexpr size_t kHeaderSize = 20;
constexpr size_t kCrcSize = 4;
constexpr size_t kOverhead = kHeaderSize + kCrcSize;
constexpr size_t kMaxPayload = 4096;
constexpr size_t kMaxFrame = kMaxPayload + kOverhead;  // 4120
constexpr uint32_t kMinHostMaxPayload = 640;           // one 20 ms mic frame

enum class Type : uint8_t {
  Control = 0,
  MicrophonePcm = 1,
  SpeakerPcm = 2,
  Expression = 3,
  Motion = 4,
  Diagnostics = 5,
  Event = 6,
};
constexpr uint8_t kMaxType = 6;

enum Control : uint16_t {
  kHello = 1,
  kHelloAck = 2,
  kError = 3,
  kMicStart = 16,
  kMicStarted = 17,
  kMicStop = 18,
  kMicStopped = 19,
  kSpeakerStart = 32,
  kSpeakerCredit = 33,
  kSpeakerEnd = 34,
  kSpeakerDone = 35,
  kSpeakerAbort = 36,
  kSpeakerText = 37,
  kStatus = 48,
};

enum ErrorCode : uint32_t {
  kErrNone = 0,
  kErrInvalidRequest = 1,
  kErrInvalidStreamData = 2,
  kErrTransportOverflow = 3,
  kErrAudioOutput = 4,
  kErrBusy = 5,
  kErrSpeakerSequenceMismatch = 6,
  kErrSpeakerBufferOverflow = 7,
  kErrCaptionQueueOverflow = 8,
};

// Capability bits (§7).
enum Cap : uint32_t {
  kCapMicrophonePcm = 1u << 0,
  kCapSpeakerPcm = 1u << 1,
  kCapSpeakerCredit = 1u << 2,
  kCapRate8000 = 1u << 3,
  kCapRate16000 = 1u << 4,
  kCapRate24000 = 1u << 5,
  kCapSpeakerText = 1u << 6,
  kCapDiagnostics = 1u << 7,
  kCapStatusIcon = 1u << 8,
  kCapStreamId = 1u << 9,
  kCapEvent = 1u << 10,
  kCapStatusExtended = 1u << 11,
};
constexpr uint32_t kFirmwareCaps = 0xF7F;        // release build
constexpr uint32_t kFirmwareCapsDiag = 0xFFF;    // diagnostic build

// EVENT flags (§13.1).
constexpr uint16_t kEventStart = 1;
constexpr uint16_t kEventEnd = 2;

// Frame is a decoded frame. payload points into the buffer it was decoded
// from (or the caller's data when encoding) and is not owned.
struct Frame {
  uint8_t type = 0;
  uint16_t flags = 0;
  uint16_t stream = 0;
  uint32_t sequence = 0;
  uint32_t sampleRate = 0;
  const uint8_t* payload = nullptr;
  uint32_t length = 0;
};

// Crc32 is the IEEE 802.3 / zlib CRC-32; pass the previous value to continue.
uint32_t Crc32(const uint8_t* data, size_t len, uint32_t crc = 0);

inline uint16_t GetU16(const uint8_t* p) { return uint16_t(p[0] | (p[1] << 8)); }
inline uint32_t GetU32(const uint8_t* p) {
  return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
}
inline void PutU16(uint8_t* p, uint16_t v) { p[0] = uint8_t(v); p[1] = uint8_t(v >> 8); }
inline void PutU32(uint8_t* p, uint32_t v) {
  p[0] = uint8_t(v); p[1] = uint8_t(v >> 8); p[2] = uint8_t(v >> 16); p[3] = uint8_t(v >> 24);
}

// Encode writes f into out (at least kOverhead + f.length bytes) and returns
// the frame size, or 0 if f cannot be encoded (payload above 4096, type above 6).
size_t Encode(const Frame& f, uint8_t* out, size_t cap);

enum class DecodeError : uint8_t { None, Short, Magic, Version, Type, Length, Crc, Trailing };
const char* DecodeErrorName(DecodeError e);

// Decode parses exactly one frame occupying all of data[0..len).
DecodeError Decode(const uint8_t* data, size_t len, Frame* out);

// Why the parser discarded bytes (§4 steps 2, 4, 5, 7, and the stale
// partial frame of the cut-off frame extension, firmware/README.md).
enum class SkipReason : uint8_t { NoMagic, BadVersion, BadType, Oversize, Crc, Stale };

// kStaleAfterMs: a partial frame still incomplete this long after its first
// byte arrived is a cut-off frame (its sender restarted mid-write) and is
// skipped one byte at a time like a CRC failure. The largest frame takes
// about 4 ms at USB full speed; the host's parser uses the same 500 ms
// (protocols/stackchan/wire StaleAfter).
constexpr uint32_t kStaleAfterMs = 500;

struct ParserStats {
  uint64_t frames = 0;
  uint64_t skippedBytes = 0;
  uint64_t crcErrors = 0;
  uint64_t badHeaders = 0;
  uint64_t stale = 0;  // partial frames given up on after kStaleAfterMs
};

// Parser is the §4 algorithm over a fixed buffer. Feed bytes, then call Next
// until it returns false; the frame's payload is valid until the next Feed,
// Next or Reset. Feed never drops input: it takes as much as fits and returns
// the count, so a caller loops (FeedAll does this with a callback).
//
// On a live link, feed with the time (a uint32 millisecond clock; wrapping
// is fine) and call Expire from the loop's tick, then drain Next: a partial
// frame waited for kStaleAfterMs since its first byte is given up on, so a
// header cut short cannot swallow the next HELLO. Bytes fed without a time
// never go stale (tests, captures), exactly as plain §4.
class Parser {
 public:
  // Feed appends up to len bytes and returns how many it took. It only
  // refuses bytes while a complete frame is waiting to be taken with Next.
  size_t Feed(const uint8_t* data, size_t len) { return feed(data, len, false, 0); }
  size_t Feed(const uint8_t* data, size_t len, uint32_t now) { return feed(data, len, true, now); }
  // Expire tells the parser the time without bytes; drain Next after it.
  void Expire(uint32_t now) { setNow(now); }
  // Next emits the next frame, discarding garbage per §4.
  bool Next(Frame* out);
  void Reset();
  const ParserStats& stats() const { return stats_; }
  size_t pending() const { return end_ - start_; }

  // FeedAll feeds everything, calling fn(const Frame&) for each frame.
  template <typename Fn>
  void FeedAll(const uint8_t* data, size_t len, Fn&& fn) {
    feedAll(data, len, false, 0, fn);
  }
  template <typename Fn>
  void FeedAll(const uint8_t* data, size_t len, uint32_t now, Fn&& fn) {
    feedAll(data, len, true, now, fn);
  }

 private:
  template <typename Fn>
  void feedAll(const uint8_t* data, size_t len, bool timed, uint32_t now, Fn& fn) {
    Frame f;
    while (true) {
      size_t n = feed(data, len, timed, now);
      data += n;
      len -= n;
      while (Next(&f)) fn(f);
      if (len == 0) return;
    }
  }
  size_t feed(const uint8_t* data, size_t len, bool timed, uint32_t now);
  void setNow(uint32_t now);
  bool stale() const;
  void Compact();
  void Advance(size_t n);
  void Skip(size_t n);
  static constexpr size_t kBuf = 2 * kMaxFrame;
  uint8_t buf_[kBuf];
  size_t start_ = 0;
  size_t end_ = 0;
  size_t consume_ = 0;  // bytes of the frame last returned by Next
  ParserStats stats_;

  // When the pending bytes arrived: the stream offset just past each read
  // and its time. Fixed size: when full, the newest entry absorbs the next
  // read and takes its later time, which can only delay going stale.
  struct Arrival {
    uint64_t end;
    uint32_t at;
    bool timed;
  };
  static constexpr size_t kArrivals = 16;
  Arrival arrivals_[kArrivals];
  size_t arrivalCount_ = 0;
  uint64_t base_ = 0;  // stream offset of buf_[start_]
  uint32_t now_ = 0;   // the latest time fed; meaningful once clock_
  bool clock_ = false;
};

// kFillLen is the host's fill (README "Cut-off frames"): kMaxFrame zero bytes
// ahead of HELLO complete any partial frame a §4 parser still holds, and
// are then discarded as garbage (zeros never contain the magic).
constexpr size_t kFillLen = kMaxFrame;

// Control payload helpers.
struct Hello {
  uint32_t maxPayload = 0;
  uint32_t capabilities = 0;
};
void EncodeHelloPayload(const Hello& h, uint8_t out[8]);
bool DecodeHelloPayload(const uint8_t* p, size_t len, Hello* out);

// Negotiation (§9.3, §9.4, vectors negotiation-vectors.json).
inline bool EventReady(uint32_t hostCaps, uint32_t fwCaps) {
  return (hostCaps & kCapEvent) && (fwCaps & kCapEvent);
}
inline bool HostMaySendEvent(uint32_t fwCaps) { return fwCaps & kCapEvent; }
inline bool FirmwareMaySendEvent(uint32_t hostCaps) { return hostCaps & kCapEvent; }
inline bool HostMaySendExtendedStatus(uint32_t fwCaps) { return fwCaps & kCapStatusExtended; }
enum class HostPolicy : uint8_t { Android, Codex };
inline bool ConnectionAllowed(HostPolicy p, bool fwEvent) { return p == HostPolicy::Android || fwEvent; }

inline bool ValidSpeakerRate(uint32_t r) { return r == 8000 || r == 16000 || r == 24000; }
constexpr uint32_t kMicRate = 16000;
constexpr size_t kMicFrameBytes = 640;

}  // namespace sc
