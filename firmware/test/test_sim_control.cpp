// The simulator's control protocol: command parsing and the JSON lines the
// Go side reads. Parsed back with nlohmann to prove they are valid JSON.
#include "control.h"
#include "helpers.h"

using namespace sim;

TEST_CASE("control commands parse; anything else is an explained error") {
  CHECK(ParseCommand("touch ok").kind == CommandKind::TouchOk);
  CHECK(ParseCommand("touch ng\n").kind == CommandKind::TouchNg);
  CHECK(ParseCommand("  touch detail\r\n").kind == CommandKind::TouchDetail);
  CHECK(ParseCommand("swipe forward").kind == CommandKind::SwipeForward);
  CHECK(ParseCommand("swipe backward").kind == CommandKind::SwipeBackward);
  CHECK(ParseCommand("unplug").kind == CommandKind::Unplug);
  CHECK(ParseCommand("plug").kind == CommandKind::Plug);
  Command bad = ParseCommand("touch maybe");
  CHECK(bad.kind == CommandKind::Invalid);
  CHECK(bad.error.find("touch maybe") != std::string::npos);
  CHECK(ParseCommand("").kind == CommandKind::Invalid);
}

TEST_CASE("ui changes become one JSON object per line") {
  std::vector<std::string> lines;
  JsonUi ui([&](const std::string& l) { lines.push_back(l); });
  ui.Status(2);
  ui.Task(true);
  ui.Caption("he said \"hi\"\n");
  ui.Mouth(0.4f);
  sc::ApprovalView v;
  v.visible = true;
  v.requestId = "approval-1";
  v.title = "Run tests";
  ui.Approval(v);
  ui.Approval(sc::ApprovalView{});
  ui.AudioPlayed(48000, 24000, true);
  ui.Conversation(sc::ConvState::Blocked, "no EVENT");
  REQUIRE(lines.size() == 8);
  CHECK(lines[0] == R"({"ui":"status","value":"speaking"})");
  CHECK(lines[1] == R"({"ui":"task","state":"running"})");
  CHECK(nlohmann::json::parse(lines[2])["text"] == "he said \"hi\"\n");
  CHECK(lines[3] == R"({"ui":"mouth","open":0.4})");
  auto a = nlohmann::json::parse(lines[4]);
  CHECK(a["ui"] == "approval");
  CHECK(a["requestId"] == "approval-1");
  CHECK(a["title"] == "Run tests");
  CHECK(lines[5] == R"({"ui":"face"})");
  CHECK(lines[6] == R"({"audio":"played","bytes":48000,"rate":24000})");
  CHECK(nlohmann::json::parse(lines[7])["error"] == "no EVENT");
}
