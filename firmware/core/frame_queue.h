// FrameQueue holds encoded outgoing frames in one buffer allocated at
// construction (no heap per frame). A frame partly written to the transport
// is always completed: Drop never removes it (spec §12.4).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "wire.h"

namespace sc {

class Transport;

class FrameQueue {
 public:
  // capacity: bytes for ordinary frames; reserve: extra room only control
  // frames may use, so an ERROR can still be queued when media filled it.
  FrameQueue(size_t capacity, size_t reserve, size_t maxFrames);

  bool Push(const Frame& f, bool control = false);
  bool PushEncoded(const uint8_t* data, size_t len, uint8_t type, uint16_t code, uint16_t stream, bool control);
  // Pump writes as much as the transport takes; returns bytes written.
  size_t Pump(Transport& t);
  // Drop removes queued frames of a type (and control code, for CONTROL;
  // code 0 = any) on a stream, except one already partly written.
  size_t Drop(uint8_t type, uint16_t stream, uint16_t code = 0);
  size_t DropType(uint8_t type);
  void Clear();

  bool empty() const { return metas_.empty(); }
  size_t frames() const { return metas_.size(); }
  size_t bytes() const { return used_ - head_; }
  size_t room() const { return capacity_ > bytes() ? capacity_ - bytes() : 0; }
  bool Fits(size_t frameBytes, size_t frameCount) const {
    return bytes() + frameBytes <= capacity_ && metas_.size() + frameCount <= maxFrames_;
  }
  // Front exposes the oldest frame (not partly written) for moving it.
  bool Front(const uint8_t** data, size_t* len, uint8_t* type, uint16_t* code, uint16_t* stream) const;
  void PopFront();

 private:
  struct Meta {
    size_t off, len;
    uint8_t type;
    uint16_t code, stream;
  };
  void compact();
  std::vector<uint8_t> buf_;
  std::vector<Meta> metas_;
  size_t capacity_, maxFrames_;
  size_t head_ = 0;  // offset of the first byte not yet fully consumed
  size_t used_ = 0;
  size_t sent_ = 0;  // bytes of the front frame already written
};

}  // namespace sc
