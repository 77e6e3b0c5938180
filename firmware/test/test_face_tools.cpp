// Stack-chan's tools on the living face: a call through the session layer
// (core/session.*), the real CharacterTools (core/tools.*) and the adapter
// the sim and the CoreS3 share (core/face_tools.*) changes the drawn frame
// exactly as the face model's own action does; a refused call (a stale
// catalog, bad arguments, a call_id already run) leaves it as it was.
#include "face_model.h"
#include "face_tools.h"
#include "helpers.h"
#include "session.h"
#include "tools.h"

using namespace sc;

namespace {

struct Sink : EventSender {
  std::vector<std::string> sent;
  SendResult SendEvent(const std::string& j) override {
    sent.push_back(j);
    return SendResult::Queued;
  }
};

void Ready(FaceModel& m) {
  m.Link(TransportState::Ready);
  m.Handshake(true);
}

// Docked is a face with the tool session open and its catalog acknowledged
// (update id "t-update-1"), and a twin with the same seed and inputs that
// the tests drive directly.
struct Docked {
  FaceModel face{11}, twin{11};
  Sink out;
  CharacterTools tools{ToolFaceOver(face)};
  RealtimeSession session{out, tools, CharacterTools::Catalog(), CharacterTools::Instructions(), "t"};
  int n = 0;
  Docked() {
    Ready(face);
    Ready(twin);
    session.OnRaw(R"({"type":"session.created","event_id":"h1"})", TransportState::Ready, 0);
    session.OnRaw(R"({"type":"session.updated","event_id":"t-update-1"})", TransportState::Ready, 0);
    REQUIRE(session.acknowledged());
  }
  // Call sends one response.function_call_arguments.done; tag is the
  // catalog it claims to be for.
  void Call(const std::string& name, const std::string& args, uint32_t now, const std::string& tag = "t-update-1",
            std::string id = "") {
    if (id.empty()) id = "call-" + std::to_string(++n);
    std::string j = "{\"type\":\"response.function_call_arguments.done\",\"call_id\":\"" + id + "\",\"name\":\"" +
                    name + "\",\"arguments\":";
    json::AppendQuoted(&j, args);
    j += ",\"stackchan_session_update_id\":\"" + tag + "\"}";
    session.OnRaw(j, TransportState::Ready, now);
  }
};

}  // namespace

TEST_CASE("face tools: each call through the session draws what the face model's action draws") {
  struct Case {
    const char *name, *args;
    void (*direct)(FaceModel&, uint32_t);
  } cases[] = {
      {"set_expression", R"({"expression":"happy"})", [](FaceModel& m, uint32_t) { m.SetExpression(Expression::Happy); }},
      {"set_expression", R"({"expression":"sleepy"})", [](FaceModel& m, uint32_t) { m.SetExpression(Expression::Sleepy); }},
      {"look_at", R"({"direction":"left"})", [](FaceModel& m, uint32_t t) { m.LookAt(-1, 0, t); }},
      {"look_at", R"({"direction":"up"})", [](FaceModel& m, uint32_t t) { m.LookAt(0, -1, t); }},
      {"look_at", R"({"direction":"down"})", [](FaceModel& m, uint32_t t) { m.LookAt(0, 1, t); }},
      {"nod", R"({"times":2})", [](FaceModel& m, uint32_t t) { m.Nod(t, 2); }},
      {"shake", R"({})", [](FaceModel& m, uint32_t t) { m.Shake(t, 1); }},
      {"say", R"({"text":"Hello!"})", [](FaceModel& m, uint32_t t) { m.Say("Hello!", SayHoldMs("Hello!"), t); }},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    CAPTURE(c.args);
    Docked d;
    uint64_t before = d.face.Frame(500).Hash();
    REQUIRE(before == d.twin.Frame(500).Hash());
    d.Call(c.name, c.args, 500);
    c.direct(d.twin, 500);
    CHECK(d.session.stats().callsRun == 1);
    REQUIRE(d.out.sent.size() == 3);  // session.update, the output, response.create
    CHECK(d.out.sent[1].find("error") == std::string::npos);
    // 575: a quarter swing into a gesture, inside every hold.
    for (uint32_t t : {575u, 900u, 1700u}) {
      CAPTURE(t);
      uint64_t got = d.face.Frame(t).Hash();
      CHECK(got == d.twin.Frame(t).Hash());
      if (t == 575) CHECK(got != FaceModel(11).Frame(575).Hash());
    }
  }
  // What each changed, by name.
  Docked d;
  d.Call("set_expression", R"({"expression":"angry"})", 100);
  CHECK(d.face.expression() == Expression::Angry);
  d.Call("look_at", R"({"direction":"right"})", 100);
  CHECK(d.face.PoseAt(200).gazeX == 10);
  CHECK(d.face.PoseAt(200).gazeY == 0);
  d.Call("say", R"({"text":"Hi there"})", 300);
  CHECK(d.face.Frame(300).Describe().find("[Hi there]") != std::string::npos);
}

