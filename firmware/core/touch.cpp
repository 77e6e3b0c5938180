#include "touch.h"

#include <cstdlib>

namespace sc {

ApprovalButton ApprovalButtonAt(int x, int y) {
  if (x < 0 || x >= kScreenWidth || y < kButtonsY || y >= kButtonsY + kButtonH) return ApprovalButton::None;
  if (x < kNgMiddleSplitX) return ApprovalButton::Ng;
  if (x < kMiddleOkSplitX) return ApprovalButton::Middle;
  return ApprovalButton::Ok;
}

GestureEvent TouchClassifier::Update(uint32_t now, const TouchPoint* points, size_t n) {
  const TouchPoint* mine = nullptr;
  for (size_t i = 0; i < n; i++)
    if (down_ && points[i].id == id_) mine = &points[i];

  if (!down_) {
    if (n == 0) waitAllUp_ = false;
    if (n == 0 || waitAllUp_) return {};
    down_ = true;
    id_ = points[0].id;
    x0_ = x_ = points[0].x;
    y0_ = y_ = points[0].y;
    t0_ = now;
    moved_ = false;
    return {};
  }
  if (!mine) {  // our finger is up: decide
    down_ = false;
    waitAllUp_ = n > 0;
    return release(now);
  }
  x_ = mine->x;
  y_ = mine->y;
  if (!moved_ && (std::abs(x_ - x0_) >= kTapSlopPx || std::abs(y_ - y0_) >= kTapSlopPx)) {
    moved_ = true;
    movedAt_ = now;
  }
  return {};
}

GestureEvent TouchClassifier::release(uint32_t now) const {
  GestureEvent ev;
  if (!moved_) {
    if (now - t0_ < kHoldMs) {
      ev.kind = Gesture::Tap;
      ev.x = x0_;
      ev.y = y0_;
    }
    return ev;
  }
  int dx = x_ - x0_, dy = y_ - y0_;
  bool flick = movedAt_ - t0_ < kHoldMs;
  if (flick && y0_ < kHeadZoneHeight && std::abs(dx) >= kSwipeMinPx && std::abs(dx) > std::abs(dy))
    ev.kind = dx > 0 ? Gesture::SwipeForward : Gesture::SwipeBackward;
  else if (flick && y0_ >= kHeadZoneHeight && std::abs(dy) >= kSwipeMinPx && std::abs(dy) > std::abs(dx))
    ev.kind = dy < 0 ? Gesture::SwipeUp : Gesture::SwipeDown;
  return ev;
}

TouchAction ActionFor(const GestureEvent& g, bool approvalVisible) {
  switch (g.kind) {
    case Gesture::SwipeForward: return TouchAction::SwipeForward;
    case Gesture::SwipeBackward: return TouchAction::SwipeBackward;
    case Gesture::SwipeUp: return approvalVisible ? TouchAction::None : TouchAction::VolumeUp;
    case Gesture::SwipeDown: return approvalVisible ? TouchAction::None : TouchAction::VolumeDown;
    case Gesture::Tap:
      if (!approvalVisible) return TouchAction::None;
      switch (ApprovalButtonAt(g.x, g.y)) {
        case ApprovalButton::Ng: return TouchAction::Ng;
        case ApprovalButton::Middle: return TouchAction::Middle;
        case ApprovalButton::Ok: return TouchAction::Ok;
        default: return TouchAction::None;
      }
    default: return TouchAction::None;
  }
}

}  // namespace sc
