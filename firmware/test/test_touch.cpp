// Touch classification (core/touch): the approval buttons' hit zones at
// their edges, and taps, holds and head swipes from raw panel points.
// Pins the rules the CoreS3 layer and cores3-sim both run, which before
// lived untested in src/main.cpp and src/face.cpp.
#include <vector>

#include "helpers.h"
#include "touch.h"
#include "usb_presence.h"

using namespace sc;

namespace {
// Finger replays samples (time, points down) into a classifier and returns
// every gesture it reported, in order.
struct Sample {
  uint32_t t;
  std::vector<TouchPoint> pts;
};
std::vector<GestureEvent> Replay(const std::vector<Sample>& samples) {
  TouchClassifier c;
  std::vector<GestureEvent> out;
  for (auto& s : samples) {
    GestureEvent g = c.Update(s.t, s.pts.data(), s.pts.size());
    if (g.kind != Gesture::None) out.push_back(g);
  }
  return out;
}
TouchPoint P(int x, int y, uint8_t id = 0) {
  TouchPoint p;
  p.id = id;
  p.x = int16_t(x);
  p.y = int16_t(y);
  return p;
}
// A one-finger stroke from (x0,y0) to (x1,y1) over ms, sampled every 16 ms
// (the CoreS3 loop), released at the end.
std::vector<Sample> Stroke(int x0, int y0, int x1, int y1, uint32_t ms, uint32_t t0 = 1000) {
  std::vector<Sample> s;
  for (uint32_t t = 0; t <= ms; t += 16) {
    double f = ms ? double(t) / ms : 1;
    s.push_back({t0 + t, {P(int(x0 + (x1 - x0) * f), int(y0 + (y1 - y0) * f))}});
  }
  s.push_back({t0 + ms + 16, {}});
  return s;
}
}  // namespace

TEST_CASE("approval buttons: hit zones at the edges of each button and of the band") {
  struct Case {
    int x, y;
    ApprovalButton want;
  } cases[] = {
      {0, 190, ApprovalButton::Ng},        {106, 190, ApprovalButton::Ng},      // NG: left edge, last column
      {4, 235, ApprovalButton::Ng},        {105, 235, ApprovalButton::Ng},      // gap to the right of NG
      {107, 190, ApprovalButton::Middle},  {109, 212, ApprovalButton::Middle},  // gap left of the middle button
      {212, 235, ApprovalButton::Middle},  {160, 213, ApprovalButton::Middle},
      {213, 190, ApprovalButton::Ok},      {215, 200, ApprovalButton::Ok},      // gap left of OK
      {319, 235, ApprovalButton::Ok},      {316, 212, ApprovalButton::Ok},      // right edge
      {54, 189, ApprovalButton::None},     {266, 189, ApprovalButton::None},    // one row above the band
      {54, 236, ApprovalButton::None},     {266, 239, ApprovalButton::None},    // below the buttons
      {-1, 200, ApprovalButton::None},     {320, 200, ApprovalButton::None},    // off the screen
  };
  for (auto& c : cases) {
    CAPTURE(c.x);
    CAPTURE(c.y);
    CHECK(ApprovalButtonAt(c.x, c.y) == c.want);
  }
  // Every drawn button's pixels hit that button.
  for (int y = kButtonsY; y < kButtonsY + kButtonH; y++) {
    CHECK(ApprovalButtonAt(kNgButtonRect.x, y) == ApprovalButton::Ng);
    CHECK(ApprovalButtonAt(kNgButtonRect.x + kNgButtonRect.w - 1, y) == ApprovalButton::Ng);
    CHECK(ApprovalButtonAt(kMiddleButtonRect.x, y) == ApprovalButton::Middle);
    CHECK(ApprovalButtonAt(kMiddleButtonRect.x + kMiddleButtonRect.w - 1, y) == ApprovalButton::Middle);
    CHECK(ApprovalButtonAt(kOkButtonRect.x, y) == ApprovalButton::Ok);
    CHECK(ApprovalButtonAt(kOkButtonRect.x + kOkButtonRect.w - 1, y) == ApprovalButton::Ok);
  }
}

TEST_CASE("tap: press and release in place, at the press point; a wobble under 8 px is still a tap") {
  auto g = Replay({{1000, {P(266, 212)}}, {1016, {P(266, 212)}}, {1032, {}}});
  REQUIRE(g.size() == 1);
  CHECK(g[0].kind == Gesture::Tap);
  CHECK(g[0].x == 266);
  CHECK(g[0].y == 212);
  CHECK(ActionFor(g[0], true) == TouchAction::Ok);
  CHECK(ActionFor(g[0], false) == TouchAction::None);  // no approval screen: nothing to press

  g = Replay({{0, {P(54, 200)}}, {16, {P(61, 193)}}, {32, {P(50, 206)}}, {48, {}}});
  REQUIRE(g.size() == 1);
  CHECK(ActionFor(g[0], true) == TouchAction::Ng);
  CHECK(g[0].x == 54);  // the press point, not where the finger slid

  g = Replay({{0, {P(54, 200)}}, {16, {P(62, 200)}}, {32, {}}});  // 8 px: moved
  CHECK(g.empty());
}

TEST_CASE("tap: a press held 500 ms is a hold, not a tap; 499 ms still taps") {
  CHECK(Replay({{0, {P(160, 210)}}, {499, {}}}).size() == 1);
  CHECK(Replay({{0, {P(160, 210)}}, {500, {}}}).empty());
  CHECK(Replay({{0, {P(160, 210)}}, {250, {P(160, 210)}}, {600, {}}}).empty());
}

