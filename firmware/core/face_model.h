// FaceModel is what the CoreS3's screen shows, as a pure function of what
// the Device reported (it is a Ui) and of time: the living face (blink,
// breathing, gaze saccades, paused while audio plays), the mouth following
// the speech, the transport state, the conversation state with the spec's
// status badge (§12.8), the reason a request was refused, the volume, and
// the approval screen. Frame(now) returns the frame as a DisplayList;
// drawing it is src/face.cpp's (M5GFX) or sim/raster.h's job.
//
// Timing is data: every random interval comes from a seeded xorshift32 and
// every event is scheduled from the previous one, not from when Frame is
// called, so the same seed and the same inputs give the same frames
// whatever the caller's frame rate (test/test_face.cpp).
//
// For a tool runtime (session.*, through face_tools.h): SetExpression,
// LookAt, Nod, Shake, ShowCaption and Say are the face's actions; each takes
// effect at the next Frame.
#pragma once

#include <cstdint>
#include <string>

#include "apps.h"
#include "display.h"
#include "ports.h"

namespace sc {

enum class Expression : uint8_t { Neutral, Happy, Sad, Angry, Surprised, Sleepy, Doubtful };
const char* ExpressionName(Expression e);
bool ParseExpression(const std::string& s, Expression* out);

// The face's timing (ms). Blink and saccade intervals are uniform in
// [min, max).
constexpr uint32_t kBlinkMinMs = 2000, kBlinkMaxMs = 6000, kBlinkMs = 180;
constexpr uint32_t kSaccadeMinMs = 1000, kSaccadeMaxMs = 4000;
constexpr uint32_t kBreathPeriodMs = 4000;
constexpr int kBreathPx = 2;
constexpr uint32_t kGestureMs = 600;     // one nod or shake: two swings; Nod(now, 3) takes 1.8 s
constexpr uint32_t kLookHoldMs = 3000;   // LookAt holds the gaze this long
constexpr uint32_t kRefusalShowMs = 10000;  // the "blocked: why" banner
constexpr uint32_t kVolumeShowMs = 1500;    // the volume bar after a change
constexpr uint32_t kSpinnerFrameMs = 250;   // 4 frames (§12.8)

// Colours of the face's visual language.
constexpr uint32_t kFaceWhite = 0xffffff, kFaceGrey = 0x808080, kFaceDim = 0x484848;
constexpr uint32_t kBadgeBg = 0x202428, kAmber = 0xffb000, kTaskBlue = 0x42bde8, kRed = 0xff3030;
constexpr uint32_t kSpinnerDim = 0x606060, kMicMuted = 0x808080, kRefusalBg = 0x5a1010;

// Where things are (320x240): the badges' centres, the eyes, the mouth.
constexpr int kBadgeX = 302, kBadgeY = 18, kTaskBadgeX = kBadgeX - 40, kBadgeHalf = 14;
constexpr int kLeftEyeX = 96, kRightEyeX = 224, kEyeY = 100, kEyeR = 12;
constexpr int kMouthX = 160, kMouthY = 152, kMouthW = 64;

// FaceActions is what a tool runtime (session.*) may do with the face.
// FaceModel implements it; the CoreS3 layer wraps it in its UI lock.
class FaceActions {
 public:
  virtual ~FaceActions() = default;
  virtual void SetExpression(Expression e) = 0;
  // LookAt: x, y in -1..1 (right, down positive), held kLookHoldMs.
  virtual void LookAt(float x, float y, uint32_t now) = 0;
  // Nod, Shake: times gestures of kGestureMs, one after the other.
  virtual void Nod(uint32_t now, int times = 1) = 0;
  virtual void Shake(uint32_t now, int times = 1) = 0;
  // ShowCaption: the balloon's text ("" hides it), as SPEAKER_TEXT shows.
  virtual void ShowCaption(const std::string& text) = 0;
  // Say shows text in the balloon for holdMs from now, then hides it,
  // unless a later caption (ShowCaption, SPEAKER_TEXT) replaced it first.
  virtual void Say(const std::string& text, uint32_t holdMs, uint32_t now) = 0;
};

// Pose is the animated part of one frame.
struct Pose {
  float eyeOpen = 1;     // 1 open, 0 shut (blink)
  int gazeX = 0, gazeY = 0;  // eye offset in px
  int breathY = 0;       // the whole face moves up and down
  int headX = 0, headY = 0;  // nod (y) and shake (x)
  bool paused = false;   // audio plays: blink, breath and gaze rest
};

class FaceModel : public Ui, public FaceActions {
 public:
  explicit FaceModel(uint32_t seed = 1);

