// Seeded fuzz loops without libFuzzer (contract: no crash, no sanitizer
// report, and outputs checked by an independent oracle). The seed is printed
// so a failure can be replayed: FUZZ_SEED=<seed> make test. FUZZ_ITERS bounds
// the work.
#include <cstdio>
#include <random>

#include "appevent.h"
#include "event.h"
#include "helpers.h"
#include "json.h"
#include "settings.h"
#include "fuzz/session_harness.h"

#include <fstream>

using namespace sc;

namespace {
uint64_t Seed() { return FuzzSeed(); }
int Iters() { return FuzzIters(); }

// Mutated is a corpus entry with up to three random edits: a byte changed,
// a few erased, one of alphabet inserted, or a piece appended again.
std::string Mutated(const std::vector<std::string>& corpus, std::mt19937_64& rng, const std::string& alphabet) {
  std::string m = corpus[rng() % corpus.size()];
  int muts = int(rng() % 4);
  for (int k = 0; k < muts && !m.empty(); k++) {
    size_t at = rng() % m.size();
    switch (rng() % 4) {
      case 0: m[at] = char(rng()); break;
      case 1: m.erase(at, 1 + rng() % 4); break;
      case 2: m.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
      case 3: m += m.substr(at, 8); break;
    }
  }
  return m;
}
// SeedLines: the non-empty lines of a seed file in test/fuzz/seeds.
std::vector<std::string> SeedLines(const char* name) {
  std::vector<std::string> out;
  std::ifstream f(std::string(STACKCHAN_FUZZ_SEEDS_DIR) + "/" + name);
  std::string line;
  while (std::getline(f, line))
    if (!line.empty()) out.push_back(line);
  return out;
}
}  // namespace

TEST_CASE("fuzz: parser over mutated frame streams finds every intact frame") {
  uint64_t seed = Seed();
  int iters = Iters();
  std::printf("fuzz parser: seed=%llu iterations=%d\n", (unsigned long long)seed, iters);
  std::mt19937_64 rng(seed);
  Parser p;
  uint64_t frames = 0;
  for (int it = 0; it < iters; it++) {
    // Build a stream of random valid frames separated by junk; corrupt some.
    Bytes stream;
    int wantIntact = 0;
    int n = int(rng() % 4) + 1;
    for (int k = 0; k < n; k++) {
      Bytes junk(rng() % 8);
      for (auto& b : junk) b = uint8_t(rng() % 3 == 0 ? 0x43 : rng());
      stream.insert(stream.end(), junk.begin(), junk.end());
      Bytes pay(rng() % 300);
      for (auto& b : pay) b = uint8_t(rng());
      Frame f;
      f.type = uint8_t(rng() % 7);
      f.flags = uint16_t(rng());
      f.stream = uint16_t(rng());
      f.sequence = uint32_t(rng());
      f.payload = pay.data();
      f.length = uint32_t(pay.size());
      Bytes e = Encoded(f);
      bool corrupt = rng() % 4 == 0;
      if (corrupt) e[rng() % e.size()] ^= uint8_t(1 + rng() % 255);
      else wantIntact++;
      stream.insert(stream.end(), e.begin(), e.end());
    }
    // A corrupted length field makes the parser wait for up to 4 KiB before
    // it can reject that header (§4 step 6); later traffic flushes it out.
    stream.insert(stream.end(), kMaxFrame, 0);
    // Oracle: every intact frame is found (corrupt ones may, rarely, hide a
    // valid frame, so we check >=) and every emitted frame decodes on its own.
    p.Reset();
    int got = 0;
    size_t off = 0;
    while (off < stream.size()) {
      size_t step = 1 + rng() % 64;
      if (step > stream.size() - off) step = stream.size() - off;
      p.FeedAll(stream.data() + off, step, [&](const Frame& f) {
        got++;
        Bytes re = Encoded(f);
        Frame back;
        REQUIRE(Decode(re.data(), re.size(), &back) == DecodeError::None);
      });
      off += step;
    }
    CHECK(got >= wantIntact);
    frames += uint64_t(got);
  }
  if (iters >= 100) CHECK(frames > 0);
}

