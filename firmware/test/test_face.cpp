// The face model (core/face_model): the living face's timing with a
// seeded PRNG and an injected clock, and every screen state's frame,
// checked by pixels through our rasterizer and against the kept PNG in
// docs/screens (make screenshots rewrites them).
#include <fstream>
#include <set>
#include <sstream>

#include "face_model.h"
#include "helpers.h"
#include "raster.h"
#include "screens.h"

using namespace sc;

namespace {

sim::Canvas Draw(const DisplayList& l) {
  sim::Canvas c;
  c.Draw(l);
  return c;
}

const sim::Screen& ScreenNamed(const std::string& name) {
  for (const sim::Screen& s : sim::Screens())
    if (name == s.name) return s;
  FAIL("no screen " << name);
  return sim::Screens().front();
}

sim::Canvas Shot(const std::string& name) { return Draw(sim::Render(ScreenNamed(name))); }

int Badge(const sim::Canvas& c, uint32_t color, int cx = kBadgeX) {
  return c.Count(cx - kBadgeHalf, kBadgeY - kBadgeHalf, 2 * kBadgeHalf, 2 * kBadgeHalf, color);
}
// Bottom: the caption / banner / state-line band.
int Bottom(const sim::Canvas& c, uint32_t color) { return c.Count(0, 184, 320, 56, color); }

std::string ScreensDir() {
  const char* d = std::getenv("STACKCHAN_SCREENS");
#ifdef STACKCHAN_SCREENS_DIR
  if (!d || !*d) d = STACKCHAN_SCREENS_DIR;
#endif
  if (!d || !*d) FAIL("STACKCHAN_SCREENS is not set: run the tests through `make test`");
  return d;
}

void ReadyFace(FaceModel& m) {
  m.Link(TransportState::Ready);
  m.Handshake(true);
}

// BlinkStarts samples every step ms over [from, to) and returns the times
// at which the eyes began to close.
std::vector<uint32_t> BlinkStarts(FaceModel& m, uint32_t from, uint32_t to, uint32_t step = 1) {
  std::vector<uint32_t> out;
  bool shut = false;
  for (uint32_t t = from; t < to; t += step) {
    bool s = m.PoseAt(t).eyeOpen < 1;
    if (s && !shut) out.push_back(t);
    shut = s;
  }
  return out;
}
}  // namespace

// ---- timing

TEST_CASE("face: blinks every 2-6 s, 180 ms each, the same for a seed whatever the frame rate") {
  FaceModel a(42), b(42), c(43);
  ReadyFace(a), ReadyFace(b), ReadyFace(c);
  std::vector<uint32_t> starts = BlinkStarts(a, 0, 120000);
  REQUIRE(starts.size() >= 120000 / 6180);
  CHECK(starts.size() <= 120000 / 2000 + 1);
  CHECK(starts[0] >= kBlinkMinMs);
  CHECK(starts[0] < kBlinkMaxMs);
  for (size_t i = 1; i < starts.size(); i++) {
    CHECK(starts[i] - starts[i - 1] >= kBlinkMs + kBlinkMinMs);
    CHECK(starts[i] - starts[i - 1] < kBlinkMs + kBlinkMaxMs);
  }
  // Shut at the middle of a blink, open again at its end.
  FaceModel d(42);
  ReadyFace(d);
  d.PoseAt(0);
  CHECK(d.PoseAt(starts[0] + kBlinkMs / 2).eyeOpen == doctest::Approx(0).epsilon(0.02));
  CHECK(d.PoseAt(starts[0] + kBlinkMs).eyeOpen == 1);
  // b is sampled every 37 ms: at each sample it agrees with a 1 ms sampling.
  FaceModel e(42);
  ReadyFace(e);
  for (uint32_t t = 0; t < 60000; t += 37) {
    Pose pb = b.PoseAt(t);
    FaceModel& ref = e;
    Pose pe = ref.PoseAt(t);
    REQUIRE(pb.eyeOpen == pe.eyeOpen);
    REQUIRE(pb.gazeX == pe.gazeX);
    REQUIRE(pb.gazeY == pe.gazeY);
    REQUIRE(pb.breathY == pe.breathY);
  }
  CHECK(BlinkStarts(c, 0, 120000) != starts);  // another seed, another rhythm
}

