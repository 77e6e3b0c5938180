// Device is the firmware's protocol engine (spec §20): it parses wire v2,
// answers HELLO, runs the microphone and speaker sessions, reassembles and
// sends EVENT messages and drives the application sessions. All hardware is
// behind the interfaces of ports.h; time comes in as now_ms.
//
//   sc::DeviceConfig cfg;          // defaults are the release firmware
//   cfg.bootToken = "a1b2c3d4";
//   sc::Device dev(cfg, usb, speaker, mic, ui);
//   dev.SetUsbConnected(true, now);
//   dev.OnReceive(buf, n, now);    // whatever the CDC read returned
//   dev.Tick(now);                 // every few ms
#pragma once

#include <cstdint>
#include <string>

#include "appevent.h"
#include "apps.h"
#include "diagnostics.h"
#include "event.h"
#include "frame_queue.h"
#include "media.h"
#include "ports.h"
#include "settings.h"
#include "touch.h"
#include "wire.h"

namespace sc {

class RealtimeSession;  // session.h: raw events (§18) go there when set

struct DeviceConfig {
  /// Capabilities sent in HELLO_ACK (0xF7F release, 0xFFF diagnostics).
  /// With bit 7 (kCapDiagnostics) the Device sends DIAGNOSTICS frames.
  uint32_t capabilities = kFirmwareCaps;
  /// 8 hex digits, random per boot: conversation-<token>-<n> request ids.
  std::string bootToken = "00000000";
  /// Media sessions allowed (upstream: a MOD activates them; ours at boot).
  bool mediaEnabled = true;
  /// Disconnect is confirmed after this long without USB SOF.
  uint32_t disconnectDebounceMs = 100;
  /// TX frame queue and the outgoing EVENT queue (spec §25).
  size_t txQueueBytes = 16384;
  size_t eventQueueFrames = 128;
  size_t eventQueueBytes = 65536 + 128 * kOverhead;
  /// Mouth refresh period and RMS per step (spec §12.8).
  uint32_t mouthPeriodMs = 125;
  /// Where tts.volume is kept (nullptr: in memory only, the default 60).
  SettingsStore* settings = nullptr;
};

enum class TouchButton : uint8_t { Ok, Ng, Detail };

struct DeviceStats {
  uint64_t framesIn = 0, framesOut = 0;
  uint64_t errorsSent = 0;
  uint64_t eventsIn = 0, eventsDropped = 0, rawEvents = 0;
  uint64_t settingsApplied = 0;
  uint64_t eventsOut = 0;
  uint64_t diagnosticsOut = 0, diagnosticsDropped = 0;
};

class Device : private EventSender {
 public:
  Device(const DeviceConfig& cfg, Transport& usb, AudioOut& speaker, AudioIn& mic, Ui& ui);

  // USB presence: call with the SOF state as often as it is polled.
  void SetUsbConnected(bool connected, uint32_t now);
  void OnReceive(const uint8_t* data, size_t len, uint32_t now);
  void Tick(uint32_t now);
  // OnMicFrame delivers 640 bytes of captured 16 kHz PCM.
  void OnMicFrame(const uint8_t* pcm, size_t len, uint32_t now);
  void OnCaptureFailed(uint32_t now);
  void SetMediaEnabled(bool on, uint32_t now);

  void Touch(TouchButton b, uint32_t now);
  // Swipe across the head: forward = conversation.start, backward = stop.
  std::string Swipe(bool forward, uint32_t now);
  // OnTouch performs what the touch classifier decided (core/touch.h).
  void OnTouch(TouchAction a, uint32_t now);
  // SetVolume saves tts.volume (clamped to 0..100) and applies it.
  void SetVolume(int percent);
  // Volume is the saved tts.volume; the speaker plays at OutputVolume,
  // which the diagnostic build (capabilities bit 7) forces to 0.
  uint8_t volume() const { return settings_.volume(); }
  uint8_t outputVolume() const { return diagOn_ ? 0 : settings_.volume(); }

  // Sends an application (or raw) event to the host (spec §9.3 results).
  SendResult Send(const std::string& json) { return SendEvent(json); }