TEST_CASE("fuzz: timed parser over cut frames and random gaps never waits past kStaleAfterMs") {
  uint64_t seed = Seed();
  int iters = Iters() / 10;
  std::printf("fuzz timed parser: seed=%llu iterations=%d\n", (unsigned long long)seed, iters);
  std::mt19937_64 rng(seed);
  Bytes hello = HelloFrame();
  Parser p;
  uint64_t stale = 0;
  for (int it = 0; it < iters; it++) {
    // Frames, some cut short at a random byte (the sender restarted), and
    // junk rich in magic, read in random pieces at random gaps.
    Bytes stream;
    for (int k = int(rng() % 5) + 1; k > 0; k--) {
      Bytes pay(rng() % 2 ? kMaxPayload : rng() % 300);
      for (auto& b : pay) b = uint8_t(rng() % 4 == 0 ? 0x43 : rng());
      Frame f;
      f.type = uint8_t(rng() % 7);
      f.stream = uint16_t(rng());
      f.payload = pay.data();
      f.length = uint32_t(pay.size());
      Bytes e = Encoded(f);
      if (rng() % 2) e.resize(1 + rng() % e.size());
      stream.insert(stream.end(), e.begin(), e.end());
    }
    stale += p.stats().stale;
    p.Reset();
    uint32_t now = uint32_t(rng());  // anywhere on the clock, wrap included
    size_t off = 0;
    while (off < stream.size()) {
      size_t step = 1 + rng() % 700;
      if (step > stream.size() - off) step = stream.size() - off;
      now += uint32_t(rng() % 4 == 0 ? rng() % 1200 : rng() % 20);
      p.FeedAll(stream.data() + off, step, now, [&](const Frame& f) {
        Bytes re = Encoded(f);
        Frame back;
        REQUIRE(Decode(re.data(), re.size(), &back) == DecodeError::None);
      });
      off += step;
    }
    // kStaleAfterMs after the last read nothing may still be waited for:
    // a HELLO fed then, at once, is found.
    now += kStaleAfterMs;
    p.Expire(now);
    Frame f;
    while (p.Next(&f)) {
    }
    int hellos = 0;
    p.FeedAll(hello.data(), hello.size(), now, [&](const Frame& fr) { hellos += fr.flags == kHello && fr.type == 0; });
    CHECK(hellos == 1);
    // And the fill alone idles it too, without any time passing.
    p.FeedAll(stream.data(), stream.size(), now, [](const Frame&) {});
    Bytes fill(kFillLen, 0);
    p.FeedAll(fill.data(), fill.size(), now, [](const Frame&) {});
    hellos = 0;
    p.FeedAll(hello.data(), hello.size(), now, [&](const Frame& fr) { hellos += fr.flags == kHello && fr.type == 0; });
    CHECK(hellos == 1);
    CHECK(p.pending() == 0);
  }
  if (iters >= 100) CHECK(stale > 0);  // the cut frames were given up on, not completed
}

TEST_CASE("fuzz: raw random bytes never crash the parser or the decoder") {
  uint64_t seed = Seed();
  int iters = Iters();
  std::printf("fuzz raw bytes: seed=%llu iterations=%d\n", (unsigned long long)seed, iters);
  std::mt19937_64 rng(seed);
  Parser p;
  Bytes buf(9000);
  for (int it = 0; it < iters; it++) {
    size_t n = rng() % buf.size();
    for (size_t i = 0; i < n; i++) buf[i] = uint8_t(rng() % 5 == 0 ? "CS\x02\x06\x00"[rng() % 5] : rng());
    Frame f;
    (void)Decode(buf.data(), n, &f);
    p.FeedAll(buf.data(), n, [](const Frame& fr) { REQUIRE(fr.length <= kMaxPayload); });
  }
}

