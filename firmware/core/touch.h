// Touch input of the CoreS3 screen as pure functions of coordinates and
// time: where the approval buttons are, and what a finger did (tap or head
// swipe). The device layer feeds the touch panel's points every frame, the
// simulator feeds the points its control socket gets; both end up in
// Device::Touch / Device::Swipe through the same rules.
//
// Shaped like M5Unified's Button_Class/Touch_Class (style anchor 5): the
// caller passes now_ms and the raw state, nothing is read here. Screen
// coordinates: 320 x 240, origin top left, rotation 1 (USB port down).
#pragma once

#include <cstddef>
#include <cstdint>

namespace sc {

constexpr int kScreenWidth = 320, kScreenHeight = 240;

struct Rect {
  int x, y, w, h;
  bool Contains(int px, int py) const { return px >= x && px < x + w && py >= y && py < y + h; }
};

// The approval screen's three buttons as drawn. Their hit zones are the
// whole band below them, split halfway between buttons, so a finger that
// lands in a 6 px gap still picks the nearer button.
constexpr int kButtonsY = 190, kButtonH = 46;
constexpr Rect kNgButtonRect{4, kButtonsY, 100, kButtonH};
constexpr Rect kMiddleButtonRect{110, kButtonsY, 100, kButtonH};
constexpr Rect kOkButtonRect{216, kButtonsY, 100, kButtonH};
constexpr int kNgMiddleSplitX = 107, kMiddleOkSplitX = 213;

enum class ApprovalButton : uint8_t { None, Ng, Middle, Ok };

// ApprovalButtonAt: the button a tap at (x, y) presses (None off the band
// or off the screen).
ApprovalButton ApprovalButtonAt(int x, int y);

// Gesture thresholds (M5Unified's defaults where it has one).
constexpr int kTapSlopPx = 8;          // moved less than this: still a tap (its flick threshold)
constexpr uint32_t kHoldMs = 500;      // still this long: a hold, neither tap nor swipe (its hold threshold)
constexpr int kHeadZoneHeight = 80;    // a swipe starts across the top of the screen, the head
constexpr int kSwipeMinPx = 40;        // horizontal travel of a swipe

struct TouchPoint {
  uint8_t id = 0;  // the panel's finger id
  int16_t x = 0, y = 0;
};

enum class Gesture : uint8_t { None, Tap, SwipeForward, SwipeBackward, SwipeUp, SwipeDown };

struct GestureEvent {
  Gesture kind = Gesture::None;
  int x = 0, y = 0;  // Tap: where the finger went down
};

// TouchClassifier follows one finger from press to release:
//  * Tap: released within kHoldMs, never more than kTapSlopPx from where it
//    went down.
//  * Swipe: went down in the head zone, started moving before kHoldMs, and
//    at release is at least kSwipeMinPx away horizontally, more across
//    than down. Right = forward (conversation.start), left = backward.
//  * Volume swipe: went down below the head zone, started moving before
//    kHoldMs, and at release is at least kSwipeMinPx away vertically, more
//    up or down than across. Up = louder, down = quieter. Starting below
//    the head keeps it apart from the head swipe (a steep stroke from the
//    head stays nothing), and ActionFor ignores it on the approval screen.
//  * Anything else (a hold, a short or vertical slide, a slow drag) is
//    nothing: a lost tap is better than a wrong approval.
// Only the first finger counts. Other fingers, even a tap on a button
// while the first one swipes, are ignored, and nothing new starts until
// every finger is up.
class TouchClassifier {
 public:
  // Update with the points down now (n = 0: none). Returns the gesture a
  // release completed, else None.
  GestureEvent Update(uint32_t now, const TouchPoint* points, size_t n);
  bool tracking() const { return down_; }

 private:
  GestureEvent release(uint32_t now) const;
  bool down_ = false, waitAllUp_ = false, moved_ = false;
  uint8_t id_ = 0;
  int x0_ = 0, y0_ = 0, x_ = 0, y_ = 0;
  uint32_t t0_ = 0, movedAt_ = 0;
};

// What a gesture does on the CoreS3: a head swipe always reaches the
// conversation; a tap only presses an approval button while that screen is
// up; a volume swipe only changes tts.volume while it is not (its buttons
// take taps only, so a slip of the finger there never does anything).
enum class TouchAction : uint8_t { None, Ng, Middle, Ok, SwipeForward, SwipeBackward, VolumeUp, VolumeDown };
TouchAction ActionFor(const GestureEvent& g, bool approvalVisible);

}  // namespace sc