TEST_CASE("face tools: a refused call leaves the frame as it was") {
  Docked d;
  d.Call("set_expression", R"({"expression":"sad"})", 100, "t-update-1", "once");
  uint64_t sad = d.face.Frame(200).Hash();
  const struct {
    const char *name, *args, *tag, *id;
  } refused[] = {
      {"set_expression", R"({"expression":"happy"})", "t-update-0", ""},  // a stale catalog
      {"set_expression", R"({"expression":"happy"})", "", ""},            // none claimed
      {"set_expression", R"({"expression":"happy"})", "t-update-1", "once"},  // call_id already run
      {"set_expression", R"({"expression":"evil"})", "t-update-1", ""},
      {"set_expression", R"({"expression":["happy"]})", "t-update-1", ""},
      {"look_at", R"({"direction":"behind"})", "t-update-1", ""},
      {"nod", R"({"times":4})", "t-update-1", ""},
      {"shake", R"({"times":"2"})", "t-update-1", ""},
      {"say", R"({"text":""})", "t-update-1", ""},
      {"say", "{\"text\":\"a\\u200bb\"}", "t-update-1", ""},
      {"say", "[\"text\"]", "t-update-1", ""},
      {"fly", R"({})", "t-update-1", ""},
  };
  for (const auto& r : refused) {
    CAPTURE(r.name);
    CAPTURE(r.args);
    CAPTURE(r.tag);
    d.Call(r.name, r.args, 200, r.tag, r.id);
    CHECK(d.face.expression() == Expression::Sad);
    CHECK(d.face.Frame(200).Hash() == sad);
    CHECK(d.face.PoseAt(260).headX == 0);
    CHECK(d.face.PoseAt(260).headY == 0);
  }
  // After the transport dropped, the old catalog's calls are stale too.
  d.session.OnTransport(TransportState::Disconnected);
  d.Call("set_expression", R"({"expression":"happy"})", 300);
  CHECK(d.face.expression() == Expression::Sad);
}

TEST_CASE("face tools: nod and shake honour times; say holds its caption, then it goes") {
  FaceModel m(5);
  Ready(m);
  m.Nod(1000, 3);
  CHECK(m.PoseAt(1000 + 2 * kGestureMs + kGestureMs / 8).headY != 0);  // the third nod
  CHECK(m.PoseAt(1000 + 3 * kGestureMs).headY == 0);
  m.Shake(5000);  // once: over after one gesture
  CHECK(m.PoseAt(5000 + kGestureMs / 8).headX != 0);
  CHECK(m.PoseAt(5000 + kGestureMs + kGestureMs / 8).headX == 0);

  m.Say("Back in a bit", 2500, 8000);
  CHECK(m.Frame(8000 + 2499).Describe().find("[Back in a bit]") != std::string::npos);
  CHECK(m.Frame(8000 + 2500).Describe().find("Back in a bit") == std::string::npos);
  // A caption from the Device (SPEAKER_TEXT) replaces a said one and is not
  // hidden at the said one's time.
  m.Say("one", 1000, 20000);
  m.Caption("from the speaker");
  CHECK(m.Frame(22000).Describe().find("[from the speaker]") != std::string::npos);
  // A later say restarts the hold.
  m.Say("first", 1000, 30000);
  m.Say("second", 3000, 30500);
  CHECK(m.Frame(32000).Describe().find("[second]") != std::string::npos);
  CHECK(m.Frame(33500).Describe().find("second") == std::string::npos);
}

TEST_CASE("face tools: every action runs inside the guard; a refused one never takes it") {
  FaceModel m(3);
  Ready(m);
  int guarded = 0;
  CharacterTools tools(ToolFaceOver(m, [&](const std::function<void()>& f) {
    guarded++;
    f();
  }));
  const char* ok[][2] = {{"set_expression", R"({"expression":"surprised"})"},
                         {"look_at", R"({"direction":"center"})"},
                         {"nod", "{}"},
                         {"shake", R"({"times":3})"},
                         {"say", R"({"text":"ok"})"}};
  for (auto& c : ok) CHECK(tools.Run(c[0], c[1], 10).rfind("error", 0) != 0);
  CHECK(guarded == 5);
  CHECK(m.expression() == Expression::Surprised);
  CHECK(tools.Run("look_at", R"({"direction":"sideways"})", 10).rfind("error", 0) == 0);
  CHECK(guarded == 5);
  float x = 9, y = 9;
  CHECK_FALSE(DirectionGaze("north", &x, &y));
  for (const char* const* d = kDirections; *d; d++) CHECK(DirectionGaze(*d, &x, &y));
}
