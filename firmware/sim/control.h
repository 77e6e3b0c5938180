// The simulator's control line protocol (unix socket), kept apart from the
// socket code so it is unit-tested: input lines become Commands, and every
// UI change becomes one JSON line.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ports.h"
#include "touch.h"

namespace sim {

enum class CommandKind {
  Invalid,
  TouchOk, TouchNg, TouchDetail, SwipeForward, SwipeBackward,  // shortcuts: a finger doing it
  FingerDown, FingerMove, FingerUp,                            // raw panel input
  Unplug, Plug,
};

struct Command {
  CommandKind kind = CommandKind::Invalid;
  int x = 0, y = 0;  // FingerDown / FingerMove
  uint8_t id = 0;    // finger id, 0-9 (default 0)
  std::string error;  // for Invalid: what was wrong
};

// ParseCommand reads one line: "touch ok|ng|detail", "swipe forward|backward",
// "down X Y [ID]", "move X Y [ID]", "up [ID]", "unplug", "plug".
Command ParseCommand(const std::string& line);

// Touchscreen is the sim's touch panel: raw finger commands go through the
// core's TouchClassifier, like the CoreS3's panel points do; the shortcuts
// are fingers too (a tap on the button's centre, a 160 px flick across the
// head), so every touch the sim gets passes the same rules.
class Touchscreen {
 public:
  sc::TouchAction Apply(const Command& c, uint32_t now, bool approvalVisible);

 private:
  sc::TouchAction feed(uint32_t now, bool approvalVisible);
  std::vector<sc::TouchPoint> fingers_;
  sc::TouchClassifier classifier_;
};

// JsonUi turns Ui calls into JSON lines for the control socket.
class JsonUi : public sc::Ui {
 public:
  explicit JsonUi(std::function<void(const std::string&)> emit) : emit_(std::move(emit)) {}
  void Status(uint8_t v) override;
  void Task(bool running) override;
  void Caption(const std::string& text) override;
  void Mouth(float open) override;
  void Approval(const sc::ApprovalView& v) override;
  void Conversation(sc::ConvState s, const std::string& error) override;
  void Link(sc::TransportState s) override;
  void AudioPlayed(uint64_t bytes, uint32_t rate, bool completed) override;
  void Log(const char* line) override;

 private:
  std::function<void(const std::string&)> emit_;
};

}  // namespace sim
