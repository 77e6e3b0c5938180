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
  SwipeUp, SwipeDown,                                          // volume swipes (shortcuts too)
  FingerDown, FingerMove, FingerUp,                            // raw panel input
  Unplug, Plug,
  Screenshot,  // write the screen as a PNG to path
};

struct Command {
  CommandKind kind = CommandKind::Invalid;
  int x = 0, y = 0;  // FingerDown / FingerMove
  uint8_t id = 0;    // finger id, 0-9 (default 0)
  std::string error;  // for Invalid: what was wrong
  std::string path;   // for Screenshot
};

// ParseCommand reads one line: "touch ok|ng|detail", "swipe forward|backward",
// "down X Y [ID]", "move X Y [ID]", "up [ID]", "unplug", "plug",
// "swipe up|down" (volume), "screenshot PATH".
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
  void Volume(uint8_t percent, bool forcedZero) override;

 private:
  std::function<void(const std::string&)> emit_;
};

// TeeUi hands every Ui call to two sinks (the sim: JSON lines and the face).
class TeeUi : public sc::Ui {
 public:
  TeeUi(sc::Ui& a, sc::Ui& b) : a_(a), b_(b) {}
  void Status(uint8_t v) override { a_.Status(v), b_.Status(v); }
  void Task(bool r) override { a_.Task(r), b_.Task(r); }
  void Caption(const std::string& t) override { a_.Caption(t), b_.Caption(t); }
  void Mouth(float o) override { a_.Mouth(o), b_.Mouth(o); }
  void Approval(const sc::ApprovalView& v) override { a_.Approval(v), b_.Approval(v); }
  void Conversation(sc::ConvState s, const std::string& e) override { a_.Conversation(s, e), b_.Conversation(s, e); }
  void Link(sc::TransportState s) override { a_.Link(s), b_.Link(s); }
  void Handshake(bool d) override { a_.Handshake(d), b_.Handshake(d); }
  void Playing(bool on) override { a_.Playing(on), b_.Playing(on); }
  void Volume(uint8_t p, bool z) override { a_.Volume(p, z), b_.Volume(p, z); }
  void AudioPlayed(uint64_t n, uint32_t r, bool c) override { a_.AudioPlayed(n, r, c), b_.AudioPlayed(n, r, c); }
  void Log(const char* l) override { a_.Log(l), b_.Log(l); }

 private:
  sc::Ui& a_;
  sc::Ui& b_;
};

// FileSettings keeps settings as one KEY=VALUE line each in a file,
// replaced atomically on every save (the sim's NVS).
class FileSettings : public sc::SettingsStore {
 public:
  explicit FileSettings(std::string path) : path_(std::move(path)) {}
  bool Load(const char* key, std::string* value) override;
  bool Save(const char* key, const std::string& value) override;

 private:
  std::string path_;
};

}  // namespace sim
