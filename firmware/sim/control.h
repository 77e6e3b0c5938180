// The simulator's control line protocol (unix socket), kept apart from the
// socket code so it is unit-tested: input lines become Commands, and every
// UI change becomes one JSON line.
#pragma once

#include <functional>
#include <string>

#include "ports.h"

namespace sim {

enum class CommandKind { Invalid, TouchOk, TouchNg, TouchDetail, SwipeForward, SwipeBackward, Unplug, Plug };

struct Command {
  CommandKind kind = CommandKind::Invalid;
  std::string error;  // for Invalid: what was wrong
};

// ParseCommand reads one line ("touch ok", "swipe forward", "unplug", ...).
Command ParseCommand(const std::string& line);

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
