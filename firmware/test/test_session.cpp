// The session layer (core/session.*) against the shared vectors in
// protocols/stackchan/testdata/realtime-session-vectors.json (the Pi's host
// runs their host half), and Stack-chan's tools (core/tools.*).
#include "helpers.h"
#include "json.h"
#include "session.h"
#include "tools.h"

using namespace sc;
using Json = nlohmann::json;

namespace {

// The vectors sit beside the contract folder's parent:
// protocols/stackchan/contracttest/testdata/stackchan → protocols/stackchan/testdata.
Json LoadSessionVectors() {
  const char* p = std::getenv("STACKCHAN_SESSION_VECTORS");
  std::string path = p && *p ? p : ContractsDir() + "/../../../testdata/realtime-session-vectors.json";
  std::ifstream f(path);
  if (!f) FAIL("cannot open the session vectors " << path);
  return Json::parse(f);
}

// Queue is an EventSender whose queue can be full (or accept only n more).
struct Queue : EventSender {
  std::vector<std::string> sent;
  bool full = false;
  int accepts = -1;  // >= 0: that many more succeed, then full
  SendResult SendEvent(const std::string& j) override {
    if (full || accepts == 0) return SendResult::Overflow;
    if (accepts > 0) accepts--;
    sent.push_back(j);
    return SendResult::Queued;
  }
};

struct Recorder : ToolRunner {
  std::vector<std::pair<std::string, std::string>> ran;
  std::string Run(const std::string& name, const std::string& args, uint32_t) override {
    ran.push_back({name, args});
    return "ran " + name;
  }
};

// Subset: every key of want is in got with a matching value; arrays match
// element by element; scalars are equal.
bool Subset(const Json& want, const Json& got) {
  if (want.is_object()) {
    if (!got.is_object()) return false;
    for (auto it = want.begin(); it != want.end(); ++it)
      if (!got.contains(it.key()) || !Subset(it.value(), got[it.key()])) return false;
    return true;
  }
  if (want.is_array()) {
    if (!got.is_array() || got.size() != want.size()) return false;
    for (size_t i = 0; i < want.size(); i++)
      if (!Subset(want[i], got[i])) return false;
    return true;
  }
  return want == got;
}

TransportState StateNamed(const std::string& s) {
  if (s == "ready") return TransportState::Ready;
  if (s == "unsupported") return TransportState::Unsupported;
  REQUIRE(s == "disconnected");
  return TransportState::Disconnected;
}

std::vector<ToolSpec> SpecsOf(const Json& cat) {
  std::vector<ToolSpec> out;
  for (auto& t : cat) out.push_back({t["name"], t["description"], t["parameters"].dump()});
  return out;
}

}  // namespace

TEST_CASE("session vectors: the firmware half") {
  Json v = LoadSessionVectors();
  REQUIRE(v["schema"] == "claude-pi.stackchan.realtime-session.v1");
  REQUIRE(v["firmware"].size() >= 8);
  for (auto& sc : v["firmware"]) {
    CAPTURE(sc["name"].get<std::string>());
    Queue q;
    Recorder run;
    RealtimeSession s(q, run, SpecsOf(v["firmwareCatalog"]), "", "f");
    TransportState ts = TransportState::Disconnected;
    uint32_t now = 4294960000u;  // the clock wraps during the scenario
    int i = 0;
    for (auto& st : sc["steps"]) {
      CAPTURE(i++);
      std::string what = st["do"];
      CAPTURE(what);
      if (what == "transport") {
        ts = StateNamed(st["state"]);
        s.OnTransport(ts);
      } else if (what == "receive") {
        s.OnRaw(st["event"].dump(), ts, now);
      } else if (what == "queueFull") {
        q.full = st["on"].get<bool>();
        q.accepts = -1;
      } else if (what == "queueAccepts") {
        q.full = false;
        q.accepts = st["count"].get<int>();
      } else if (what == "advance") {
        now += st["ms"].get<uint32_t>();
        s.Tick(ts, now);
      } else {
        FAIL("unknown step " << what);
      }
      if (st.contains("send")) {
        std::string got;
        for (auto& j : q.sent) got += "\n  " + j;
        CAPTURE(got);
        REQUIRE(q.sent.size() == st["send"].size());
        for (size_t k = 0; k < q.sent.size(); k++) {
          Json g = Json::parse(q.sent[k]);
          CAPTURE(st["send"][k].dump());
          CHECK(Subset(st["send"][k], g));
        }
      }
      if (st.contains("ran")) {
        REQUIRE(run.ran.size() == st["ran"].size());
        for (size_t k = 0; k < run.ran.size(); k++) {
          CHECK(run.ran[k].first == st["ran"][k]["name"]);
          CHECK(Json::parse(run.ran[k].second) == st["ran"][k]["arguments"]);
        }
      }
      q.sent.clear();
      run.ran.clear();
    }
  }
}

