#include "media.h"

#include <cstring>

#include "json.h"

namespace sc {

const char* ResultName(Result r) {
  switch (r) {
    case Result::Accepted: return "accepted";
    case Result::Idempotent: return "idempotent";
    case Result::Stale: return "stale";
    case Result::Invalid: return "invalid";
    case Result::Busy: return "busy";
  }
  return "?";
}

namespace {
Outcome out(Result r, uint32_t e = kErrNone) {
  Outcome o;
  o.result = r;
  o.error = e;
  return o;
}
bool micValid(uint16_t id, uint32_t rate, size_t len) { return id != 0 && rate == kMicRate && len == 0; }
}  // namespace

Outcome MicGuard::Start(uint16_t id, uint32_t rate, size_t len, bool busy) {
  if (!micValid(id, rate, len)) return out(Result::Invalid, kErrInvalidStreamData);
  if (busy || (id_ != 0 && id_ != id)) return out(Result::Busy, kErrBusy);
  if (id_ == id) return out(Result::Idempotent);  // caller re-sends MIC_STARTED if started()
  id_ = id;
  started_ = false;
  seq_ = 0;
  return out(Result::Accepted);
}

bool MicGuard::CaptureStarted() {
  if (id_ == 0 || started_) return false;
  started_ = true;
  return true;
}

Outcome MicGuard::Stop(uint16_t id, uint32_t rate, size_t len) {
  if (!micValid(id, rate, len)) return out(Result::Invalid, kErrInvalidStreamData);
  if (id_ == id) {
    id_ = 0;
    started_ = false;
    last_ = id;
    return out(Result::Accepted);
  }
  if (id_ == 0 && last_ == id) return out(Result::Idempotent);
  return out(Result::Stale);
}

uint16_t MicGuard::ForceStop() {
  uint16_t s = id_;
  if (s == 0) return 0;
  id_ = 0;
  started_ = false;
  last_ = s;
  return s;
}

SpeakerGuard::Check SpeakerGuard::check(uint16_t id, uint32_t rate) const {
  if (id == 0 || !ValidSpeakerRate(rate)) return Check::Invalid;
  if (cur_.id == 0) {
    if (last_.id != 0 && id == last_.id) return rate == last_.rate ? Check::Idempotent : Check::Invalid;
    return Check::Stale;
  }
  if (id != cur_.id) return Check::Stale;
  if (rate != cur_.rate) return Check::Invalid;
  return Check::Ok;
}

void SpeakerGuard::finish() {
  last_ = cur_;
  cur_ = Session();
  ended_ = playing_ = false;
  capacity_ = queued_ = outstanding_ = 0;
  seq_ = 0;
  received_ = written_ = 0;
  head_ = 0;
  for (size_t i = 0; i < ncap_; i++) caps_[(capHead_ + i) % kMaxCaptions].text.clear();
  capHead_ = ncap_ = 0;
}

void SpeakerGuard::Reset() {
  finish();
  last_ = Session();
}

Outcome SpeakerGuard::Start(uint16_t id, uint32_t rate, size_t len, bool busy) {
  if (busy) return out(Result::Busy, kErrBusy);
  if (id == 0 || !ValidSpeakerRate(rate) || len != 0) return out(Result::Invalid, kErrInvalidStreamData);
  if (cur_.id == 0) {
    Session last = last_;
    finish();
    last_ = last;
    cur_ = Session{id, rate};
    capacity_ = size_t(rate) * 2;
    return out(Result::Accepted);
  }
  if (cur_ == Session{id, rate} && !ended_) return out(Result::Idempotent);
  return out(Result::Busy, kErrBusy);
}

Outcome SpeakerGuard::End(uint16_t id, uint32_t rate, size_t len) {
  Check c = check(id, rate);
  if (c == Check::Invalid || (c == Check::Ok && len != 0)) return out(Result::Invalid, kErrInvalidStreamData);
  if (c == Check::Stale) return out(Result::Stale);
  if (c == Check::Idempotent || ended_) return out(Result::Idempotent);
  ended_ = true;
  playing_ = true;  // play even below the prebuffer
  return out(Result::Accepted);
}

Outcome SpeakerGuard::Abort(uint16_t id, uint32_t rate, size_t len) {
  Check c = check(id, rate);
  if (c == Check::Invalid || (c == Check::Ok && len != 0)) return out(Result::Invalid, kErrInvalidStreamData);
  if (c == Check::Stale) return out(Result::Stale);
  if (c == Check::Idempotent) return out(Result::Idempotent);
  finish();
  return out(Result::Accepted);
}

Outcome SpeakerGuard::ValidateData(uint16_t id, uint32_t rate, uint32_t seq, size_t len) const {
  switch (check(id, rate)) {
    case Check::Invalid: return out(Result::Invalid, kErrInvalidStreamData);
    case Check::Stale: return out(Result::Stale);
    case Check::Idempotent: return out(Result::Idempotent);  // [OURS] dropped silently
    case Check::Ok: break;
  }
  if (ended_ || len == 0 || len % 2 != 0 || !WithinCredit(len, outstanding_))
    return out(Result::Invalid, kErrInvalidStreamData);
  if (seq != seq_) return out(Result::Invalid, kErrSpeakerSequenceMismatch);
  if (queued_ + len > capacity_) return out(Result::Invalid, kErrSpeakerBufferOverflow);
  return out(Result::Accepted);
}

Outcome SpeakerGuard::Pcm(uint16_t id, uint32_t rate, uint32_t seq, const uint8_t* data, size_t len) {
  Outcome o = ValidateData(id, rate, seq, len);
  if (o.error != kErrNone) {
    if (cur_.id != 0) finish();
    return o;
  }
  if (o.result != Result::Accepted) return o;
  seq_++;
  outstanding_ -= len;
  size_t tail = (head_ + queued_) % capacity_;
  size_t first = capacity_ - tail < len ? capacity_ - tail : len;
  std::memcpy(ring_ + tail, data, first);
  std::memcpy(ring_, data + first, len - first);
  queued_ += len;
  received_ += len;
  if (queued_ >= capacity_ / 2) playing_ = true;  // 500 ms prebuffer
  return o;
}

Outcome SpeakerGuard::Text(uint16_t id, uint32_t rate, const uint8_t* data, size_t len) {
  Check c = check(id, rate);
  if (c == Check::Stale) return out(Result::Stale);
  if (c == Check::Idempotent) return out(Result::Idempotent);  // [OURS] dropped silently
  if (c == Check::Invalid || ended_ || len == 0 || len > kMaxCaptionBytes)
    return out(Result::Invalid, kErrInvalidRequest);
  if (ncap_ >= kMaxCaptions) return out(Result::Invalid, kErrCaptionQueueOverflow);
  if (!ValidUtf8(data, len)) return out(Result::Invalid, kErrInvalidRequest);
  auto space = [](uint8_t b) { return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\v' || b == '\f'; };
  size_t a = 0, b = len;
  while (a < b && space(data[a])) a++;
  while (b > a && space(data[b - 1])) b--;
  if (a == b) return out(Result::Invalid, kErrInvalidRequest);
  Caption& cap = caps_[(capHead_ + ncap_) % kMaxCaptions];
  cap.at = received_;
  cap.text.assign(reinterpret_cast<const char*>(data + a), b - a);
  ncap_++;
  return out(Result::Accepted);
}

Session SpeakerGuard::ForceStop() {
  Session s = cur_;
  if (s.id) finish();
  return s;
}

bool SpeakerGuard::Clear(uint16_t id) {
  if (id == 0 || cur_.id != id) return false;
  finish();
  return true;
}

uint32_t SpeakerGuard::CreditDue() const {
  if (cur_.id == 0 || ended_) return 0;
  size_t room = capacity_ - queued_;
  size_t want = room < kCreditWindow ? room : kCreditWindow;
  return want > outstanding_ ? uint32_t(want - outstanding_) : 0;
}

size_t SpeakerGuard::Take(uint8_t* dst, size_t max) {
  if (cur_.id == 0 || !playing_) return 0;
  size_t n = queued_ < max ? queued_ : max;
  n &= ~size_t(1);  // whole samples
  size_t first = capacity_ - head_ < n ? capacity_ - head_ : n;
  std::memcpy(dst, ring_ + head_, first);
  std::memcpy(dst + first, ring_, n - first);
  head_ = (head_ + n) % (capacity_ ? capacity_ : 1);
  queued_ -= n;
  written_ += n;
  return n;
}

bool SpeakerGuard::NextCaption(std::string* text) {
  if (ncap_ == 0) return false;
  Caption& c = caps_[capHead_];
  if (c.at >= written_) return false;
  text->swap(c.text);
  c.text.clear();
  capHead_ = (capHead_ + 1) % kMaxCaptions;
  ncap_--;
  return true;
}

}  // namespace sc
