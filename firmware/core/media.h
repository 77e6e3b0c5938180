// Media session guards (spec §10-§12): the microphone and speaker state
// machines of the firmware. They decide; the Device sends the frames and
// drives the audio hardware. Results use the contract's words
// (media-session-v2.json): accepted, idempotent, stale, invalid, plus busy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "wire.h"

namespace sc {

enum class Result : uint8_t { Accepted, Idempotent, Stale, Invalid, Busy };
const char* ResultName(Result r);

struct Outcome {
  Result result = Result::Accepted;
  uint32_t error = kErrNone;  // ERROR code to send on the frame's stream, 0 = none
};

struct Session {
  uint16_t id = 0;
  uint32_t rate = 0;
  bool operator==(const Session& o) const { return id == o.id && rate == o.rate; }
};

// MicGuard: IDLE(last) or ACTIVE(id, started) (§11.3).
class MicGuard {
 public:
  // busy: a speaker session exists or media is disabled.
  Outcome Start(uint16_t id, uint32_t rate, size_t payloadLen, bool busy);
  // Stop: on Accepted or Idempotent the caller sends MIC_STOPPED(id).
  Outcome Stop(uint16_t id, uint32_t rate, size_t payloadLen);
  // CaptureStarted: true if MIC_STARTED must be sent now.
  bool CaptureStarted();
  // NextSequence for the next MICROPHONE_PCM frame (only while started).
  uint32_t NextSequence() { return seq_++; }
  // ForceStop without MIC_STOPPED; the id stays "last stopped". Returns it.
  uint16_t ForceStop();
  void Reset() { *this = MicGuard(); }
  uint16_t active() const { return id_; }
  bool started() const { return id_ != 0 && started_; }
  uint16_t last() const { return last_; }

 private:
  uint16_t id_ = 0;
  bool started_ = false;
  uint16_t last_ = 0;
  uint32_t seq_ = 0;
};

constexpr size_t kCreditWindow = 8192;
constexpr size_t kMaxCaptions = 16;
constexpr size_t kMaxCaptionBytes = 1024;
constexpr size_t kMaxSpeakerQueue = 48000;  // 1 s at 24 kHz

// WithinCredit is the boundary rule of §12.5 (creditBoundaries).
inline bool WithinCredit(size_t payload, size_t outstanding) { return payload <= outstanding; }

// SpeakerGuard: IDLE(lastFinished) or ACTIVE with the 1 s PCM queue, the
// 8 KiB credit window, strict sequence numbers and the caption queue.
class SpeakerGuard {
 public:
  // busy: the microphone is active or media is disabled (checked first).
  Outcome Start(uint16_t id, uint32_t rate, size_t payloadLen, bool busy);
  Outcome End(uint16_t id, uint32_t rate, size_t payloadLen);
  Outcome Abort(uint16_t id, uint32_t rate, size_t payloadLen);
  // ValidateData classifies a SPEAKER_PCM frame without acting on it.
  Outcome ValidateData(uint16_t id, uint32_t rate, uint32_t seq, size_t len) const;
  // Pcm validates and enqueues; a bad frame for the current session
  // force-stops it (the caller sends the ERROR, never DONE).
  Outcome Pcm(uint16_t id, uint32_t rate, uint32_t seq, const uint8_t* data, size_t len);
  // Text handles SPEAKER_TEXT; caption errors never stop the session.
  Outcome Text(uint16_t id, uint32_t rate, const uint8_t* data, size_t len);
  // ForceStop ends the session without DONE and returns it (zero if idle).
  Session ForceStop();
  // Clear records normal completion of id; true if it was the active session.
  bool Clear(uint16_t id);
  void Reset();

  // CreditDue is the increment to grant now (0 = none); call Grant once the
  // SPEAKER_CREDIT frame was actually queued.
  uint32_t CreditDue() const;
  void Grant(uint32_t n) { outstanding_ += n; }

  // Playback side. Take copies up to max queued bytes out for the output.
  size_t Take(uint8_t* out, size_t max);
  // NextCaption pops the next caption whose PCM has been written.
  bool NextCaption(std::string* out);
  // Complete: ended and everything written (the caller still waits for
  // the output to drain before Clear + SPEAKER_DONE).
  bool WrittenOut() const { return cur_.id && ended_ && queued_ == 0; }

  Session active() const { return cur_; }
  Session last() const { return last_; }
  bool ended() const { return cur_.id && ended_; }
  bool playing() const { return cur_.id && playing_; }
  size_t queued() const { return queued_; }
  size_t capacity() const { return capacity_; }
  size_t outstanding() const { return outstanding_; }
  size_t pendingCaptions() const { return ncap_; }
  uint32_t expectedSequence() const { return seq_; }
  uint64_t written() const { return written_; }

 private:
  enum class Check { Ok, Invalid, Stale, Idempotent };
  Check check(uint16_t id, uint32_t rate) const;
  void finish();

  Session cur_, last_;
  bool ended_ = false, playing_ = false;
  size_t capacity_ = 0, queued_ = 0, outstanding_ = 0;
  uint32_t seq_ = 0;
  uint64_t received_ = 0, written_ = 0;
  // ring of queued PCM
  uint8_t ring_[kMaxSpeakerQueue];
  size_t head_ = 0;
  struct Caption {
    uint64_t at = 0;  // received bytes when queued: its PCM starts after this
    std::string text;
  };
  Caption caps_[kMaxCaptions];
  size_t capHead_ = 0, ncap_ = 0;
};

}  // namespace sc