  TransportState transport() const { return transport_; }
  bool helloDone() const { return hello_; }
  uint32_t peerMaxPayload() const { return peerMax_; }
  uint32_t peerCapabilities() const { return peerCaps_; }
  uint8_t status() const { return status_; }
  bool taskRunning() const { return taskRunning_; }
  float mouth() const { return mouth_; }
  const MicGuard& mic() const { return mic_; }
  const SpeakerGuard& speaker() const { return *spk_; }
  const SpeakerCounters& speakerCounters() const { return diag_; }
  const ConversationRequests& conversation() const { return conv_; }
  const ApprovalSession& approvals() const { return approvals_; }
  // SetGlyphs: which characters the screen's font draws (safetext.h).
  void SetGlyphs(HasGlyph has) { approvals_.SetGlyphs(has); }
  // SetRealtime hands raw events (§18) and the transport to s (or drops
  // them again with nullptr); s must outlive the Device's use of it.
  void SetRealtime(RealtimeSession* s) { rt_ = s; }
  const DeviceStats& stats() const { return stats_; }
  const ParserStats& parserStats() const { return parser_.stats(); }
  size_t txQueued() const { return tx_.bytes(); }

 private:
  SendResult SendEvent(const std::string& json) override;
  void expireInput(uint32_t now);
  void handle(const Frame& f, uint32_t now);
  void handleControl(const Frame& f, uint32_t now);
  void handleHello(const Frame& f, uint32_t now);
  void handleEvent(const Frame& f, uint32_t now);
  void handleApp(const AppEvent& ev, uint32_t now);
  bool sendControl(uint16_t code, uint16_t stream, uint32_t rate, const uint8_t* payload = nullptr, uint32_t len = 0);
  void sendError(uint16_t stream, uint32_t code);
  void sendU32(uint16_t code, uint16_t stream, uint32_t rate, uint32_t v);
  void topUp();
  void pumpAudio(uint32_t now);
  void speakerEnded(Session s, bool completed, uint32_t now);
  void sendDiagnostics(DiagEvent ev, Session s, uint32_t now);
  void micStopped();
  void resetSessions(bool forgetLast, uint32_t now);
  void disconnect(uint32_t now);
  void updateTransport();
  void setStatus(uint8_t v);
  void setTask(bool running);
  void setMouth(float open);
  void refreshUi();
  void flush();
  void applyVolume(bool show);
  bool handleSettings(const std::string& json);

  DeviceConfig cfg_;
  Transport& link_;
  AudioOut& out_;
  AudioIn& in_;
  Ui& ui_;

  Parser parser_;
  FrameQueue tx_, events_;
  EventReassembler reasm_;
  MicGuard mic_;
  SpeakerGuard* spk_;  // 48 KB ring: on the heap once, never per frame
  ConversationRequests conv_;
  ApprovalSession approvals_;
  Settings settings_;

  bool usb_ = false;
  uint32_t lastSof_ = 0;
  bool hello_ = false;
  bool hadSession_ = false;  // USB was lost with a HELLO in place
  uint32_t peerMax_ = 0, peerCaps_ = 0;
  uint32_t ctrlSeq_ = 0;
  uint32_t diagSeq_ = 0;  // DIAGNOSTICS sequence: its own counter (§3.3)
  bool diagOn_ = false;   // capabilities has bit 7
  bool audioStarted_ = false;
  SpeakerCounters diag_;
  uint16_t nextEventId_ = 1;
  TransportState transport_ = TransportState::Disconnected;
  bool media_ = true;
  uint8_t status_ = 0;
  bool taskRunning_ = false;
  ConvState convShown_ = ConvState::Standby;
  std::string convErrShown_;
  uint32_t convRefusalsShown_ = 0;
  float mouth_ = 0;
  uint32_t mouthAt_ = 0;
  double sumSq_ = 0;
  uint64_t samples_ = 0;
  uint64_t played_ = 0;
  uint32_t playedRate_ = 0;
  DeviceStats stats_;
  RealtimeSession* rt_ = nullptr;
  uint8_t scratch_[1024];

 public:
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
};

}  // namespace sc
