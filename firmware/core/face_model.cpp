#include "face_model.h"

#include <cmath>

#include "touch.h"

namespace sc {

namespace {
constexpr float kPi = 3.14159265f;
constexpr const char* kExpressionNames[] = {"neutral", "happy", "sad", "angry", "surprised", "sleepy", "doubtful"};
}  // namespace

const char* ExpressionName(Expression e) { return kExpressionNames[int(e) < 7 ? int(e) : 0]; }

bool ParseExpression(const std::string& s, Expression* out) {
  for (int i = 0; i < 7; i++)
    if (s == kExpressionNames[i]) {
      *out = Expression(i);
      return true;
    }
  return false;
}

FaceModel::FaceModel(uint32_t seed) : rng_(seed ? seed : 1) {}

uint32_t FaceModel::rand(uint32_t lo, uint32_t hi) {
  // xorshift32: small, fast, and the same on the ESP32 and the host.
  rng_ ^= rng_ << 13;
  rng_ ^= rng_ >> 17;
  rng_ ^= rng_ << 5;
  return lo + rng_ % (hi - lo);
}

void FaceModel::Conversation(ConvState s, const std::string& error) {
  conv_ = s;
  convError_ = error;
  refusalPending_ = s == ConvState::Blocked;
  if (s != ConvState::Blocked) refusal_ = false;
}

void FaceModel::Volume(uint8_t percent, bool forcedZero) {
  volume_ = percent;
  volumeZero_ = forcedZero;
  volumePending_ = true;
}

void FaceModel::LookAt(float x, float y, uint32_t now) {
  advance(now);
  x = x < -1 ? -1 : x > 1 ? 1 : x;
  y = y < -1 ? -1 : y > 1 ? 1 : y;
  gazeX_ = int(std::lround(x * 10));
  gazeY_ = int(std::lround(y * 6));
  looking_ = true;
  lookUntil_ = now + kLookHoldMs;
}

void FaceModel::startGesture(bool nod, int times, uint32_t now) {
  advance(now);
  times = times < 1 ? 1 : times > 9 ? 9 : times;
  gesture_ = true;
  gestureNod_ = nod;
  gestureAt_ = now;
  gestureMs_ = kGestureMs * uint32_t(times);
}

void FaceModel::Say(const std::string& text, uint32_t holdMs, uint32_t now) {
  advance(now);
  caption_ = text;
  captionHeld_ = !text.empty();
  captionUntil_ = now + holdMs;
}

// advance moves the schedule to now. Each next event is timed from the
// previous one, so how often this runs does not change what happens.
void FaceModel::advance(uint32_t now) {
  if (!started_) {
    started_ = true;
    now_ = now;
    breathT0_ = now;
    blinkAt_ = now + rand(kBlinkMinMs, kBlinkMaxMs);
    saccadeAt_ = now + rand(kSaccadeMinMs, kSaccadeMaxMs);
  }
  if (refusalPending_) {
    refusalPending_ = false;
    refusal_ = true;
    refusalAt_ = now;
  }
  if (volumePending_) {
    volumePending_ = false;
    volumeShown_ = true;
    volumeAt_ = now;
  }
  if (playingNext_ != playing_) {
    playing_ = playingNext_;
    if (!playing_) {  // resume: a fresh schedule from here, breath from rest
      breathT0_ = now;
      blinkAt_ = now + rand(kBlinkMinMs, kBlinkMaxMs);
      saccadeAt_ = now + rand(kSaccadeMinMs, kSaccadeMaxMs);
    }
  }
  if (looking_ && int32_t(now - lookUntil_) >= 0) {
    looking_ = false;
    saccadeAt_ = lookUntil_ + rand(kSaccadeMinMs, kSaccadeMaxMs);
  }
  if (!playing_) {
    while (int32_t(now - (blinkAt_ + kBlinkMs)) >= 0) blinkAt_ += kBlinkMs + rand(kBlinkMinMs, kBlinkMaxMs);
    while (!looking_ && int32_t(now - saccadeAt_) >= 0) {
      gazeX_ = int(rand(0, 21)) - 10;
      gazeY_ = int(rand(0, 13)) - 6;
      saccadeAt_ += rand(kSaccadeMinMs, kSaccadeMaxMs);
    }
  }
  if (gesture_ && now - gestureAt_ >= gestureMs_) gesture_ = false;
  if (captionHeld_ && int32_t(now - captionUntil_) >= 0) {
    captionHeld_ = false;
    caption_.clear();
  }
  if (refusal_ && now - refusalAt_ >= kRefusalShowMs) refusal_ = false;
  if (volumeShown_ && now - volumeAt_ >= kVolumeShowMs) volumeShown_ = false;
  now_ = now;
}

Pose FaceModel::PoseAt(uint32_t now) {
  advance(now);
  Pose p;
  p.paused = playing_;
  if (gesture_) {
    float swing = std::sin(2 * kPi * float(now - gestureAt_) / float(kGestureMs / 2));
    (gestureNod_ ? p.headY : p.headX) = int(std::lround(swing * (gestureNod_ ? 8 : 10)));
  }
  bool asleep = link_ == TransportState::Disconnected;
  if (playing_) {
    p.gazeX = looking_ ? gazeX_ : 0;
    p.gazeY = looking_ ? gazeY_ : 0;
    return p;  // speaking: eyes open and still, no breath
  }
  float phase = float((now - breathT0_) % kBreathPeriodMs) / float(kBreathPeriodMs);
  p.breathY = int(std::lround(std::sin(2 * kPi * phase) * kBreathPx));
  if (asleep) {
    p.eyeOpen = 0;
    return p;
  }
  p.gazeX = gazeX_;
  p.gazeY = gazeY_;
  if (int32_t(now - blinkAt_) >= 0 && now - blinkAt_ < kBlinkMs) {
    float t = float(now - blinkAt_) / float(kBlinkMs);  // 0..1: shut at half
    p.eyeOpen = std::fabs(1 - 2 * t);
  }
  return p;
}

bool FaceModel::refusalShown(uint32_t now) const { return refusal_ && now - refusalAt_ < kRefusalShowMs; }

// ---- drawing

const DisplayList& FaceModel::Frame(uint32_t now) {
  Pose p = PoseAt(now);
  list_.Clear(0x000000);
  if (approval_.visible) {
    drawApproval();
  } else {
    drawFace(p, now);
    drawStateLine();
    drawBottom(now);
    drawVolume(now);
  }
  drawBadges(now);
  return list_;
}

void FaceModel::drawFace(const Pose& p, uint32_t now) {
  (void)now;
  uint32_t color = link_ == TransportState::Ready ? kFaceWhite
                   : link_ == TransportState::Unsupported ? kFaceGrey
                                                          : kFaceDim;
  int dx = p.headX, dy = p.breathY + p.headY;
  drawEye(kLeftEyeX + dx + p.gazeX, kEyeY + dy + p.gazeY, true, p, color);
  drawEye(kRightEyeX + dx + p.gazeX, kEyeY + dy + p.gazeY, false, p, color);
  drawMouth(kMouthX + dx, kMouthY + dy, color);
  if (link_ == TransportState::Disconnected) {  // asleep: a "z" drifting up
    int zy = 64 + dy;
    list_.Text("z", kRightEyeX + 26, zy, 2, color);
    list_.Text("z", kRightEyeX + 40, zy - 14, 1, color);
  }
}

void FaceModel::drawEye(int cx, int cy, bool left, const Pose& p, uint32_t color) {
  const uint32_t bg = list_.background;
  int r = expression_ == Expression::Surprised ? kEyeR + 4 : kEyeR;
  float open = p.eyeOpen;
  if (expression_ == Expression::Sleepy) open = open < 0.4f ? open : 0.4f;
  if (expression_ == Expression::Doubtful && !left) open = open < 0.5f ? open : 0.5f;
  if (open < 0.2f) {  // shut: a lid line
    list_.RoundRect(cx - r, cy - 2, 2 * r, 4, 2, color);
    return;
  }
  if (open < 0.95f) list_.Ellipse(cx, cy, r, int(std::lround(r * open)) < 2 ? 2 : int(std::lround(r * open)), color);
  else list_.Circle(cx, cy, r, color);
  int s = left ? -1 : 1;  // the outer side
  switch (expression_) {
    case Expression::Happy:  // a smile of the eye: the lower half cut by a disc
      list_.Circle(cx, cy + r, r, bg);
      break;
    case Expression::Sad:  // lids slope down to the outside
      list_.Triangle(cx - r - 2, cy - r - 2, cx + r + 2, cy - r - 2, cx + s * (r + 2), cy + 2, bg);
      break;
    case Expression::Angry:  // lids slope down to the nose
      list_.Triangle(cx - r - 2, cy - r - 2, cx + r + 2, cy - r - 2, cx - s * (r + 2), cy + 2, bg);
      break;
    default:
      break;
  }
}

void FaceModel::drawMouth(int cx, int cy, uint32_t color) {
  int open = int(std::lround(mouth_ * 30));  // the core's 0.1 steps (§12.8)
  int w = kMouthW;
  if (expression_ == Expression::Surprised && open == 0) {
    list_.Circle(cx, cy, 8, color);
    list_.Circle(cx, cy, 4, list_.background);
    return;
  }
  if (expression_ == Expression::Happy) w += 16;
  if (expression_ == Expression::Sad || link_ == TransportState::Disconnected) w -= 24;
  list_.RoundRect(cx - w / 2, cy - (4 + open) / 2, w, 4 + open, 2, color);
}

// drawStateLine: a small grey line at the bottom says why the face is not
// "ready": no USB host, or a host that has not (or not fully) shaken hands.
void FaceModel::drawStateLine() {
  const char* text = nullptr;
  if (link_ == TransportState::Disconnected) text = "no USB host";
  else if (link_ == TransportState::Unsupported) text = hello_ ? "audio only: the host has no EVENT" : "waiting for the dock (HELLO)";
  if (!text || !caption_.empty()) return;
  list_.Text(text, kScreenWidth / 2, 214, 1, kFaceGrey, Align::Center);
}

void FaceModel::drawBottom(uint32_t now) {
  if (refusalShown(now)) {  // a request refused: the reason, as it came
    list_.RoundRect(4, kScreenHeight - 52, kScreenWidth - 8, 48, 8, kRefusalBg);
    SafeText t = LayoutSafe("blocked: " + (convError_.empty() ? std::string("no reason given") : convError_), 36, has_);
    if (t.lines.size() > 2) {  // the rest does not fit: say so
      t.lines.resize(2);
      t.lines[1].push_back(Span{SpanKind::Text, "\xE2\x80\xA6", 0});
    }
    for (size_t i = 0; i < t.lines.size(); i++) list_.Line(t.lines[i], 12, kScreenHeight - 46 + int(i) * 20, kFaceWhite);
    return;
  }
  if (caption_.empty()) return;
  list_.RoundRect(4, kScreenHeight - 48, kScreenWidth - 8, 44, 8, kFaceWhite);
  SafeText t = LayoutSafe(caption_, 35, has_);
  for (size_t i = 0; i < t.lines.size() && i < 2; i++) list_.Line(t.lines[i], 12, kScreenHeight - 44 + int(i) * 18, 0x000000);
}

void FaceModel::drawSpinner(int cx, int cy, uint32_t color, uint32_t now) {
  int frame = int((now / kSpinnerFrameMs) % 4);
  for (int i = 0; i < 4; i++) {
    float a = float(i + frame) * kPi / 2;
    list_.Circle(cx + int(std::lround(7 * std::cos(a))), cy + int(std::lround(7 * std::sin(a))), i == 0 ? 3 : 2,
                 i == 0 ? color : kSpinnerDim);
  }
}

void FaceModel::drawMic(int cx, int cy, uint32_t color) {
  list_.RoundRect(cx - 4, cy - 9, 8, 12, 4, color);  // capsule
  list_.Rect(cx - 6, cy + 1, 2, 3, color);            // cradle
  list_.Rect(cx + 4, cy + 1, 2, 3, color);
  list_.Rect(cx - 6, cy + 4, 12, 2, color);
  list_.Rect(cx - 1, cy + 6, 2, 4, color);  // stand
  list_.Rect(cx - 4, cy + 9, 8, 2, color);
}

// drawBadges: the status badge (§12.8) shows STATUS; while STATUS is idle it
// shows the conversation state in the same signs, and audio playing always
// shows the muted microphone.
void FaceModel::drawBadges(uint32_t now) {
  uint8_t s = status_;
  if (playing_) s = uint8_t(StatusValue::Speaking);
  if (s == 0) {
    switch (conv_) {
      case ConvState::Connecting: s = uint8_t(StatusValue::Connecting); break;
      case ConvState::Listening: s = uint8_t(StatusValue::Listening); break;
      case ConvState::Recognizing: s = uint8_t(StatusValue::Recognizing); break;
      case ConvState::Speaking: s = uint8_t(StatusValue::Speaking); break;
      case ConvState::Blocked: s = refusalShown(now) ? uint8_t(StatusValue::Error) : 0; break;
      case ConvState::Standby: break;
    }
  }
  const int x = kBadgeX, y = kBadgeY;
  if (s != 0 && s <= 5) {
    list_.RoundRect(x - kBadgeHalf, y - kBadgeHalf, 2 * kBadgeHalf, 2 * kBadgeHalf, 6, kBadgeBg);
    switch (StatusValue(s)) {
      case StatusValue::Recognizing: drawSpinner(x, y, kFaceWhite, now); break;
      case StatusValue::Speaking: drawMic(x, y, kMicMuted); break;
      case StatusValue::Listening: drawMic(x, y, kFaceWhite); break;
      case StatusValue::Connecting: drawSpinner(x, y, kAmber, now); break;
      case StatusValue::Error: list_.Text("!", x, y - 8, 2, kRed, Align::Center); break;
      default: break;
    }
  }
  if (task_) {
    list_.RoundRect(kTaskBadgeX - kBadgeHalf, y - kBadgeHalf, 2 * kBadgeHalf, 2 * kBadgeHalf, 6, kBadgeBg);
    drawSpinner(kTaskBadgeX, y, kTaskBlue, now);
  }
}

// drawVolume: after a change, a bar on the left edge and the value.
void FaceModel::drawVolume(uint32_t now) {
  if (!volumeShown_ || now - volumeAt_ >= kVolumeShowMs) return;
  const int x = 10, y = 50, w = 24, h = 110;
  list_.RoundRect(x, y, w, h, 6, kBadgeBg);
  int level = volumeZero_ ? 0 : volume_;
  int fill = (h - 8) * level / 100;
  if (fill > 0) list_.Rect(x + 4, y + h - 4 - fill, w - 8, fill, volumeZero_ ? kFaceGrey : kFaceWhite);
  std::string label = volumeZero_ ? "muted" : std::to_string(int(volume_));
  list_.Text(label, x + w / 2, y + h + 6, 1, kFaceWhite, Align::Center);
  list_.Text("vol", x + w / 2, y - 12, 1, kFaceGrey, Align::Center);
}

void FaceModel::drawApproval() {
  const ApprovalView& v = approval_;
  list_.Line(v.titleLine, 8, 8, kFaceWhite);
  for (size_t i = 0; i < v.lines.size() && i < size_t(kDetailRows); i++) list_.Line(v.lines[i], 8, 36 + int(i) * 16, kFaceWhite);
  // "contains hidden characters" stands out in amber.
  list_.Line(TextLine{Span{SpanKind::Text, v.statusLine, 0}}, 8, kButtonsY - 20, v.hidden ? kAmber : 0xa0a0a0);
  const uint32_t dim = 0x404040;
  auto button = [&](const Rect& r, uint32_t color, const std::string& label) {
    list_.RoundRect(r.x, r.y, r.w, r.h, 8, color);
    list_.Text(label, r.x + r.w / 2, r.y + (r.h - 16) / 2, 2, kFaceWhite, Align::Center);
  };
  button(kNgButtonRect, v.buttonsEnabled ? 0xd02020 : dim, "NG");
  button(kMiddleButtonRect, 0x3050a0, v.middleLabel);
  button(kOkButtonRect, v.buttonsEnabled ? 0x20a040 : dim, "OK");
}

}  // namespace sc
