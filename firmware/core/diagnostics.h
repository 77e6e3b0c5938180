// Speaker diagnostics of the diagnostic build (spec §21.1): the 52-byte
// DIAGNOSTICS payload, its codec, and the counters behind it. A firmware
// that advertises capability bit 7 sends one frame at each speaker event
// and one every 100 ms while a speaker session exists; upstream's PC tool
// (usb-audio-diagnostics.py) reads starvation, receive gaps and output
// callbacks from them.
//
// Pure: time comes in as now_ms; the Device decides when to send.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sc {

constexpr uint8_t kDiagVersion = 1;
constexpr size_t kDiagPayloadBytes = 52;
constexpr uint32_t kDiagIntervalMs = 100;

enum class DiagEvent : uint8_t {
  SessionStarted = 1,  // SPEAKER_START accepted
  AudioStarted = 2,    // prebuffer reached (or END below it): output runs
  Periodic = 3,        // every 100 ms while the session exists
  Completed = 4,       // just before SPEAKER_DONE
  Aborted = 5,         // session ended without DONE (abort, error, reset)
};

enum DiagFlag : uint16_t {
  kDiagAudioActive = 1u << 0,    // the output holds samples not yet played
  kDiagSpeakerEnded = 1u << 1,   // SPEAKER_END received
  kDiagAwaitingDrain = 1u << 2,  // ended, queue empty, waiting for the output
  kDiagBufferEmpty = 1u << 3,    // nothing queued, in the core or the output
  kDiagStarving = 1u << 4,       // output started, not ended, nothing buffered
};

// DiagSnapshot is one payload, field for field (all little-endian on the wire).
struct DiagSnapshot {
  DiagEvent event = DiagEvent::Periodic;
  uint16_t flags = 0;
  uint32_t ticksMs = 0;
  uint32_t sampleRate = 0;
  uint32_t queuedBytes = 0;    // core PCM queue + output buffer
  uint32_t writableBytes = 0;  // what the output takes now
  uint32_t receivedBytes = 0;  // accepted SPEAKER_PCM payload bytes
  uint32_t writtenBytes = 0;   // bytes handed to the output
  uint32_t receivedFrames = 0;
  uint32_t writableCallbacks = 0;  // times the output was found with room
  uint32_t starvationEvents = 0;
  uint32_t maxReceiveGapMs = 0;   // between accepted PCM frames
  uint32_t maxWritableGapMs = 0;  // between times the output had room
  uint32_t txQueueBytes = 0;      // firmware TX frame queue
};

void EncodeDiagnostics(const DiagSnapshot& s, uint8_t out[kDiagPayloadBytes]);
// DecodeDiagnostics accepts exactly 52 bytes of version 1; the event byte is
// not checked (a newer firmware may add events).
bool DecodeDiagnostics(const uint8_t* p, size_t len, DiagSnapshot* out);

// SpeakerCounters accumulates one speaker session's figures.
class SpeakerCounters {
 public:
  // Begin starts a session at now: counters zero, first report due in 100 ms.
  void Begin(uint32_t now);
  void OnPcm(size_t bytes, uint32_t now);
  // OnWritable: the output was polled and had room.
  void OnWritable(uint32_t now);
  // SetStarving records the state; a rise counts one starvation event.
  void SetStarving(bool starving);
  // PeriodicDue is true once per 100 ms slot. The slots are a fixed grid
  // from Begin, so reports stay at 10 Hz when the caller is a little late;
  // after a stall longer than a slot the missed ones are skipped, not
  // burst, and the grid does not move (a host can check every report sits
  // in its own slot).
  bool PeriodicDue(uint32_t now);

  bool starving() const { return starving_; }
  uint32_t receivedBytes() const { return receivedBytes_; }
  uint32_t receivedFrames() const { return receivedFrames_; }
  uint32_t writableCallbacks() const { return writableCallbacks_; }
  uint32_t starvationEvents() const { return starvationEvents_; }
  uint32_t maxReceiveGapMs() const { return maxReceiveGap_; }
  uint32_t maxWritableGapMs() const { return maxWritableGap_; }

 private:
  uint32_t next_ = 0;
  uint32_t lastPcm_ = 0, lastWritable_ = 0;
  uint32_t receivedBytes_ = 0, receivedFrames_ = 0;
  uint32_t writableCallbacks_ = 0, starvationEvents_ = 0;
  uint32_t maxReceiveGap_ = 0, maxWritableGap_ = 0;
  bool starving_ = false;
};

}  // namespace sc