TEST_CASE("face: gaze jumps (saccades) every 1-4 s within +-10 x +-6 px; breathing +-2 px over 4 s") {
  FaceModel m(9);
  ReadyFace(m);
  std::vector<uint32_t> jumps;
  Pose last = m.PoseAt(0);
  int minB = 0, maxB = 0;
  std::set<std::pair<int, int>> seen;
  for (uint32_t t = 1; t < 60000; t++) {
    Pose p = m.PoseAt(t);
    CHECK(std::abs(p.gazeX) <= 10);
    CHECK(std::abs(p.gazeY) <= 6);
    if (p.gazeX != last.gazeX || p.gazeY != last.gazeY) jumps.push_back(t);
    seen.insert({p.gazeX, p.gazeY});
    minB = std::min(minB, p.breathY);
    maxB = std::max(maxB, p.breathY);
    if (t % kBreathPeriodMs == 0) CHECK(p.breathY == 0);
    last = p;
  }
  REQUIRE(jumps.size() >= 10);
  for (size_t i = 1; i < jumps.size(); i++) CHECK(jumps[i] - jumps[i - 1] < kSaccadeMaxMs);
  CHECK(seen.size() >= 8);
  CHECK(minB == -kBreathPx);
  CHECK(maxB == kBreathPx);
  CHECK(m.PoseAt(60000 + kBreathPeriodMs / 4 - 60000 % kBreathPeriodMs).breathY == kBreathPx);
}

TEST_CASE("face: blink, breath and gaze rest while audio plays and resume after") {
  FaceModel m(5);
  ReadyFace(m);
  m.PoseAt(0);
  m.PoseAt(20000);  // gaze has moved by now
  m.Playing(true);
  for (uint32_t t = 20000; t < 40000; t += 3) {
    Pose p = m.PoseAt(t);
    REQUIRE(p.paused);
    REQUIRE(p.eyeOpen == 1);
    REQUIRE(p.breathY == 0);
    REQUIRE(p.gazeX == 0);
    REQUIRE(p.gazeY == 0);
  }
  m.Playing(false);
  CHECK_FALSE(m.PoseAt(40000).paused);
  std::vector<uint32_t> starts = BlinkStarts(m, 40001, 60000);
  REQUIRE_FALSE(starts.empty());
  CHECK(starts[0] - 40000 >= kBlinkMinMs);
  CHECK(starts[0] - 40000 < kBlinkMaxMs);
  CHECK(m.PoseAt(40000 + kBreathPeriodMs / 4 + 30000).paused == false);
}

TEST_CASE("face: the mouth opens with the Device's steps; nod and shake swing 600 ms; LookAt holds 3 s") {
  FaceModel m(3);
  ReadyFace(m);
  auto mouthH = [&](uint32_t t) {
    for (const DrawOp& o : m.Frame(t).ops)
      if (o.kind == OpKind::FillRoundRect && o.x == kMouthX - kMouthW / 2) return int(o.h);
    return -1;
  };
  CHECK(mouthH(0) == 4);
  m.Mouth(0.5f);
  CHECK(mouthH(10) == 4 + 15);
  m.Mouth(1.0f);
  CHECK(mouthH(20) == 4 + 30);
  m.Mouth(0);
  m.Nod(1000);
  int maxY = 0;
  for (uint32_t t = 1000; t < 1000 + kGestureMs; t += 5) {
    Pose p = m.PoseAt(t);
    maxY = std::max(maxY, std::abs(p.headY));
    CHECK(p.headX == 0);
  }
  CHECK(maxY == 8);
  CHECK(m.PoseAt(1000 + kGestureMs).headY == 0);
  m.Shake(2000);
  CHECK(m.PoseAt(2000 + kGestureMs / 8).headX != 0);
  CHECK(m.PoseAt(2000 + kGestureMs / 8).headY == 0);
  CHECK(m.PoseAt(2000 + kGestureMs).headX == 0);
  m.LookAt(-1, 1, 3000);
  for (uint32_t t = 3000; t < 3000 + kLookHoldMs; t += 7) {
    Pose p = m.PoseAt(t);
    REQUIRE(p.gazeX == -10);
    REQUIRE(p.gazeY == 6);
  }
  bool moved = false;
  for (uint32_t t = 3000 + kLookHoldMs; t < 3000 + kLookHoldMs + kSaccadeMaxMs + 1; t++)
    moved = moved || m.PoseAt(t).gazeX != -10 || m.PoseAt(t).gazeY != 6;
  CHECK(moved);
}

