#include "frame_queue.h"

#include <cstring>

#include "ports.h"

namespace sc {

FrameQueue::FrameQueue(size_t capacity, size_t reserve, size_t maxFrames)
    : buf_(capacity + reserve + kMaxFrame), capacity_(capacity), maxFrames_(maxFrames) {
  metas_.reserve(maxFrames + 8);
}

bool FrameQueue::Push(const Frame& f, bool control) {
  if (f.length > kMaxPayload) return false;
  size_t n = kOverhead + f.length;
  size_t limit = control ? buf_.size() - kMaxFrame : capacity_;
  if (bytes() + n > limit || metas_.size() >= maxFrames_ + (control ? 8 : 0)) return false;
  if (used_ + n > buf_.size()) compact();
  if (Encode(f, buf_.data() + used_, buf_.size() - used_) != n) return false;
  metas_.push_back(Meta{used_, n, f.type, f.type == 0 ? f.flags : uint16_t(0), f.stream});
  used_ += n;
  return true;
}

bool FrameQueue::PushEncoded(const uint8_t* data, size_t n, uint8_t type, uint16_t code, uint16_t stream,
                             bool control) {
  size_t limit = control ? buf_.size() - kMaxFrame : capacity_;
  if (bytes() + n > limit || metas_.size() >= maxFrames_ + (control ? 8 : 0)) return false;
  if (used_ + n > buf_.size()) compact();
  std::memcpy(buf_.data() + used_, data, n);
  metas_.push_back(Meta{used_, n, type, code, stream});
  used_ += n;
  return true;
}

void FrameQueue::compact() {
  if (head_ == 0) return;
  std::memmove(buf_.data(), buf_.data() + head_, used_ - head_);
  for (auto& m : metas_) m.off -= head_;
  used_ -= head_;
  head_ = 0;
}

size_t FrameQueue::Pump(Transport& t) {
  size_t total = 0;
  while (!metas_.empty()) {
    Meta& m = metas_.front();
    size_t n = t.Write(buf_.data() + m.off + sent_, m.len - sent_);
    total += n;
    sent_ += n;
    if (sent_ < m.len) break;
    head_ = m.off + m.len;
    sent_ = 0;
    metas_.erase(metas_.begin());
  }
  if (metas_.empty()) head_ = used_ = 0;
  return total;
}

size_t FrameQueue::Drop(uint8_t type, uint16_t stream, uint16_t code) {
  size_t dropped = 0;
  for (size_t i = sent_ > 0 ? 1 : 0; i < metas_.size();) {
    Meta m = metas_[i];
    bool match = m.type == type && m.stream == stream && (code == 0 || m.code == code);
    if (!match) { i++; continue; }
    std::memmove(buf_.data() + m.off, buf_.data() + m.off + m.len, used_ - m.off - m.len);
    used_ -= m.len;
    for (size_t j = i + 1; j < metas_.size(); j++) metas_[j].off -= m.len;
    metas_.erase(metas_.begin() + long(i));
    dropped++;
  }
  if (metas_.empty()) head_ = used_ = sent_ = 0;
  return dropped;
}

size_t FrameQueue::DropType(uint8_t type) {
  size_t dropped = 0;
  for (size_t i = sent_ > 0 ? 1 : 0; i < metas_.size();) {
    if (metas_[i].type != type) { i++; continue; }
    dropped += Drop(type, metas_[i].stream, metas_[i].code);
  }
  return dropped;
}

void FrameQueue::Clear() {
  metas_.clear();
  head_ = used_ = sent_ = 0;
}

bool FrameQueue::Front(const uint8_t** data, size_t* len, uint8_t* type, uint16_t* code, uint16_t* stream) const {
  if (metas_.empty() || sent_ > 0) return false;
  const Meta& m = metas_.front();
  *data = buf_.data() + m.off;
  *len = m.len;
  *type = m.type;
  *code = m.code;
  *stream = m.stream;
  return true;
}

void FrameQueue::PopFront() {
  if (metas_.empty() || sent_ > 0) return;
  head_ = metas_.front().off + metas_.front().len;
  metas_.erase(metas_.begin());
  if (metas_.empty()) head_ = used_ = 0;
}

}  // namespace sc
