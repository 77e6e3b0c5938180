// EVENT messages (spec §13): chunking of outgoing JSON into frames and the
// reassembly of incoming chunks keyed by message id, with the discard rules
// of §13.2/§13.3 (a bad message costs only itself).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "json.h"
#include "wire.h"

namespace sc {

constexpr size_t kMaxEventMessage = 65536;

enum class EventError : uint8_t {
  None,
  ZeroId,            // "event stream ID must not be zero"
  FirstSequence,     // "first event sequence must be zero"
  NoStart,           // "event continuation has no start chunk"
  SequenceMismatch,  // "event sequence mismatch"
  TooLarge,          // "event is too large"
  InvalidUtf8,       // "event is not valid UTF-8"
  NotEvent,
};
const char* EventErrorText(EventError e);

// EventReassembler keeps up to kSlots partial messages; a START for a new id
// when all slots are busy evicts the oldest one.
class EventReassembler {
 public:
  static constexpr size_t kSlots = 4;
  struct Result {
    EventError error = EventError::None;
    bool complete = false;  // message holds a whole, UTF-8-valid message
    uint16_t id = 0;
    std::string message;
  };
  Result Push(const Frame& f);
  void Reset();
  size_t pendingCount() const;

 private:
  struct Slot {
    bool used = false;
    uint16_t id = 0;
    uint32_t next = 0;
    uint32_t age = 0;
    std::string data;
  };
  Slot* find(uint16_t id);
  Slot slots_[kSlots];
  uint32_t clock_ = 0;
};

// EventChunker splits a message into frames of at most maxPayload bytes.
// Visit calls fn(const Frame&) for each chunk in order; false if the message
// is too large or maxPayload is 0.
template <typename Fn>
bool ChunkEvent(uint16_t id, const uint8_t* msg, size_t len, size_t maxPayload, Fn&& fn) {
  if (id == 0 || len > kMaxEventMessage || maxPayload == 0) return false;
  if (maxPayload > kMaxPayload) maxPayload = kMaxPayload;
  size_t off = 0;
  uint32_t seq = 0;
  do {
    size_t n = len - off < maxPayload ? len - off : maxPayload;
    Frame f;
    f.type = uint8_t(Type::Event);
    f.stream = id;
    f.sequence = seq++;
    f.flags = uint16_t((off == 0 ? kEventStart : 0) | (off + n == len ? kEventEnd : 0));
    f.payload = msg + off;
    f.length = uint32_t(n);
    fn(f);
    off += n;
  } while (off < len);
  return true;
}

inline size_t EventFrameCount(size_t len, size_t maxPayload) {
  return len == 0 ? 1 : (len + maxPayload - 1) / maxPayload;
}

}  // namespace sc
