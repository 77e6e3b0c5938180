#include "device.h"

#include <cmath>

#include "session.h"

namespace sc {

const char* StatusName(uint8_t v) {
  static const char* const kNames[] = {"idle", "recognizing", "speaking", "listening", "connecting", "error"};
  return v < 6 ? kNames[v] : "?";
}

Device::Device(const DeviceConfig& cfg, Transport& usb, AudioOut& speaker, AudioIn& mic, Ui& ui)
    : cfg_(cfg),
      link_(usb),
      out_(speaker),
      in_(mic),
      ui_(ui),
      tx_(cfg.txQueueBytes, 1024, cfg.txQueueBytes / kOverhead),
      events_(cfg.eventQueueBytes, 0, cfg.eventQueueFrames),
      spk_(new SpeakerGuard()),
      conv_(*this, cfg.bootToken),
      approvals_(*this),
      settings_(cfg.settings),
      diagOn_(cfg.capabilities & kCapDiagnostics),
      media_(cfg.mediaEnabled) {
  // tts.volume is read at boot and applied before any speaker session.
  settings_.Load();
  applyVolume(false);
}

Device::~Device() { delete spk_; }

// ---- sending

bool Device::sendControl(uint16_t code, uint16_t stream, uint32_t rate, const uint8_t* payload, uint32_t len) {
  Frame f;
  f.type = uint8_t(Type::Control);
  f.flags = code;
  f.stream = stream;
  f.sequence = ctrlSeq_;
  f.sampleRate = rate;
  f.payload = payload;
  f.length = len;
  // Credit is an ordinary frame: only granted if it fits (spec §12.5).
  bool ok = tx_.Push(f, code != kSpeakerCredit);
  if (ok) {
    ctrlSeq_++;
    stats_.framesOut++;
  }
  return ok;
}

void Device::sendU32(uint16_t code, uint16_t stream, uint32_t rate, uint32_t v) {
  uint8_t p[4];
  PutU32(p, v);
  sendControl(code, stream, rate, p, 4);
}

void Device::sendError(uint16_t stream, uint32_t code) {
  stats_.errorsSent++;
  sendU32(kError, stream, 0, code);
}

SendResult Device::SendEvent(const std::string& json) {
  if (transport_ == TransportState::Disconnected) return SendResult::Disconnected;
  if (transport_ == TransportState::Unsupported) return SendResult::Unsupported;
  size_t max = peerMax_ < kMaxPayload ? peerMax_ : kMaxPayload;
  if (json.size() > kMaxEventMessage) return SendResult::Overflow;
  size_t count = EventFrameCount(json.size(), max);
  if (!events_.Fits(json.size() + count * kOverhead, count)) return SendResult::Overflow;
  uint16_t id = nextEventId_;
  nextEventId_ = nextEventId_ == 65535 ? 1 : nextEventId_ + 1;
  ChunkEvent(id, reinterpret_cast<const uint8_t*>(json.data()), json.size(), max,
             [&](const Frame& f) { events_.Push(f); });
  stats_.eventsOut++;
  flush();
  return SendResult::Queued;
}

void Device::flush() {
  const uint8_t* data;
  size_t len;
  uint8_t type;
  uint16_t code, stream;
  while (events_.Front(&data, &len, &type, &code, &stream)) {
    if (!tx_.PushEncoded(data, len, type, code, stream, false)) break;
    events_.PopFront();
    stats_.framesOut++;
  }
  if (usb_) tx_.Pump(link_);
}

// ---- USB presence and resets

void Device::SetUsbConnected(bool connected, uint32_t now) {
  if (connected) {
    lastSof_ = now;
    if (!usb_) {
      usb_ = true;  // a connection is reported at once
      updateTransport();
      if (hadSession_) {
        // [OURS] The host may still hold the session USB lost (its port
        // can stay open): tell it at once, with the ERROR 1 any of its
        // frames would get now, instead of at its next frame.
        hadSession_ = false;
        sendError(0, kErrInvalidRequest);
        flush();
      }
    }
    return;
  }
  // A disconnection only after 100 ms without SOF: single gaps are normal.
  if (usb_ && Elapsed(now, lastSof_) >= cfg_.disconnectDebounceMs) disconnect(now);
}

void Device::resetSessions(bool forgetLast, uint32_t now) {
  if (mic_.active()) {
    in_.End();
    mic_.ForceStop();
  }
  if (spk_->active().id) {
    Session s = spk_->ForceStop();
    speakerEnded(s, false, now);
  }
  if (forgetLast) {
    mic_.Reset();
    spk_->Reset();
  }
}

void Device::disconnect(uint32_t now) {
  usb_ = false;
  resetSessions(true, now);
  hadSession_ = hadSession_ || hello_;
  approvals_.Disconnected();
  hello_ = false;
  peerMax_ = peerCaps_ = 0;
  parser_.Reset();
  tx_.Clear();
  events_.Clear();
  reasm_.Reset();
  ctrlSeq_ = 0;
  diagSeq_ = 0;
  nextEventId_ = 1;
  setStatus(0);
  ui_.Handshake(false);
  updateTransport();
}

void Device::updateTransport() {
  TransportState t = !usb_ ? TransportState::Disconnected
                     : hello_ && EventReady(peerCaps_, cfg_.capabilities) ? TransportState::Ready
                                                                          : TransportState::Unsupported;
  if (t == transport_) return;
  bool wasReady = transport_ == TransportState::Ready;
  transport_ = t;
  if (rt_) rt_->OnTransport(t);  // leaving ready forgets the tool session
  ui_.Link(t);
  if (wasReady) setTask(false);  // task.status only lives while ready (§17)
}

void Device::SetMediaEnabled(bool on, uint32_t now) {
  media_ = on;
  if (!on) {
    resetSessions(false, now);
    setStatus(0);
  }
  flush();
}

// ---- receiving

void Device::OnReceive(const uint8_t* data, size_t len, uint32_t now) {
  if (!usb_) return;  // nothing can arrive without a link; stale driver data
  parser_.FeedAll(data, len, now, [&](const Frame& f) { handle(f, now); });
  flush();
}

// expireInput gives up on a partial frame whose sender was cut off (README
// "Cut-off frames"), and handles the frames that were queued behind it.
void Device::expireInput(uint32_t now) {
  if (!usb_) return;
  parser_.Expire(now);
  Frame f;
  while (parser_.Next(&f)) handle(f, now);
}

void Device::handle(const Frame& f, uint32_t now) {
  stats_.framesIn++;
  switch (Type(f.type)) {
    case Type::Control:
      handleControl(f, now);
      break;
    case Type::SpeakerPcm: {
      Session before = spk_->active();
      Outcome o = spk_->Pcm(f.stream, f.sampleRate, f.sequence, f.payload, f.length);
      if (o.error) {
        sendError(f.stream, o.error);
        if (before.id && !spk_->active().id) speakerEnded(before, false, now);
      } else if (o.result == Result::Accepted) {
        diag_.OnPcm(f.length, now);
        topUp();
        pumpAudio(now);
      }
      break;
    }
    case Type::Event:
      handleEvent(f, now);
      break;
    default:  // MICROPHONE_PCM, EXPRESSION, MOTION, DIAGNOSTICS: ignored
      break;
  }
}

void Device::handleHello(const Frame& f, uint32_t now) {
  Hello h;
  if (f.stream != 0 || !DecodeHelloPayload(f.payload, f.length, &h) || h.maxPayload < kMinHostMaxPayload ||
      !(h.capabilities & kCapStreamId)) {
    sendError(0, kErrInvalidRequest);
    return;
  }
  resetSessions(true, now);
  setStatus(0);
  reasm_.Reset();
  events_.Clear();
  tx_.DropType(uint8_t(Type::Event));
  hello_ = true;
  approvals_.NewSession(now);  // the host sends its pending set again (§16.2)
  peerMax_ = h.maxPayload < kMaxPayload ? h.maxPayload : uint32_t(kMaxPayload);
  peerCaps_ = h.capabilities;
  Hello ack{peerMax_, cfg_.capabilities};
  uint8_t p[8];
  EncodeHelloPayload(ack, p);
  sendControl(kHelloAck, 0, 0, p, 8);
  ui_.Handshake(true);
  updateTransport();
}

void Device::handleControl(const Frame& f, uint32_t now) {
  uint16_t code = f.flags;
  if (code == kHello) {
    handleHello(f, now);
    return;
  }
  bool needsHello = code == kMicStart || code == kSpeakerStart || code == kSpeakerText || code == kStatus;
  if (needsHello && !hello_) {
    sendError(f.stream, kErrInvalidRequest);
    return;
  }
  switch (code) {
    case kStatus: {
      uint8_t max = (cfg_.capabilities & kCapStatusExtended) ? 5 : 2;
      if (f.stream != 0 || f.sampleRate != 0 || f.length != 1 || f.payload[0] > max) {
        sendError(f.stream, kErrInvalidRequest);
        return;
      }
      setStatus(f.payload[0]);
      return;
    }
    case kMicStart: {
      bool busy = !media_ || spk_->active().id != 0;
      bool wasActive = mic_.active() != 0;
      Outcome o = mic_.Start(f.stream, f.sampleRate, f.length, busy);
      if (o.error) {
        sendError(f.stream, o.error);
      } else if (o.result == Result::Idempotent && mic_.started()) {
        sendControl(kMicStarted, f.stream, kMicRate);
      } else if (o.result == Result::Accepted && !wasActive) {
        if (!in_.Begin(kMicRate)) {
          mic_.ForceStop();
          sendError(f.stream, kErrAudioOutput);
        }
      }
      return;
    }
    case kMicStop: {
      Outcome o = mic_.Stop(f.stream, f.sampleRate, f.length);
      if (o.error) {
        sendError(f.stream, o.error);
      } else if (o.result == Result::Accepted) {
        in_.End();
        tx_.Drop(uint8_t(Type::MicrophonePcm), f.stream);
        sendControl(kMicStopped, f.stream, kMicRate);
      } else if (o.result == Result::Idempotent) {
        sendControl(kMicStopped, f.stream, kMicRate);
      }
      return;
    }
    case kSpeakerStart: {
      bool busy = !media_ || mic_.active() != 0;
      Outcome o = spk_->Start(f.stream, f.sampleRate, f.length, busy);
      if (o.error) {
        sendError(f.stream, o.error);
      } else if (o.result == Result::Accepted) {
        played_ = 0;
        playedRate_ = f.sampleRate;
        sumSq_ = 0;
        samples_ = 0;
        mouthAt_ = now;
        diag_.Begin(now);
        audioStarted_ = false;
        if (!out_.Begin(f.sampleRate)) {
          Session s = spk_->ForceStop();
          sendError(f.stream, kErrAudioOutput);
          speakerEnded(s, false, now);
          return;
        }
        topUp();
        sendDiagnostics(DiagEvent::SessionStarted, spk_->active(), now);
      }
      return;
    }
    case kSpeakerEnd: {
      Outcome o = spk_->End(f.stream, f.sampleRate, f.length);
      if (o.error) sendError(f.stream, o.error);
      if (o.result == Result::Accepted) pumpAudio(now);
      return;
    }
    case kSpeakerAbort: {
      Session before = spk_->active();
      Outcome o = spk_->Abort(f.stream, f.sampleRate, f.length);
      if (o.error) sendError(f.stream, o.error);
      if (o.result == Result::Accepted) speakerEnded(before, false, now);
      return;
    }
    case kSpeakerText: {
      Outcome o = spk_->Text(f.stream, f.sampleRate, f.payload, f.length);
      if (o.error) sendError(f.stream, o.error);
      return;
    }
    default:
      sendError(f.stream, kErrInvalidRequest);
      return;
  }
}

void Device::handleEvent(const Frame& f, uint32_t now) {
  if (transport_ != TransportState::Ready) {
    sendError(f.stream, kErrInvalidRequest);
    return;
  }
  EventReassembler::Result r = reasm_.Push(f);
  if (r.error != EventError::None) {
    stats_.eventsDropped++;
    ui_.Log(EventErrorText(r.error));
    return;
  }
  if (!r.complete) return;
  stats_.eventsIn++;
  Classified c = Classify(r.message);
  if (c.route == Route::Raw) {
    stats_.rawEvents++;
    // Ours: the Pi's claude_pi.settings; other Realtime-shaped events (§18)
    // go to the tool session when one is set, and are dropped otherwise.
    if (!handleSettings(r.message) && rt_) rt_->OnRaw(r.message, transport_, now);
    return;
  }
  if (c.route == Route::Drop || !IsInbound(c.event.type)) {
    stats_.eventsDropped++;
    ui_.Log(c.route == Route::Drop ? c.reason : "application event of the wrong direction");
    return;
  }
  handleApp(c.event, now);
}

void Device::handleApp(const AppEvent& ev, uint32_t now) {
  switch (ev.type) {
    case AppType::ConversationResult:
      conv_.OnResult(ev);
      break;
    case AppType::ApprovalRequest:
      approvals_.OnRequest(ev, now);
      break;
    case AppType::ApprovalResolved:
      approvals_.OnResolved(ev.requestId, now);
      break;
    case AppType::ApprovalSuspended:
      approvals_.OnSuspended(ev.requestId);
      break;
    case AppType::TaskStatus:
      setTask(ev.running);
      break;
    default:
      break;
  }
  refreshUi();
}

// ---- speaker playback

void Device::topUp() {
  uint32_t due = spk_->CreditDue();
  if (due == 0) return;
  Session s = spk_->active();
  uint8_t p[4];
  PutU32(p, due);
  if (sendControl(kSpeakerCredit, s.id, s.rate, p, 4)) spk_->Grant(due);
}

void Device::pumpAudio(uint32_t now) {
  Session s = spk_->active();
  if (!s.id) return;
  if (spk_->playing() && !audioStarted_) {
    audioStarted_ = true;
    ui_.Playing(true);
    sendDiagnostics(DiagEvent::AudioStarted, s, now);
  }
  bool polled = false;
  while (spk_->playing() && spk_->queued() > 0) {
    size_t room = out_.Writable(now);
    if (!polled && room >= 2) diag_.OnWritable(now);
    polled = true;
    if (room < 2) break;
    size_t n = spk_->Take(scratch_, room < sizeof scratch_ ? room : sizeof scratch_);
    if (n == 0) break;
    if (!out_.Write(scratch_, n, now)) {
      spk_->ForceStop();
      sendError(s.id, kErrAudioOutput);
      speakerEnded(s, false, now);
      return;
    }
    played_ += n;
    for (size_t i = 0; i + 1 < n; i += 2) {
      int16_t v = int16_t(uint16_t(scratch_[i] | (scratch_[i + 1] << 8)));
      sumSq_ += double(v) * v;
    }
    samples_ += n / 2;
    std::string caption;
    while (spk_->NextCaption(&caption)) ui_.Caption(caption);
  }
  // Starving: the output runs dry while the host still owes PCM.
  diag_.SetStarving(spk_->playing() && !spk_->ended() && spk_->queued() == 0 && out_.Drained(now));
  if (spk_->WrittenOut() && out_.Drained(now)) {
    spk_->Clear(s.id);
    speakerEnded(s, true, now);
    sendControl(kSpeakerDone, s.id, s.rate);
    return;
  }
  topUp();
}

void Device::speakerEnded(Session s, bool completed, uint32_t now) {
  if (!completed) out_.Stop();
  tx_.Drop(uint8_t(Type::Control), s.id, kSpeakerCredit);
  // Queued reports of the session are stale now; the final one replaces them.
  tx_.Drop(uint8_t(Type::Diagnostics), s.id);
  sendDiagnostics(completed ? DiagEvent::Completed : DiagEvent::Aborted, s, now);
  ui_.Caption("");
  setMouth(0);
  if (audioStarted_) ui_.Playing(false);
  audioStarted_ = false;
  ui_.AudioPlayed(played_, s.rate, completed);
  played_ = 0;
  sumSq_ = 0;
  samples_ = 0;
}

// sendDiagnostics queues one DIAGNOSTICS frame when the build advertises
// bit 7. A report that does not fit the TX queue is dropped and counted:
// diagnostics never take room from protocol frames.
void Device::sendDiagnostics(DiagEvent ev, Session s, uint32_t now) {
  if (!diagOn_ || !s.id) return;
  bool active = spk_->active().id == s.id;
  DiagSnapshot d;
  d.event = ev;
  d.ticksMs = now;
  d.sampleRate = s.rate;
  size_t buffered = out_.Buffered(now);
  size_t queued = (active ? spk_->queued() : 0) + buffered;
  d.queuedBytes = uint32_t(queued);
  d.writableBytes = uint32_t(out_.Writable(now));
  d.receivedBytes = diag_.receivedBytes();
  d.writtenBytes = uint32_t(played_);
  d.receivedFrames = diag_.receivedFrames();
  d.writableCallbacks = diag_.writableCallbacks();
  d.starvationEvents = diag_.starvationEvents();
  d.maxReceiveGapMs = diag_.maxReceiveGapMs();
  d.maxWritableGapMs = diag_.maxWritableGapMs();
  d.txQueueBytes = uint32_t(tx_.bytes());
  bool ended = ev == DiagEvent::Completed || (active && spk_->ended());
  if (active && spk_->playing() && buffered > 0) d.flags |= kDiagAudioActive;
  if (ended) d.flags |= kDiagSpeakerEnded;
  if (active && spk_->WrittenOut()) d.flags |= kDiagAwaitingDrain;
  if (queued == 0) d.flags |= kDiagBufferEmpty;
  if (active && diag_.starving()) d.flags |= kDiagStarving;
  uint8_t p[kDiagPayloadBytes];
  EncodeDiagnostics(d, p);
  Frame f;
  f.type = uint8_t(Type::Diagnostics);
  f.stream = s.id;
  f.sequence = diagSeq_;
  f.sampleRate = s.rate;
  f.payload = p;
  f.length = kDiagPayloadBytes;
  if (tx_.Push(f)) {
    diagSeq_++;
    stats_.framesOut++;
    stats_.diagnosticsOut++;
  } else {
    stats_.diagnosticsDropped++;
  }
}

void Device::setMouth(float open) {
  if (open == mouth_) return;
  mouth_ = open;
  ui_.Mouth(open);
}

// ---- microphone

void Device::OnMicFrame(const uint8_t* pcm, size_t len, uint32_t now) {
  (void)now;
  uint16_t id = mic_.active();
  if (!id || len != kMicFrameBytes) return;
  if (mic_.CaptureStarted()) sendControl(kMicStarted, id, kMicRate);
  Frame f;
  f.type = uint8_t(Type::MicrophonePcm);
  f.stream = id;
  f.sequence = mic_.NextSequence();
  f.sampleRate = kMicRate;
  f.payload = pcm;
  f.length = uint32_t(len);
  if (!tx_.Push(f)) {
    in_.End();
    mic_.ForceStop();
    sendError(id, kErrTransportOverflow);
  } else {
    stats_.framesOut++;
  }
  flush();
}

void Device::OnCaptureFailed(uint32_t now) {
  (void)now;
  uint16_t id = mic_.ForceStop();
  if (!id) return;
  in_.End();
  sendError(id, kErrAudioOutput);
  flush();
}

// ---- UI and input

void Device::setStatus(uint8_t v) {
  if (v == status_) return;
  status_ = v;
  ui_.Status(v);
}

void Device::setTask(bool running) {
  if (running == taskRunning_) return;
  taskRunning_ = running;
  ui_.Task(running);
}

void Device::refreshUi() {
  if (approvals_.TakeChanged()) ui_.Approval(approvals_.View());
  if (conv_.state() != convShown_ || conv_.error() != convErrShown_ || conv_.refusals() != convRefusalsShown_) {
    convShown_ = conv_.state();
    convErrShown_ = conv_.error();
    convRefusalsShown_ = conv_.refusals();
    ui_.Conversation(convShown_, convErrShown_);
  }
}

void Device::Touch(TouchButton b, uint32_t now) {
  if (!approvals_.View().visible) return;
  if (b == TouchButton::Detail) approvals_.PageDetail();
  else approvals_.Decide(b == TouchButton::Ok, now);
  refreshUi();
  flush();
}

std::string Device::Swipe(bool forward, uint32_t now) {
  std::string id = conv_.Request(forward, transport_, now);
  refreshUi();
  flush();
  return id;
}

void Device::OnTouch(TouchAction a, uint32_t now) {
  switch (a) {
    case TouchAction::Ok: Touch(TouchButton::Ok, now); break;
    case TouchAction::Ng: Touch(TouchButton::Ng, now); break;
    case TouchAction::Middle: Touch(TouchButton::Detail, now); break;
    case TouchAction::SwipeForward: Swipe(true, now); break;
    case TouchAction::SwipeBackward: Swipe(false, now); break;
    case TouchAction::VolumeUp: SetVolume(int(settings_.volume()) + kVolumeStep); break;
    case TouchAction::VolumeDown: SetVolume(int(settings_.volume()) - kVolumeStep); break;
    case TouchAction::None: break;
  }
}

// ---- settings

void Device::applyVolume(bool show) {
  out_.SetVolume(outputVolume());
  if (show) ui_.Volume(settings_.volume(), diagOn_);
}

void Device::SetVolume(int percent) {
  // Shown even when unchanged (a swipe past 100 still shows the full bar).
  settings_.SetVolume(percent);
  if (settings_.saveFailed()) ui_.Log("tts.volume: saving the setting failed; it lasts until power-off");
  applyVolume(true);
}

// handleSettings applies a claude_pi.settings event; false if json is not one.
bool Device::handleSettings(const std::string& json) {
  SettingsEvent ev;
  const char* why = "";
  switch (DecodeSettingsEvent(json, &ev, &why)) {
    case SettingsDecode::NotSettings: return false;
    case SettingsDecode::Invalid:
      stats_.eventsDropped++;
      ui_.Log(why);
      return true;
    case SettingsDecode::Ok: break;
  }
  stats_.settingsApplied++;
  // The Pi sends its value at every HELLO: only a change is shown.
  if (ev.hasVolume && settings_.SetVolume(ev.volume)) {
    if (settings_.saveFailed()) ui_.Log("tts.volume: saving the setting failed; it lasts until power-off");
    applyVolume(true);
  }
  return true;
}

void Device::Tick(uint32_t now) {
  expireInput(now);
  pumpAudio(now);
  if (spk_->active().id && diag_.PeriodicDue(now)) sendDiagnostics(DiagEvent::Periodic, spk_->active(), now);
  if (spk_->active().id && Elapsed(now, mouthAt_) >= cfg_.mouthPeriodMs) {
    mouthAt_ = now;
    float open = 0;
    if (samples_ > 0) {
      double rms = std::sqrt(sumSq_ / double(samples_));
      long step = std::lround(rms / 200.0);
      if (step > 10) step = 10;
      open = float(step) / 10.0f;
    }
    sumSq_ = 0;
    samples_ = 0;
    setMouth(open);
  }
  conv_.Tick(transport_, now);
  approvals_.Tick(now);
  if (rt_) rt_->Tick(transport_, now);
  refreshUi();
  flush();
}

}  // namespace sc