// The firmware's decoding, by what it does with each vector: a valid
// session.created opens a session (a session.update goes out); a valid
// session.updated acknowledges it; a valid call runs. Invalid ones do
// nothing.
TEST_CASE("session vectors: the firmware's decoding") {
  Json v = LoadSessionVectors();
  for (auto& d : v["firmwareDecode"]) {
    CAPTURE(d["name"].get<std::string>());
    std::string text = d["json"];
    Queue q;
    Recorder run;
    RealtimeSession s(q, run, SpecsOf(v["firmwareCatalog"]), "", "f");
    std::string type = d.value("type", "");
    bool ok = d["ok"];
    Json j = Json::parse(text);
    if (j.is_object() && j.contains("type") && j["type"] == "session.created") {
      s.OnRaw(text, TransportState::Ready, 0);
      CHECK(s.open() == ok);
    } else if (j.is_object() && j.contains("type") && j["type"] == "session.updated") {
      s.OnRaw(R"({"type":"session.created","event_id":"x"})", TransportState::Ready, 0);
      if (j.contains("event_id")) j["event_id"] = s.updateId();
      s.OnRaw(j.dump(), TransportState::Ready, 0);
      CHECK(s.acknowledged() == ok);
    } else if (j.is_object() && j.contains("type") && j["type"] == "response.function_call_arguments.done") {
      s.OnRaw(R"({"type":"session.created","event_id":"x"})", TransportState::Ready, 0);
      s.OnRaw(R"({"type":"session.updated","event_id":")" + s.updateId() + "\"}", TransportState::Ready, 0);
      j["stackchan_session_update_id"] = s.updateId();
      s.OnRaw(j.dump(), TransportState::Ready, 0);
      CHECK((s.stats().callsRun == 1) == ok);
    } else {
      s.OnRaw(text, TransportState::Ready, 0);
      CHECK(!ok);
      CHECK(!s.open());
      CHECK(q.sent.empty());
    }
  }
}

TEST_CASE("our session.update is what the host decodes: function tools with schemas") {
  std::string u = SessionUpdateJson("f-update-1", CharacterTools::Instructions(), CharacterTools::Catalog());
  Json j = Json::parse(u);
  CHECK(j["type"] == "session.update");
  CHECK(j["event_id"] == "f-update-1");
  std::vector<std::string> names;
  for (auto& t : j["session"]["tools"]) {
    CHECK(t["type"] == "function");
    CHECK(t["parameters"]["type"] == "object");
    CHECK(t["description"].get<std::string>().size() <= 1024);
    names.push_back(t["name"]);
  }
  CHECK(names == std::vector<std::string>{"set_expression", "look_at", "nod", "shake", "say"});
}

