// The session decoder's fuzz harness, shared by the libFuzzer target
// (libfuzzer_parser.cc, selector 4) and the seeded loop in test_fuzz.cpp:
// raw events from the host, one a line, into a RealtimeSession whose
// catalog is already open and acknowledged ("f-update-1"), running the real
// tools on a FaceModel through core/face_tools.
//
// Contract, besides no crash and no sanitizer report: a call runs only with
// the catalog acknowledged; a call that did not run, or whose output is an
// error, leaves the drawn frame unchanged; at most kMaxPending outputs wait;
// everything sent to the host is a JSON object.
#pragma once

#include <cstdint>
#include <string>

#include "face_model.h"
#include "face_tools.h"
#include "json.h"
#include "session.h"
#include "tools.h"

namespace sc {
namespace fuzz {

// SessionRun says how one input went: broke is nullptr or what failed.
struct SessionRun {
  const char* broke = nullptr;
  uint64_t ran = 0, ranOk = 0;  // tool calls run; of them, not an error
};

inline SessionRun FuzzSession(const std::string& input) {
  struct Out : EventSender {
    uint64_t n = 0;
    bool bad = false;
    SendResult SendEvent(const std::string& j) override {
      json::Object o;
      if (json::ParseObject(j.data(), j.size(), &o) != json::ParseResult::Ok) bad = true;
      // Every fifth send finds the queue full: the retry paths run too.
      return n++ % 5 == 4 ? SendResult::Overflow : SendResult::Queued;
    }
  } out;
  struct Recording : ToolRunner {
    CharacterTools* tools;
    std::string last;
    std::string Run(const std::string& name, const std::string& args, uint32_t now) override {
      return last = tools->Run(name, args, now);
    }
  } run;
  FaceModel face(1);
  face.Link(TransportState::Ready);
  face.Handshake(true);
  CharacterTools tools(ToolFaceOver(face));
  run.tools = &tools;
  RealtimeSession s(out, run, CharacterTools::Catalog(), CharacterTools::Instructions(), "f");
  const TransportState ready = TransportState::Ready;
  s.OnRaw(R"({"type":"session.created","event_id":"h"})", ready, 0);
  s.OnRaw(R"({"type":"session.updated","event_id":"f-update-1"})", ready, 0);
  SessionRun r;
  if (!s.acknowledged()) {
    r.broke = "the harness's session was not acknowledged";
    return r;
  }
  uint32_t now = 1;
  size_t at = 0;
  while (at <= input.size()) {
    size_t nl = input.find('\n', at);
    if (nl == std::string::npos) nl = input.size();
    std::string line = input.substr(at, nl - at);
    at = nl + 1;
    uint64_t before = face.Frame(now).Hash(), ran = s.stats().callsRun;
    bool acked = s.acknowledged();
    run.last.clear();
    s.OnRaw(line, ready, now);
    bool didRun = s.stats().callsRun > ran;
    bool refused = !didRun || run.last.rfind("error", 0) == 0;
    if (didRun) {
      r.ran++;
      if (!refused) r.ranOk++;
    }
    if (didRun && !acked) r.broke = "a call ran before the catalog was acknowledged";
    else if (refused && face.Frame(now).Hash() != before) r.broke = "a refused call changed the face";
    else if (s.pending() > RealtimeSession::kMaxPending) r.broke = "more outputs pending than kMaxPending";
    else if (out.bad) r.broke = "sent the host something that is not a JSON object";
    if (r.broke) return r;
    now += 997;
    s.Tick(ready, now);
    face.Frame(now);  // draws whatever the calls left (captions through LayoutSafe)
  }
  return r;
}

}  // namespace fuzz
}  // namespace sc