  // ---- Ui: what the Device reports
  void Status(uint8_t v) override { status_ = v; }
  void Task(bool running) override { task_ = running; }
  void Caption(const std::string& text) override {
    caption_ = text;
    captionHeld_ = false;
  }
  void Mouth(float open) override { mouth_ = open < 0 ? 0 : open > 1 ? 1 : open; }
  void Approval(const ApprovalView& v) override { approval_ = v; }
  void Conversation(ConvState s, const std::string& error) override;
  void Link(TransportState s) override { link_ = s; }
  void Handshake(bool done) override { hello_ = done; }
  void Playing(bool on) override { playingNext_ = on; }
  void Volume(uint8_t percent, bool forcedZero) override;

  // ---- actions (a tool runtime's hooks)
  void SetExpression(Expression e) override { expression_ = e; }
  // LookAt points the eyes at (x, y), each -1..1 (right, down positive),
  // for kLookHoldMs; then the saccades resume.
  void LookAt(float x, float y, uint32_t now) override;
  void Nod(uint32_t now, int times = 1) override { startGesture(true, times, now); }
  void Shake(uint32_t now, int times = 1) override { startGesture(false, times, now); }
  void ShowCaption(const std::string& text) override { Caption(text); }
  void Say(const std::string& text, uint32_t holdMs, uint32_t now) override;
  // Glyphs: which characters the device font draws (escape boxes otherwise).
  void SetGlyphs(HasGlyph has) { has_ = has; }

  // Frame advances the clock to now and returns the frame.
  const DisplayList& Frame(uint32_t now);
  // PoseAt advances to now and returns only the animated part (tests).
  Pose PoseAt(uint32_t now);

  Expression expression() const { return expression_; }
  bool approvalVisible() const { return approval_.visible; }
  bool refusalShown(uint32_t now) const;

 private:
  uint32_t rand(uint32_t lo, uint32_t hi);
  void advance(uint32_t now);
  void startGesture(bool nod, int times, uint32_t now);
  void drawFace(const Pose& p, uint32_t now);
  void drawEye(int cx, int cy, bool left, const Pose& p, uint32_t color);
  void drawMouth(int cx, int cy, uint32_t color);
  void drawStateLine();
  void drawBottom(uint32_t now);
  void drawBadges(uint32_t now);
  void drawSpinner(int cx, int cy, uint32_t color, uint32_t now);
  void drawMic(int cx, int cy, uint32_t color);
  void drawVolume(uint32_t now);
  void drawApproval();

  uint32_t rng_;
  bool started_ = false;
  uint32_t now_ = 0;
  // animation schedule (absolute ms)
  uint32_t blinkAt_ = 0, saccadeAt_ = 0, breathT0_ = 0;
  int gazeX_ = 0, gazeY_ = 0;
  bool looking_ = false;
  uint32_t lookUntil_ = 0;
  bool gesture_ = false, gestureNod_ = false;
  uint32_t gestureAt_ = 0, gestureMs_ = kGestureMs;
  bool captionHeld_ = false;  // a Say caption, hidden at captionUntil_
  uint32_t captionUntil_ = 0;
  bool playing_ = false, playingNext_ = false;
  // inputs
  uint8_t status_ = 0;
  bool task_ = false;
  std::string caption_;
  float mouth_ = 0;
  ApprovalView approval_;
  ConvState conv_ = ConvState::Standby;
  std::string convError_;
  bool refusalPending_ = false, refusal_ = false;
  uint32_t refusalAt_ = 0;
  TransportState link_ = TransportState::Disconnected;
  bool hello_ = false;
  uint8_t volume_ = 0;
  bool volumeZero_ = false, volumePending_ = false, volumeShown_ = false;
  uint32_t volumeAt_ = 0;
  Expression expression_ = Expression::Neutral;
  HasGlyph has_ = nullptr;
  DisplayList list_;
};

}  // namespace sc
