#include "screens.h"

#include "apps.h"
#include "face_tools.h"
#include "tools.h"

namespace sim {

namespace {

using sc::ConvState;
using sc::FaceModel;
using sc::TransportState;

void Ready(FaceModel& m) {
  m.Link(TransportState::Ready);
  m.Handshake(true);
}

// NullSender: the approval session's outbound events go nowhere here.
class NullSender : public sc::EventSender {
 public:
  sc::SendResult SendEvent(const std::string&) override { return sc::SendResult::Queued; }
};

template <sc::StatusValue V>
void WithStatus(FaceModel& m, uint32_t) {
  Ready(m);
  m.Status(uint8_t(V));
}

// Tool runs one of Stack-chan's tools (core/tools.h) on m through the
// adapter the sim and the CoreS3 share (core/face_tools.h), at.
void Tool(FaceModel& m, const char* name, const char* args, uint32_t at) {
  Ready(m);
  sc::CharacterTools(sc::ToolFaceOver(m)).Run(name, args, at);
}

template <const char* Name, const char* Args>
void ToolNow(FaceModel& m, uint32_t now) {
  Tool(m, Name, Args, now);
}

constexpr char kSetExpression[] = "set_expression", kLookAt[] = "look_at";
constexpr char kHappy[] = R"({"expression":"happy"})", kSad[] = R"({"expression":"sad"})",
               kAngry[] = R"({"expression":"angry"})", kSurprised[] = R"({"expression":"surprised"})",
               kSleepy[] = R"({"expression":"sleepy"})", kDoubtful[] = R"({"expression":"doubtful"})";
constexpr char kLeft[] = R"({"direction":"left"})", kRight[] = R"({"direction":"right"})",
               kUp[] = R"({"direction":"up"})", kDown[] = R"({"direction":"down"})";

const std::vector<Screen> kScreens = {
    {"disconnected", "no USB host: asleep, grey, \"no USB host\"",
     [](FaceModel& m, uint32_t) { m.Link(TransportState::Disconnected); }},
    {"waiting", "USB up, no HELLO yet: grey face, \"waiting for the dock (HELLO)\"",
     [](FaceModel& m, uint32_t) { m.Link(TransportState::Unsupported); }},
    {"audio-only", "HELLO done but one side lacks EVENT: grey face, \"audio only\"",
     [](FaceModel& m, uint32_t) {
       m.Link(TransportState::Unsupported);
       m.Handshake(true);
     }},
    {"ready", "ready (EVENT on both sides): the white face, nothing else", [](FaceModel& m, uint32_t) { Ready(m); }},
    {"connecting", "a head swipe sent conversation.start: amber spinner",
     [](FaceModel& m, uint32_t) {
       Ready(m);
       m.Conversation(ConvState::Connecting, "");
     }},
    {"listening", "STATUS listening (or conversation listening): white microphone", WithStatus<sc::StatusValue::Listening>},
    {"recognizing", "STATUS recognizing: white spinner", WithStatus<sc::StatusValue::Recognizing>},
    {"speaking", "audio plays: muted microphone, the mouth at the speech's RMS, the caption",
     [](FaceModel& m, uint32_t) {
       Ready(m);
       m.Playing(true);
       m.Mouth(0.5f);
       m.Caption("All 42 tests passed. Shall I commit?");
     }},
    {"blocked", "the host refused a conversation request: red \"!\" and its reason",
     [](FaceModel& m, uint32_t) {
       Ready(m);
       m.Conversation(ConvState::Blocked, "no speech");
     }},
    {"blocked-no-event", "a head swipe while the host lacks EVENT: blocked, and why",
     [](FaceModel& m, uint32_t) {
       m.Link(TransportState::Unsupported);
       m.Handshake(true);
       m.Conversation(ConvState::Blocked, sc::kNoEventError);
     }},
    {"error", "STATUS error: red \"!\"", WithStatus<sc::StatusValue::Error>},
    {"task", "task.status running: the blue task spinner left of the status badge",
     [](FaceModel& m, uint32_t) {
       Ready(m);
       m.Task(true);
     }},
    {"task-listening", "both badges: a running task while listening",
     [](FaceModel& m, uint32_t) {
       Ready(m);
       m.Task(true);
       m.Status(uint8_t(sc::StatusValue::Listening));
     }},
    {"volume", "a vertical swipe changed tts.volume: the bar for 1.5 s",
     [](FaceModel& m, uint32_t) {
       Ready(m);
       m.Volume(70, false);
     }},
    {"volume-diagnostics", "the diagnostic build plays at 0 whatever is saved: \"muted\"",
     [](FaceModel& m, uint32_t) {
       Ready(m);
       m.Volume(70, true);
     }},
    {"approval", "an approval request with a hidden character (amber box, amber warning)",
     [](FaceModel& m, uint32_t now) {
       Ready(m);
       NullSender out;
       sc::ApprovalSession s(out);
       sc::AppEvent ev;
       ev.type = sc::AppType::ApprovalRequest;
       ev.requestId = "r1";
       ev.kind = "command";
       ev.title = "Bash: git push";
       ev.summary = "git push origin main";
       ev.detail = "git push origin main\xE2\x80\xAE # looks harmless";
       s.OnRequest(ev, now);
       m.Approval(s.View());
     }},
    // What each of Stack-chan's tools does (claude-pi mcp; README "Stack-chan's tools").
    {"happy", "set_expression happy: the lower half of each eye cut, a wider mouth", ToolNow<kSetExpression, kHappy>},
    {"sad", "set_expression sad: lids slope down to the outside, a short mouth", ToolNow<kSetExpression, kSad>},
    {"angry", "set_expression angry: lids slope down to the nose", ToolNow<kSetExpression, kAngry>},
    {"surprised", "set_expression surprised: bigger eyes, an O mouth", ToolNow<kSetExpression, kSurprised>},
    {"sleepy", "set_expression sleepy: eyes at most 40% open", ToolNow<kSetExpression, kSleepy>},
    {"doubtful", "set_expression doubtful: the right eye half shut", ToolNow<kSetExpression, kDoubtful>},
    {"look-left", "look_at left: the eyes hold the gaze for 3 s, then wander again", ToolNow<kLookAt, kLeft>},
    {"look-right", "look_at right", ToolNow<kLookAt, kRight>},
    {"look-up", "look_at up", ToolNow<kLookAt, kUp>},
    {"look-down", "look_at down", ToolNow<kLookAt, kDown>},
    {"nod", "nod times 3, 675 ms in: the second nod at its lowest (each nod 600 ms)",
     [](FaceModel& m, uint32_t now) { Tool(m, "nod", R"({"times":3})", now - 675); }},
    {"shake", "shake times 2, 675 ms in: the second shake at its right",
     [](FaceModel& m, uint32_t now) { Tool(m, "shake", R"({"times":2})", now - 675); }},
    {"say", "say: the caption balloon, held about 2 s + 60 ms a character, then gone",
     [](FaceModel& m, uint32_t now) { Tool(m, "say", R"({"text":"Hi! I'm Stack-chan. Tests pass."})", now); }},
};

}  // namespace

const std::vector<Screen>& Screens() { return kScreens; }

sc::DisplayList Render(const Screen& s) {
  FaceModel m(kScreenSeed);
  s.setup(m, kScreenAt);
  return m.Frame(kScreenAt);
}

}  // namespace sim