TEST_CASE("face: a refusal shows for 10 s; the volume bar for 1.5 s; spinners turn every 250 ms") {
  FaceModel m(1);
  ReadyFace(m);
  m.Frame(0);
  m.Conversation(ConvState::Blocked, "no speech");
  CHECK(Badge(Draw(m.Frame(500)), kRed) > 0);
  CHECK(m.refusalShown(500 + kRefusalShowMs - 1));
  CHECK(Badge(Draw(m.Frame(500 + kRefusalShowMs)), kRed) == 0);
  CHECK(Bottom(Draw(m.Frame(500 + kRefusalShowMs)), kRefusalBg) == 0);
  m.Volume(30, false);
  CHECK(Draw(m.Frame(20000)).Count(0, 40, 40, 140, kFaceWhite) > 0);
  CHECK(Draw(m.Frame(20000 + kVolumeShowMs)).Count(0, 40, 40, 140, kFaceWhite) == 0);
  m.Conversation(ConvState::Connecting, "");
  auto badge = [&](uint32_t t) {
    sim::Canvas c = Draw(m.Frame(t));
    std::vector<uint32_t> px;
    for (int y = kBadgeY - kBadgeHalf; y < kBadgeY + kBadgeHalf; y++)
      for (int x = kBadgeX - kBadgeHalf; x < kBadgeX + kBadgeHalf; x++) px.push_back(c.At(x, y));
    return px;
  };
  auto a = badge(30000), b = badge(30249), c = badge(30250);
  CHECK(a == b);
  CHECK(b != c);
  CHECK(badge(31000) == a);  // four frames: back to the first
}

TEST_CASE("face: expressions parse by name; LookAt clamps") {
  Expression e;
  for (const char* n : {"neutral", "happy", "sad", "angry", "surprised", "sleepy", "doubtful"}) {
    REQUIRE(ParseExpression(n, &e));
    CHECK(std::string(ExpressionName(e)) == n);
  }
  CHECK_FALSE(ParseExpression("smug", &e));
  // Through the interface a tool runtime gets: each action changes the frame.
  FaceModel f(2);
  ReadyFace(f);
  FaceActions& act = f;
  uint64_t plain = f.Frame(100).Hash();
  act.SetExpression(Expression::Sad);
  CHECK(f.expression() == Expression::Sad);
  uint64_t sad = f.Frame(100).Hash();
  CHECK(sad != plain);
  act.ShowCaption("hi");
  CHECK(f.Frame(100).Describe().find("[hi]") != std::string::npos);
  act.ShowCaption("");
  CHECK(f.Frame(100).Hash() == sad);
  act.Nod(100);
  CHECK(f.PoseAt(150).headY != 0);
  FaceModel m;
  ReadyFace(m);
  m.LookAt(5, -5, 0);
  CHECK(m.PoseAt(1).gazeX == 10);
  CHECK(m.PoseAt(1).gazeY == -6);
}

// ---- each screen state, by pixels

TEST_CASE("screens: transport states") {
  sim::Canvas off = Shot("disconnected");
  CHECK(off.Count(0, 0, 320, 240, kFaceWhite) == 0);        // nothing bright while asleep
  CHECK(off.Count(kLeftEyeX - 12, kEyeY - 12, 24, 8, kFaceDim) == 0);  // eyes shut: a line, no disc
  CHECK(off.Count(kLeftEyeX - 12, kEyeY - 2, 24, 4, kFaceDim) > 60);
  CHECK(Bottom(off, kFaceGrey) > 0);                         // "no USB host"
  sim::Canvas wait = Shot("waiting"), audio = Shot("audio-only"), ready = Shot("ready");
  CHECK(wait.At(kLeftEyeX, kEyeY) == kFaceGrey);
  CHECK(audio.At(kRightEyeX, kEyeY) == kFaceGrey);
  CHECK(Bottom(wait, kFaceGrey) > 0);
  CHECK(Bottom(audio, kFaceGrey) > 0);
  CHECK(Bottom(wait, kFaceGrey) != Bottom(audio, kFaceGrey));  // two different lines
  CHECK(ready.At(kLeftEyeX, kEyeY) == kFaceWhite);
  CHECK(ready.At(kRightEyeX, kEyeY) == kFaceWhite);
  CHECK(Bottom(ready, kFaceGrey) == 0);
  CHECK(Badge(ready, kBadgeBg) == 0);
  CHECK(Badge(ready, kBadgeBg, kTaskBadgeX) == 0);
}

