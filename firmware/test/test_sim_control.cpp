// The simulator's control protocol: command parsing and the JSON lines the
// Go side reads. Parsed back with nlohmann to prove they are valid JSON.
#include "control.h"
#include "wav.h"
#include "helpers.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>

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

TEST_CASE("finger commands parse with coordinates and an optional id; malformed ones are errors") {
  Command c = ParseCommand("down 266 212");
  CHECK(c.kind == CommandKind::FingerDown);
  CHECK(c.x == 266);
  CHECK(c.y == 212);
  CHECK(c.id == 0);
  c = ParseCommand("move -5 40 1\n");
  CHECK(c.kind == CommandKind::FingerMove);
  CHECK(c.x == -5);
  CHECK(c.id == 1);
  CHECK(ParseCommand("up").kind == CommandKind::FingerUp);
  CHECK(ParseCommand("up 1").id == 1);
  for (const char* bad : {"down", "down 1", "down x 2", "down 1 2 3 4", "down 1 2 10", "move 1 2 -1", "up x",
                          "down 1 2 z", "down 5000 0"}) {
    CAPTURE(bad);
    CHECK(ParseCommand(bad).kind == CommandKind::Invalid);
  }
}

TEST_CASE("the sim's touchscreen runs every touch through the core classifier") {
  Touchscreen t;
  CHECK(t.Apply(ParseCommand("touch ok"), 1000, true) == sc::TouchAction::Ok);
  CHECK(t.Apply(ParseCommand("touch ng"), 1100, true) == sc::TouchAction::Ng);
  CHECK(t.Apply(ParseCommand("touch detail"), 1200, true) == sc::TouchAction::Middle);
  CHECK(t.Apply(ParseCommand("touch ok"), 1300, false) == sc::TouchAction::None);  // no approval screen
  CHECK(t.Apply(ParseCommand("swipe forward"), 1400, false) == sc::TouchAction::SwipeForward);
  CHECK(t.Apply(ParseCommand("swipe backward"), 1500, true) == sc::TouchAction::SwipeBackward);

  // Raw fingers: a swipe with a tap on OK by a second finger in the middle.
  CHECK(t.Apply(ParseCommand("down 40 40"), 2000, true) == sc::TouchAction::None);
  CHECK(t.Apply(ParseCommand("move 120 40"), 2016, true) == sc::TouchAction::None);
  CHECK(t.Apply(ParseCommand("down 266 212 1"), 2032, true) == sc::TouchAction::None);
  CHECK(t.Apply(ParseCommand("touch ok"), 2040, true) == sc::TouchAction::None);  // fingers are down
  CHECK(t.Apply(ParseCommand("up 1"), 2048, true) == sc::TouchAction::None);
  CHECK(t.Apply(ParseCommand("move 200 45"), 2064, true) == sc::TouchAction::None);
  CHECK(t.Apply(ParseCommand("up"), 2080, true) == sc::TouchAction::SwipeForward);
  // A raw tap at the edge of the middle button, and a hold that is nothing.
  t.Apply(ParseCommand("down 107 235"), 3000, true);
  CHECK(t.Apply(ParseCommand("up"), 3050, true) == sc::TouchAction::Middle);
  t.Apply(ParseCommand("down 107 235"), 4000, true);
  CHECK(t.Apply(ParseCommand("up"), 4600, true) == sc::TouchAction::None);
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

TEST_CASE("--mic-wav accepts 16-bit mono 16 kHz PCM and explains anything else") {
  auto wav = [](uint16_t fmt, uint16_t ch, uint32_t rate, uint16_t bits, std::vector<int16_t> samples) {
    std::vector<uint8_t> d;
    auto put = [&](const char* s) { d.insert(d.end(), s, s + 4); };
    auto u32 = [&](uint32_t v) { for (int i = 0; i < 4; i++) d.push_back(uint8_t(v >> (8 * i))); };
    auto u16 = [&](uint16_t v) { d.push_back(uint8_t(v)); d.push_back(uint8_t(v >> 8)); };
    put("RIFF");
    u32(36 + uint32_t(samples.size() * 2));
    put("WAVE");
    put("fmt ");
    u32(16);
    u16(fmt); u16(ch); u32(rate); u32(rate * ch * bits / 8); u16(uint16_t(ch * bits / 8)); u16(bits);
    put("data");
    u32(uint32_t(samples.size() * 2));
    for (int16_t s : samples) u16(uint16_t(s));
    return d;
  };
  std::vector<int16_t> out;
  std::string err;
  CHECK(ParseWav16kMono(wav(1, 1, 16000, 16, {1, -2, 3}), &out, &err));
  CHECK(out == std::vector<int16_t>{1, -2, 3});
  CHECK_FALSE(ParseWav16kMono(wav(1, 2, 16000, 16, {1, 2}), &out, &err));
  CHECK(err.find("2 ch") != std::string::npos);
  CHECK_FALSE(ParseWav16kMono(wav(1, 1, 44100, 16, {1}), &out, &err));
  CHECK_FALSE(ParseWav16kMono({'n', 'o'}, &out, &err));
  CHECK(err == "not a RIFF/WAVE file");
}

TEST_CASE("volume swipes and screenshots: commands, the classifier's answer and the JSON line") {
  CHECK(ParseCommand("swipe up").kind == CommandKind::SwipeUp);
  CHECK(ParseCommand("swipe down").kind == CommandKind::SwipeDown);
  Command shot = ParseCommand("screenshot /tmp/a b.png\n");
  CHECK(shot.kind == CommandKind::Screenshot);
  CHECK(shot.path == "/tmp/a b.png");
  CHECK(ParseCommand("screenshot ").kind == CommandKind::Invalid);
  Touchscreen t;
  CHECK(t.Apply(ParseCommand("swipe up"), 1000, false) == sc::TouchAction::VolumeUp);
  CHECK(t.Apply(ParseCommand("swipe down"), 1100, false) == sc::TouchAction::VolumeDown);
  CHECK(t.Apply(ParseCommand("swipe up"), 1200, true) == sc::TouchAction::None);  // approval screen: taps only
  std::vector<std::string> lines;
  JsonUi ui([&](const std::string& l) { lines.push_back(l); });
  ui.Volume(45, false);
  ui.Volume(80, true);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == R"({"ui":"volume","value":45})");
  CHECK(lines[1] == R"({"ui":"volume","value":80,"output":0})");
  for (auto& l : lines) CHECK(nlohmann::json::accept(l));
}

TEST_CASE("FileSettings: keeps keys across instances, replaces the file whole, skips junk lines") {
  char dir[] = "/tmp/settings-test-XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  std::string path = std::string(dir) + "/settings";
  {
    std::ofstream f(path);
    f << "junk line\nother=1\n";
  }
  FileSettings a(path);
  std::string v;
  CHECK_FALSE(a.Load("tts.volume", &v));
  REQUIRE(a.Save("tts.volume", "40"));
  REQUIRE(a.Save("tts.volume", "50"));
  FileSettings b(path);
  REQUIRE(b.Load("tts.volume", &v));
  CHECK(v == "50");
  REQUIRE(b.Load("other", &v));
  CHECK(v == "1");
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  CHECK(ss.str() == "other=1\ntts.volume=50\n");
  CHECK_FALSE(FileSettings(std::string(dir) + "/no/such/dir/settings").Save("tts.volume", "1"));
  std::remove(path.c_str());
  rmdir(dir);
}
