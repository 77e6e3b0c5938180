#include "event.h"

namespace sc {

const char* EventErrorText(EventError e) {
  switch (e) {
    case EventError::None: return "ok";
    case EventError::ZeroId: return "event stream ID must not be zero";
    case EventError::FirstSequence: return "first event sequence must be zero";
    case EventError::NoStart: return "event continuation has no start chunk";
    case EventError::SequenceMismatch: return "event sequence mismatch";
    case EventError::TooLarge: return "event is too large";
    case EventError::InvalidUtf8: return "event is not valid UTF-8";
    case EventError::NotEvent: return "frame is not an EVENT frame";
  }
  return "unknown";
}

EventReassembler::Slot* EventReassembler::find(uint16_t id) {
  for (auto& s : slots_)
    if (s.used && s.id == id) return &s;
  return nullptr;
}

void EventReassembler::Reset() {
  for (auto& s : slots_) {
    s.used = false;
    s.data.clear();
    s.data.shrink_to_fit();
  }
}

size_t EventReassembler::pendingCount() const {
  size_t n = 0;
  for (auto& s : slots_) n += s.used;
  return n;
}

EventReassembler::Result EventReassembler::Push(const Frame& f) {
  Result r;
  r.id = f.stream;
  if (f.type != uint8_t(Type::Event)) { r.error = EventError::NotEvent; return r; }
  if (f.stream == 0) { r.error = EventError::ZeroId; return r; }
  Slot* s = find(f.stream);
  if (f.flags & kEventStart) {
    if (f.sequence != 0) { r.error = EventError::FirstSequence; return r; }
    if (!s) {
      for (auto& c : slots_)
        if (!c.used) { s = &c; break; }
      if (!s) {  // evict the oldest partial message
        s = &slots_[0];
        for (auto& c : slots_)
          if (c.age < s->age) s = &c;
      }
    }
    s->used = true;
    s->id = f.stream;
    s->next = 0;
    s->age = ++clock_;
    s->data.clear();
  } else if (!s) {
    r.error = EventError::NoStart;
    return r;
  }
  auto drop = [&](EventError e) {
    s->used = false;
    s->data.clear();
    r.error = e;
    return r;
  };
  if (f.sequence != s->next) return drop(EventError::SequenceMismatch);
  if (s->data.size() + f.length > kMaxEventMessage) return drop(EventError::TooLarge);
  s->data.append(reinterpret_cast<const char*>(f.payload), f.length);
  s->next++;
  if (f.flags & kEventEnd) {
    r.message.swap(s->data);
    s->used = false;
    if (!ValidUtf8(r.message)) {
      r.message.clear();
      r.error = EventError::InvalidUtf8;
      return r;
    }
    r.complete = true;
  }
  return r;
}

}  // namespace sc