TEST_CASE("screens: conversation and status badges (spec 12.8)") {
  CHECK(Badge(Shot("connecting"), kAmber) > 0);
  CHECK(Badge(Shot("connecting"), kBadgeBg) > 0);
  CHECK(Badge(Shot("recognizing"), kFaceWhite) > 0);
  CHECK(Badge(Shot("recognizing"), kSpinnerDim) > 0);
  CHECK(Badge(Shot("listening"), kFaceWhite) > 40);
  CHECK(Badge(Shot("listening"), kSpinnerDim) == 0);
  sim::Canvas speak = Shot("speaking");
  CHECK(Badge(speak, kMicMuted) > 40);
  CHECK(Badge(speak, kFaceWhite) == 0);
  CHECK(speak.Count(kMouthX - kMouthW / 2, kMouthY - 12, kMouthW, 24, kFaceWhite) == kMouthW * 19 - 12);  // 19 px open, minus 3 px at each rounded corner
  CHECK(Bottom(speak, kFaceWhite) > 5000);  // the caption balloon
  CHECK(Badge(Shot("error"), kRed) > 0);
  sim::Canvas task = Shot("task");
  CHECK(Badge(task, kTaskBlue, kTaskBadgeX) > 0);
  CHECK(Badge(task, kBadgeBg) == 0);
  sim::Canvas both = Shot("task-listening");
  CHECK(Badge(both, kTaskBlue, kTaskBadgeX) > 0);
  CHECK(Badge(both, kFaceWhite) > 40);
}

TEST_CASE("screens: a refused request shows red ! and the reason in the banner") {
  sim::Canvas b = Shot("blocked");
  CHECK(Badge(b, kRed) > 0);
  CHECK(Bottom(b, kRefusalBg) > 5000);
  CHECK(Bottom(b, kFaceWhite) > 100);  // "blocked: no speech"
  // The reason is drawn as text: the display list carries it.
  std::string all = sim::Render(ScreenNamed("blocked")).Describe();
  CHECK(all.find("[blocked: no speech]") != std::string::npos);
  // A reason longer than the banner's two lines ends in an ellipsis.
  FaceModel m(1);
  ReadyFace(m);
  m.Conversation(ConvState::Blocked, std::string(200, 'x'));
  std::string longOne = m.Frame(0).Describe();
  CHECK(longOne.find("\xE2\x80\xA6]") != std::string::npos);
  CHECK(longOne.find(std::string(100, 'x')) == std::string::npos);
  std::string noEvent = sim::Render(ScreenNamed("blocked-no-event")).Describe();
  CHECK(noEvent.find("[blocked: the host has no EVENT") != std::string::npos);
}

TEST_CASE("screens: volume, approval, expressions") {
  sim::Canvas v = Shot("volume"), z = Shot("volume-diagnostics");
  int bar = v.Count(14, 54, 16, 102, kFaceWhite);
  CHECK(bar == 16 * (102 * 70 / 100));
  CHECK(z.Count(14, 54, 16, 102, kFaceWhite) == 0);
  CHECK(sim::Render(ScreenNamed("volume-diagnostics")).Describe().find("\"muted\"") != std::string::npos);
  sim::Canvas a = Shot("approval");
  CHECK(a.Count(kOkButtonRect.x, kOkButtonRect.y, kOkButtonRect.w, kOkButtonRect.h, 0x20a040) > 3000);
  CHECK(a.Count(kNgButtonRect.x, kNgButtonRect.y, kNgButtonRect.w, kNgButtonRect.h, 0xd02020) > 3000);
  CHECK(a.Count(0, kButtonsY - 20, 320, 16, kAmber) > 0);  // "contains hidden characters"
  CHECK(a.At(kLeftEyeX, kEyeY) == 0);                      // no face behind it
  // Every expression draws a different frame; none is the neutral one.
  std::set<uint64_t> hashes = {sim::Render(ScreenNamed("ready")).Hash()};
  for (const char* n : {"happy", "sad", "angry", "surprised", "sleepy", "doubtful", "look-left", "look-right", "look-up",
                        "look-down", "nod", "shake", "say"})
    CHECK_MESSAGE(hashes.insert(sim::Render(ScreenNamed(n)).Hash()).second, n);
  sim::Canvas happy = Shot("happy");
  CHECK(happy.At(kLeftEyeX, kEyeY - 8) == kFaceWhite);
  CHECK(happy.At(kLeftEyeX, kEyeY + 6) == 0);  // the lower half cut away
}

