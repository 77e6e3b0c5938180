// The firmware side of the dock's session layer (spec §18): the
// Realtime-shaped raw events through which our firmware offers its function
// tools to the host and runs the host's calls. The rules are pinned by
// protocols/stackchan/testdata/realtime-session-vectors.json, which the Pi's
// host (protocols/stackchan/realtime) runs too:
//
// * nothing is sent until the host's session.created (while EVENT is
//   ready); then session.update with a fresh event_id and the catalog,
//   retried every 100 ms until queued and resent unchanged every 2 s until
//   session.updated with that event_id arrives;
// * a call (response.function_call_arguments.done) runs only if its
//   stackchan_session_update_id is the latest session.update, queued and
//   acknowledged; anything else is dropped, and a call_id runs once;
// * the output (conversation.item.create) and response.create go in two
//   send slots: a failed output is retried with both, a failed
//   response.create alone, every 2 s for up to 10 s;
// * when EVENT leaves ready everything is forgotten until a fresh
//   session.created.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "apps.h"

namespace sc {

constexpr uint32_t kSessionUpdateRetryMs = 100;   // unqueued session.update
constexpr uint32_t kSessionUpdateResendMs = 2000;  // queued, not yet acknowledged
constexpr uint32_t kOutputRetryMs = 2000;
constexpr uint32_t kOutputGiveUpMs = 10000;

// ToolSpec is one function tool of the catalog; parameters is a JSON
// Schema object as compact JSON text.
struct ToolSpec {
  std::string name, description, parameters;
};

// ToolRunner runs one call of a catalog tool; args is the JSON object the
// host sent (already validated as an object). It returns the function
// output, a short string for the model.
class ToolRunner {
 public:
  virtual ~ToolRunner() = default;
  virtual std::string Run(const std::string& name, const std::string& args, uint32_t now) = 0;
};

struct RealtimeStats {
  uint64_t callsRun = 0, callsDropped = 0, outputsGivenUp = 0, hostErrors = 0;
};

class RealtimeSession {
 public:
  static constexpr size_t kMaxPending = 8;
  static constexpr size_t kRecentCalls = 16;
  // idPrefix makes our event ids unique across boots (the boot token).
  RealtimeSession(EventSender& out, ToolRunner& run, std::vector<ToolSpec> catalog, std::string instructions,
                  std::string idPrefix);

  // OnRaw handles one raw event (EVENT JSON without "schema") from the host.
  void OnRaw(const std::string& json, TransportState ts, uint32_t now);
  // OnTransport: leaving ready forgets the session.
  void OnTransport(TransportState ts);
  void Tick(TransportState ts, uint32_t now);

  bool open() const { return open_; }
  bool acknowledged() const { return acked_; }
  const std::string& updateId() const { return updateId_; }
  size_t pending() const { return pending_.size(); }
  const RealtimeStats& stats() const { return stats_; }
  const char* lastDrop() const { return lastDrop_; }

 private:
  struct Output {
    std::string item, response;
    bool itemQueued = false;
    uint32_t first = 0, next = 0;
  };
  void reset();
  std::string nextId(const char* kind);
  void sendUpdate(uint32_t now);
  void call(const std::string& json, uint32_t now);
  void drop(const char* why);
  bool trySend(Output& o, uint32_t now);  // true when both are queued

  EventSender& out_;
  ToolRunner& run_;
  std::vector<ToolSpec> catalog_;
  std::string instructions_, prefix_;
  uint64_t n_ = 0;

  bool open_ = false;
  std::string updateId_, update_;
  bool updateQueued_ = false, acked_ = false;
  uint32_t updateNext_ = 0;
  std::vector<Output> pending_;
  std::deque<std::string> recent_;  // call ids already run
  RealtimeStats stats_;
  const char* lastDrop_ = "";
};

// SendVia adapts anything with SendResult Send(const std::string&) (the
// Device) to an EventSender.
template <typename T>
class SendVia : public EventSender {
 public:
  explicit SendVia(T& t) : t_(t) {}
  SendResult SendEvent(const std::string& json) override { return t_.Send(json); }

 private:
  T& t_;
};

// SessionUpdateJson is the session.update our firmware sends for catalog.
std::string SessionUpdateJson(const std::string& eventId, const std::string& instructions,
                              const std::vector<ToolSpec>& catalog);

}  // namespace sc