TEST_CASE("Stack-chan's tools act on the face and say what they did") {
  std::vector<std::string> did;
  ToolFace face;
  face.setExpression = [&](const std::string& e) { did.push_back("expression " + e); };
  face.lookAt = [&](const std::string& d, uint32_t) { did.push_back("look " + d); };
  face.nod = [&](int n, uint32_t) { did.push_back("nod " + std::to_string(n)); };
  face.shake = [&](int n, uint32_t) { did.push_back("shake " + std::to_string(n)); };
  face.say = [&](const std::string& t, uint32_t ms, uint32_t) { did.push_back("say " + t + " " + std::to_string(ms)); };
  CharacterTools tools(face);
  struct Case {
    const char *name, *args, *output, *did;
  } cases[] = {
      {"set_expression", R"({"expression":"happy"})", "expression is now happy", "expression happy"},
      {"set_expression", R"({"expression":"evil"})", "error: expression must be one of", nullptr},
      {"set_expression", R"({})", "error: expression must be one of", nullptr},
      {"look_at", R"({"direction":"left"})", "looking left", "look left"},
      {"look_at", R"({"direction":7})", "error: direction must be one of", nullptr},
      {"nod", R"({})", "nodded 1 time", "nod 1"},
      {"nod", R"({"times":3})", "nodded 3 times", "nod 3"},
      {"nod", R"({"times":4})", "error: times must be an integer from 1 to 3", nullptr},
      {"nod", R"({"times":1.5})", "error: times must be an integer from 1 to 3", nullptr},
      {"shake", R"({"times":2})", "shook its head 2 times", "shake 2"},
      {"say", R"({"text":"Hello!"})", "showing the caption", "say Hello! 2360"},
      {"say", R"({"text":""})", "error: text must be a non-empty string", nullptr},
      {"say", "{\"text\":\"a\\u202eb\"}", "error: text has invisible or control characters", nullptr},
      {"fly", R"({})", "error: no tool \"fly\"", nullptr},
  };
  for (auto& c : cases) {
    CAPTURE(c.name);
    CAPTURE(c.args);
    did.clear();
    std::string out = tools.Run(c.name, c.args, 0);
    CHECK(out.rfind(c.output, 0) == 0);
    if (c.did) {
      REQUIRE(did.size() == 1);
      CHECK(did[0] == c.did);
    } else {
      CHECK(did.empty());
    }
  }
  std::string long121(121, 'x');
  CHECK(tools.Run("say", "{\"text\":\"" + long121 + "\"}", 0) == "error: text is longer than 120 characters");
  CHECK(CharacterTools(ToolFace{}).Run("nod", "{}", 0) == "error: this face cannot nod");
  CHECK(SayHoldMs(std::string(500, 'x')) == 8000);
}

TEST_CASE("session: hostile raw events never crash, and a run needs the current acknowledged catalog") {
  uint64_t seed = FuzzSeed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  const char* pieces[] = {R"({"type":"session.created","event_id":"h"})",
                          R"({"type":"session.updated","event_id":"f-update-1"})",
                          R"({"type":"session.updated","event_id":"f-update-3"})",
                          R"({"type":"response.function_call_arguments.done","call_id":"c","name":"nod","arguments":"{}","stackchan_session_update_id":"f-update-1"})",
                          R"({"type":"response.function_call_arguments.done","call_id":"d","name":"say","arguments":"{\"text\":\"x\"}","stackchan_session_update_id":"f-update-3"})",
                          R"({"type":"error","error":{"code":"unknown_call_id"}})",
                          "{\"type\":\"session.created\"",
                          "[]"};
  Queue q;
  Recorder run;
  RealtimeSession s(q, run, CharacterTools::Catalog(), "", "f");
  uint32_t now = 0;
  for (int i = 0; i < FuzzIters(); i++) {
    std::string msg = pieces[rng() % 8];
    if (rng() % 4 == 0 && !msg.empty()) msg[rng() % msg.size()] = char(rng());
    TransportState ts = rng() % 16 == 0 ? TransportState::Disconnected : TransportState::Ready;
    size_t before = run.ran.size();
    bool wasAcked = s.acknowledged();
    std::string id = s.updateId();
    s.OnRaw(msg, ts, now);
    if (run.ran.size() > before) {
      CHECK(wasAcked);
      CHECK(msg.find("\"stackchan_session_update_id\":\"" + id + "\"") != std::string::npos);
    }
    now += uint32_t(rng() % 300);
    s.Tick(ts, now);
    CHECK(s.pending() <= RealtimeSession::kMaxPending);
    q.full = rng() % 3 == 0;
    q.sent.clear();
  }
}