// The tool screens are drawn through the real tools (sim/screens.cpp Tool):
// where the eyes and the head went, and the said caption.
TEST_CASE("screens: Stack-chan's tools move the eyes, the head and the balloon") {
  sim::Canvas ready = Shot("ready");
  CHECK(ready.At(kLeftEyeX, kEyeY) == kFaceWhite);
  struct Case {
    const char* name;
    int dx, dy;  // where the left eye's centre went
  } moved[] = {{"look-left", -10, 0}, {"look-right", 10, 0}, {"look-up", 0, -6}, {"look-down", 0, 6},
               {"nod", 0, 8},         {"shake", 10, 0}};
  for (const Case& c : moved) {
    CAPTURE(c.name);
    sim::Canvas s = Shot(c.name);
    // The eye (r 12) moved by (dx, dy): white just inside its new edge on
    // the side it moved to, black just outside.
    int x = kLeftEyeX + c.dx, y = kEyeY + c.dy;
    CHECK(s.At(x, y) == kFaceWhite);
    if (c.dx) CHECK(s.At(x + (c.dx > 0 ? kEyeR - 1 : -kEyeR + 1), y) == kFaceWhite);
    if (c.dx) CHECK(s.At(x - (c.dx > 0 ? kEyeR + 1 : -kEyeR - 1), y) == 0);
    if (c.dy) CHECK(s.At(x, y + (c.dy > 0 ? kEyeR - 1 : -kEyeR + 1)) == kFaceWhite);
    if (c.dy) CHECK(s.At(x, y - (c.dy > 0 ? kEyeR + 1 : -kEyeR - 1)) == 0);
  }
  // Nod and shake move the mouth with the head; a gaze does not.
  CHECK(Shot("nod").At(kMouthX, kMouthY + 9) == kFaceWhite);
  CHECK(Shot("look-down").At(kMouthX, kMouthY) == kFaceWhite);
  std::string say = sim::Render(ScreenNamed("say")).Describe();
  CHECK(say.find("Stack-chan") != std::string::npos);
  CHECK(Bottom(Shot("say"), kFaceWhite) > 5000);
  CHECK(Bottom(ready, kFaceWhite) == 0);
}

TEST_CASE("screens: every kept PNG in docs/screens is what the renderer draws now") {
  std::string dir = ScreensDir();
  std::set<std::string> names;
  for (const sim::Screen& s : sim::Screens()) {
    CHECK_MESSAGE(names.insert(s.name).second, "duplicate screen " << std::string(s.name));
    sim::Canvas c = Draw(sim::Render(s));
    std::string want = sim::EncodePng(c);
    std::ifstream f(dir + "/" + s.name + ".png", std::ios::binary);
    std::stringstream got;
    got << f.rdbuf();
    CHECK_MESSAGE(got.str() == want, std::string(s.name) << ".png differs from what is drawn now: run `make -C firmware screenshots`");
  }
  CHECK(names.size() >= 20);
}

TEST_CASE("png: a valid stream (signature, IHDR, palette, zlib/Adler-32 trailer)") {
  sim::Canvas c(4, 2);
  c.FillRect(0, 0, 4, 1, 0xff0000);
  c.FillRect(0, 1, 4, 1, 0x0000ff);
  std::string p = sim::EncodePng(c);
  CHECK(p.substr(0, 8) == "\x89PNG\r\n\x1a\n");
  CHECK(p.substr(12, 4) == "IHDR");
  CHECK(uint8_t(p[24]) == 8);  // bit depth
  CHECK(uint8_t(p[25]) == 3);  // palette
  CHECK(p.find("PLTE") != std::string::npos);
  CHECK(p.substr(p.size() - 8, 4) == "IEND");
  // Two runs of different pixels give two different files.
  sim::Canvas d(4, 2);
  d.FillRect(0, 0, 4, 2, 0xff0000);
  CHECK(sim::EncodePng(d) != p);
}
