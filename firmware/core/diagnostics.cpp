#include "diagnostics.h"

#include "wire.h"

namespace sc {

void EncodeDiagnostics(const DiagSnapshot& s, uint8_t out[kDiagPayloadBytes]) {
  out[0] = kDiagVersion;
  out[1] = uint8_t(s.event);
  PutU16(out + 2, s.flags);
  const uint32_t fields[] = {s.ticksMs,        s.sampleRate,        s.queuedBytes,      s.writableBytes,
                             s.receivedBytes,  s.writtenBytes,      s.receivedFrames,   s.writableCallbacks,
                             s.starvationEvents, s.maxReceiveGapMs, s.maxWritableGapMs, s.txQueueBytes};
  static_assert(4 + sizeof fields == kDiagPayloadBytes, "DIAGNOSTICS payload is 52 bytes");
  for (size_t i = 0; i < 12; i++) PutU32(out + 4 + 4 * i, fields[i]);
}

bool DecodeDiagnostics(const uint8_t* p, size_t len, DiagSnapshot* out) {
  if (len != kDiagPayloadBytes || p[0] != kDiagVersion) return false;
  DiagSnapshot s;
  s.event = DiagEvent(p[1]);
  s.flags = GetU16(p + 2);
  uint32_t* fields[] = {&s.ticksMs,        &s.sampleRate,        &s.queuedBytes,      &s.writableBytes,
                        &s.receivedBytes,  &s.writtenBytes,      &s.receivedFrames,   &s.writableCallbacks,
                        &s.starvationEvents, &s.maxReceiveGapMs, &s.maxWritableGapMs, &s.txQueueBytes};
  for (size_t i = 0; i < 12; i++) *fields[i] = GetU32(p + 4 + 4 * i);
  *out = s;
  return true;
}

void SpeakerCounters::Begin(uint32_t now) {
  *this = SpeakerCounters();
  next_ = now + kDiagIntervalMs;
}

void SpeakerCounters::OnPcm(size_t bytes, uint32_t now) {
  if (receivedFrames_ > 0) {
    uint32_t gap = now - lastPcm_;
    if (gap > maxReceiveGap_) maxReceiveGap_ = gap;
  }
  lastPcm_ = now;
  receivedBytes_ += uint32_t(bytes);
  receivedFrames_++;
}

void SpeakerCounters::OnWritable(uint32_t now) {
  if (writableCallbacks_ > 0) {
    uint32_t gap = now - lastWritable_;
    if (gap > maxWritableGap_) maxWritableGap_ = gap;
  }
  lastWritable_ = now;
  writableCallbacks_++;
}

void SpeakerCounters::SetStarving(bool starving) {
  if (starving && !starving_) starvationEvents_++;
  starving_ = starving;
}

bool SpeakerCounters::PeriodicDue(uint32_t now) {
  if (int32_t(now - next_) < 0) return false;
  // One report per slot: after a stall the missed slots are skipped, and
  // the grid stays where it was.
  while (int32_t(now - next_) >= 0) next_ += kDiagIntervalMs;
  return true;
}

}  // namespace sc
