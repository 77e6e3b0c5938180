// The hardware the core talks to, as small interfaces. The CoreS3 layer
// (src/) implements them on M5Unified; the simulator (sim/) on Linux; the
// tests with fakes. Times are passed in as now_ms, never read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "apps.h"

namespace sc {

// Transport is the USB CDC port. Write may take fewer bytes than offered.
class Transport {
 public:
  virtual ~Transport() = default;
  virtual size_t Write(const uint8_t* data, size_t len) = 0;
};

// AudioOut plays 16-bit mono PCM at the session rate.
class AudioOut {
 public:
  virtual ~AudioOut() = default;
  virtual bool Begin(uint32_t rate) = 0;
  // Writable: how many bytes Write takes now without blocking.
  virtual size_t Writable(uint32_t now_ms) = 0;
  virtual bool Write(const uint8_t* pcm, size_t len, uint32_t now_ms) = 0;
  // Drained: everything written has been played.
  virtual bool Drained(uint32_t now_ms) = 0;
  // Buffered: bytes written but not yet played (diagnostics report it).
  virtual size_t Buffered(uint32_t now_ms) = 0;
  virtual void Stop() = 0;
  // SetVolume: 0..100 % of the speaker's range; applied before the next
  // Begin too (the Device calls it at boot and whenever tts.volume changes).
  virtual void SetVolume(uint8_t /*percent*/) {}
};

// AudioIn captures 16 kHz mono; its frames come back through
// Device::OnMicFrame (640 bytes each), the first one meaning "capture runs".
class AudioIn {
 public:
  virtual ~AudioIn() = default;
  virtual bool Begin(uint32_t rate) = 0;
  virtual void End() = 0;
};

// SettingsStore keeps small settings across power cuts, one value per key
// (NVS on the CoreS3, whose writes are atomic per key; an atomically
// replaced file in the simulator). Load returns false when the key is absent.
class SettingsStore {
 public:
  virtual ~SettingsStore() = default;
  virtual bool Load(const char* key, std::string* value) = 0;
  virtual bool Save(const char* key, const std::string& value) = 0;
};

enum class StatusValue : uint8_t { Idle = 0, Recognizing, Speaking, Listening, Connecting, Error };
const char* StatusName(uint8_t v);

// Ui receives every visible change. All methods have empty defaults.
class Ui {
 public:
  virtual ~Ui() = default;
  virtual void Status(uint8_t /*value*/) {}
  virtual void Task(bool /*running*/) {}
  virtual void Caption(const std::string& /*text, "" = hide*/) {}
  virtual void Mouth(float /*open 0..1*/) {}
  virtual void Approval(const ApprovalView& /*view; !visible = face*/) {}
  virtual void Conversation(ConvState /*state*/, const std::string& /*error*/) {}
  virtual void Link(TransportState /*state*/) {}
  // Handshake: a valid HELLO was answered (false again after a reset).
  virtual void Handshake(bool /*done*/) {}
  // Playing: speaker PCM reached the output (true) until the session ends.
  virtual void Playing(bool /*on*/) {}
  // Volume: tts.volume changed (forcedZero: the diagnostic build plays at 0).
  virtual void Volume(uint8_t /*percent*/, bool /*forcedZero*/) {}
  virtual void AudioPlayed(uint64_t /*bytes*/, uint32_t /*rate*/, bool /*completed*/) {}
  virtual void Log(const char* /*line*/) {}
};

}  // namespace sc