TEST_CASE("swipe: long swipes across the head are forward (right) or backward (left)") {
  auto g = Replay(Stroke(40, 40, 280, 50, 200));
  REQUIRE(g.size() == 1);
  CHECK(g[0].kind == Gesture::SwipeForward);
  CHECK(ActionFor(g[0], false) == TouchAction::SwipeForward);
  CHECK(ActionFor(g[0], true) == TouchAction::SwipeForward);  // also over an approval screen
  g = Replay(Stroke(280, 70, 40, 20, 200));
  REQUIRE(g.size() == 1);
  CHECK(g[0].kind == Gesture::SwipeBackward);
  // Exactly 40 px is enough; 39 is not.
  CHECK(Replay(Stroke(100, 40, 140, 40, 64)).size() == 1);
  CHECK(Replay(Stroke(100, 40, 139, 40, 64)).empty());
  // A long-lasting swipe counts if the finger started moving at once.
  g = Replay(Stroke(20, 40, 300, 40, 1500));
  REQUIRE(g.size() == 1);
  CHECK(g[0].kind == Gesture::SwipeForward);
}

TEST_CASE("swipe: short, vertical, below the head or after a hold are nothing (and never a tap)") {
  CHECK(Replay(Stroke(100, 40, 125, 40, 100)).empty());   // short: 25 px
  CHECK(Replay(Stroke(100, 10, 150, 70, 100)).empty());   // 50 across, 60 down: more down than across
  CHECK(Replay(Stroke(40, 80, 280, 80, 200)).empty());    // starts at y 80: below the head zone
  CHECK(Replay(Stroke(40, 79, 280, 120, 200)).size() == 1);  // starts at y 79: in it
  // Held still 500 ms, then dragged: a drag, not a flick.
  std::vector<Sample> s = {{1000, {P(40, 40)}}, {1300, {P(40, 40)}}, {1500, {P(41, 40)}}};
  auto rest = Stroke(41, 40, 280, 40, 200, 1516);
  s.insert(s.end(), rest.begin(), rest.end());
  CHECK(Replay(s).empty());
  // A swipe ending on the OK button is a swipe, not a press of OK.
  auto g = Replay(Stroke(200, 60, 266, 212, 150));
  CHECK(g.empty());  // more down than across: nothing at all
  g = Replay(Stroke(10, 70, 266, 212, 150));
  REQUIRE(g.size() == 1);
  CHECK(ActionFor(g[0], true) == TouchAction::SwipeForward);
}

TEST_CASE("a tap during a swipe: the second finger is ignored, the swipe completes; then taps work again") {
  std::vector<Sample> s = {
      {1000, {P(40, 40, 0)}},
      {1016, {P(80, 40, 0)}},
      {1032, {P(120, 40, 0), P(266, 212, 1)}},  // second finger taps OK mid-swipe
      {1048, {P(160, 40, 0), P(266, 212, 1)}},
      {1064, {P(200, 40, 0)}},                   // ... and lifts
      {1080, {P(240, 40, 0)}},
      {1096, {}},
  };
  auto g = Replay(s);
  REQUIRE(g.size() == 1);
  CHECK(g[0].kind == Gesture::SwipeForward);

  // The swiping finger lifts first while the other stays: nothing new starts
  // until all fingers are up, so the leftover finger never becomes a tap.
  TouchClassifier c;
  TouchPoint both[] = {P(40, 40, 0), P(266, 212, 1)};
  TouchPoint second[] = {P(266, 212, 1)};
  TouchPoint ok[] = {P(266, 212, 2)};
  CHECK(c.Update(0, both, 1).kind == Gesture::None);
  both[0] = P(200, 40, 0);
  CHECK(c.Update(16, both, 2).kind == Gesture::None);
  CHECK(c.Update(32, second, 1).kind == Gesture::SwipeForward);
  CHECK(c.Update(48, second, 1).kind == Gesture::None);
  CHECK(c.Update(64, nullptr, 0).kind == Gesture::None);  // the leftover finger lifts: no tap
  CHECK_FALSE(c.tracking());
  CHECK(c.Update(80, ok, 1).kind == Gesture::None);
  GestureEvent tap = c.Update(96, nullptr, 0);
  CHECK(tap.kind == Gesture::Tap);
  CHECK(ActionFor(tap, true) == TouchAction::Ok);
}

TEST_CASE("touch actions reach the Device: a tap on OK approves, a head swipe starts a conversation") {
  Rig r;
  r.SendEvent(R"({"schema":"stackchan.event.v1","type":"approval.request","requestId":"approval-7",)"
              R"("kind":"command","title":"Run","summary":"ls","detail":"ls","truncated":false})",
              1);
  r.Events();
  REQUIRE(r.dev.approvals().View().visible);
  TouchClassifier c;
  TouchPoint p = P(kOkButtonRect.x + 1, kOkButtonRect.y + kOkButtonRect.h - 1);
  c.Update(r.now, &p, 1);
  TouchAction a = ActionFor(c.Update(r.now + 80, nullptr, 0), r.dev.approvals().View().visible);
  REQUIRE(a == TouchAction::Ok);
  r.dev.OnTouch(a, r.now);
  auto evs = r.Events();
  REQUIRE(evs.size() == 1);
  CHECK(evs[0]["type"] == "approval.response");
  CHECK(evs[0]["decision"] == "approve");
}

TEST_CASE("USB presence: the SOF frame index moving means a host; frozen or first sample means none") {
  SofWatch w;
  CHECK_FALSE(w.Update(100));  // first sample: nothing to compare
  CHECK(w.Update(102));        // 2 ms later: two SOFs
  CHECK_FALSE(w.Update(102));  // frozen: no host (or suspended)
  CHECK(w.Update(0x7FF));
  CHECK(w.Update(0x001));      // wraps at 11 bits
  CHECK_FALSE(w.Update(0xF801));  // only bits 10:0 count: same index 1
}