TEST_CASE("fuzz: event decoder (reassembly + JSON + v1 validation) on mutated messages") {
  uint64_t seed = Seed();
  int iters = Iters();
  std::printf("fuzz event decoder: seed=%llu iterations=%d\n", (unsigned long long)seed, iters);
  std::mt19937_64 rng(seed);
  std::vector<std::string> corpus = {
      BuildConversationStart("conversation-a1b2c3d4-1"),
      R"({"schema":"stackchan.event.v1","type":"conversation.result","requestId":"r","success":false,"state":"blocked","error":"e"})",
      R"({"schema":"stackchan.event.v1","type":"approval.request","requestId":"a","kind":"fileChange","title":"t","summary":"s","detail":"d\u00e9","truncated":true})",
      R"({"schema":"stackchan.event.v1","type":"task.status","requestId":"t","state":"running"})",
      R"({"type":"session.update","event_id":"x","session":{"instructions":"","tools":[{"a":[1,2,{"b":null}]}]}})",
  };
  EventReassembler r;
  uint64_t apps = 0;
  for (int it = 0; it < iters; it++) {
    std::string m = Mutated(corpus, rng, "{}[]\",:\\u0");
    uint16_t id = uint16_t(1 + rng() % 6);
    size_t max = 1 + rng() % 64;
    std::vector<EventReassembler::Result> results;
    ChunkEvent(id, reinterpret_cast<const uint8_t*>(m.data()), m.size(), max, [&](const Frame& f) {
      Frame g = f;
      if (rng() % 50 == 0) g.sequence++;  // occasional loss
      results.push_back(r.Push(g));
    });
    for (auto& res : results) {
      if (!res.complete) continue;
      Classified c = Classify(res.message);
      if (c.route == Route::Application) {
        apps++;
        // Oracle: nlohmann agrees it is JSON, and our serialization re-parses
        // to an event of the same type and id.
        CHECK(nlohmann::json::accept(res.message));
        Classified again = Classify(Serialize(c.event));
        REQUIRE(again.route == Route::Application);
        CHECK(again.event.type == c.event.type);
        CHECK(again.event.requestId == c.event.requestId);
      } else if (c.route == Route::Raw) {
        CHECK(nlohmann::json::parse(res.message).is_object());
      }
      // Independent check: whatever we call broken JSON nlohmann rejects too.
      json::Object o;
      if (json::ParseObject(res.message.data(), res.message.size(), &o) == json::ParseResult::Invalid &&
          ValidUtf8(res.message)) {
        bool nlOk = nlohmann::json::accept(res.message);
        // nlohmann's lexer ends the input at a NUL byte, so it accepts a
        // document followed by "\0garbage" that we rightly refuse (seen
        // with FUZZ_SEED=2799336910); compare up to the first NUL only.
        bool hasNul = res.message.find('\0') != std::string::npos;
        if (nlOk && !hasNul) {
          // Only acceptable disagreement: our depth limit.
          INFO("message: " << res.message);
          CHECK(res.message.find("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[") != std::string::npos);
        }
      }
    }
  }
  if (iters >= 100) CHECK(apps > 0);  // the oracle really ran on valid events
}

TEST_CASE("fuzz: claude_pi.settings decoder on mutated events, checked against nlohmann") {
  uint64_t seed = Seed();
  int iters = Iters();
  std::printf("fuzz settings: seed=%llu iterations=%d\n", (unsigned long long)seed, iters);
  std::mt19937_64 rng(seed);
  std::vector<std::string> corpus = SeedLines("settings.txt");
  REQUIRE(corpus.size() >= 4);
  uint64_t ok = 0;
  for (int it = 0; it < iters; it++) {
    std::string m = Mutated(corpus, rng, "0123456789-.e{}\"");
    SettingsEvent ev;
    const char* why = "";
    SettingsDecode d = DecodeSettingsEvent(m, &ev, &why);
    if (d != SettingsDecode::Ok) continue;
    ok++;
    // Oracle: nlohmann reads the same type, id and volume (if any).
    INFO("message: " << m);
    nlohmann::json j = nlohmann::json::parse(m, nullptr, false);
    REQUIRE(j.is_object());
    CHECK(j["type"] == "claude_pi.settings");
    CHECK(j["event_id"] == ev.eventId);
    if (ev.hasVolume) {
      REQUIRE(j["tts"]["volume"].is_number_integer());
      CHECK(j["tts"]["volume"].get<int>() == ev.volume);
      CHECK(ev.volume <= 100);
    }
  }
  if (iters >= 100) CHECK(ok > 0);
}

TEST_CASE("fuzz: the session decoder and Stack-chan's tools on mutated raw events (the libFuzzer harness)") {
  uint64_t seed = Seed();
  int iters = Iters() / 20;  // each input is a session with a face: ~20x a settings event
  std::printf("fuzz session: seed=%llu iterations=%d\n", (unsigned long long)seed, iters);
  std::vector<std::string> corpus = SeedLines("session.txt");
  REQUIRE(corpus.size() >= 10);
  // The seeds reach the tools: one by one, and as one session.
  std::string all;
  uint64_t ranOk = 0;
  for (const std::string& c : corpus) {
    fuzz::SessionRun r = fuzz::FuzzSession(c);
    CHECK_MESSAGE(r.broke == nullptr, c << ": " << std::string(r.broke ? r.broke : ""));
    ranOk += r.ranOk;
    all += c + "\n";
  }
  CHECK(ranOk >= 6);
  fuzz::SessionRun whole = fuzz::FuzzSession(all);
  CHECK(whole.broke == nullptr);
  CHECK(whole.ranOk >= 6);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < iters; it++) {
    std::string in;
    for (int k = 1 + int(rng() % 4); k > 0; k--) in += Mutated(corpus, rng, "\"\\{}:,0123u\n") + "\n";
    fuzz::SessionRun r = fuzz::FuzzSession(in);
    if (r.broke) FAIL(std::string(r.broke) << " on input:\n" << in);
  }
}
