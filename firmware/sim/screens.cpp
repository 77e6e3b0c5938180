#include "screens.h"

#include "apps.h"

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

void Expr(FaceModel& m, sc::Expression e) {
  Ready(m);
  m.SetExpression(e);
}

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
    {"happy", "SetExpression(happy)", [](FaceModel& m, uint32_t) { Expr(m, sc::Expression::Happy); }},
    {"sad", "SetExpression(sad)", [](FaceModel& m, uint32_t) { Expr(m, sc::Expression::Sad); }},
    {"angry", "SetExpression(angry)", [](FaceModel& m, uint32_t) { Expr(m, sc::Expression::Angry); }},
    {"surprised", "SetExpression(surprised)", [](FaceModel& m, uint32_t) { Expr(m, sc::Expression::Surprised); }},
    {"sleepy", "SetExpression(sleepy)", [](FaceModel& m, uint32_t) { Expr(m, sc::Expression::Sleepy); }},
    {"doubtful", "SetExpression(doubtful)", [](FaceModel& m, uint32_t) { Expr(m, sc::Expression::Doubtful); }},
    {"look-right", "LookAt(1, 0): the eyes hold a gaze for 3 s",
     [](FaceModel& m, uint32_t now) {
       Ready(m);
       m.LookAt(1, 0, now);
     }},
};

}  // namespace

const std::vector<Screen>& Screens() { return kScreens; }

sc::DisplayList Render(const Screen& s) {
  FaceModel m(kScreenSeed);
  s.setup(m, kScreenAt);
  return m.Frame(kScreenAt);
}

}  // namespace sim
