// Wire v2 codec and the §4 parser. Pins the example encodings of spec §2.1
// byte for byte, the resync rules (one byte per bad header or CRC), and
// fragmentation/coalescing at every split point.
#include <cstring>

#include "helpers.h"
#include "wire.h"

using namespace sc;

namespace {
std::string Hex(std::string s) {
  std::string out;
  for (char c : s)
    if (c != ' ') out.push_back(c);
  return out;
}
std::vector<OwnedFrame> ParseAll(Parser& p, const Bytes& b) {
  std::vector<OwnedFrame> out;
  p.FeedAll(b.data(), b.size(), [&](const Frame& f) {
    out.push_back({f.type, f.flags, f.stream, f.sequence, f.sampleRate, Bytes(f.payload, f.payload + f.length)});
  });
  return out;
}
}  // namespace

TEST_CASE("crc32 check value is the IEEE one") {
  const char* s = "123456789";
  CHECK(Crc32(reinterpret_cast<const uint8_t*>(s), 9) == 0xCBF43926u);
  CHECK(Crc32(nullptr, 0) == 0);
  // continuing a CRC over two halves equals one pass
  uint32_t a = Crc32(reinterpret_cast<const uint8_t*>(s), 4);
  CHECK(Crc32(reinterpret_cast<const uint8_t*>(s) + 4, 5, a) == 0xCBF43926u);
}

TEST_CASE("spec 2.1 example encodings are reproduced byte for byte") {
  Bytes p8(8);
  struct Case {
    const char* name;
    Bytes got;
    const char* want;
  };
  auto hello = [](uint32_t max, uint32_t caps, uint16_t code) {
    Bytes p(8);
    PutU32(p.data(), max);
    PutU32(p.data() + 4, caps);
    return ControlFrame(code, 0, 0, p);
  };
  Frame golden;
  golden.type = 2;
  golden.flags = 32;
  golden.stream = 1;
  golden.sequence = 42;
  golden.sampleRate = 24000;
  uint8_t pcm[] = {1, 2, 3, 4};
  golden.payload = pcm;
  golden.length = 4;
  Case cases[] = {
      {"HELLO F7F", hello(4096, 0xF7F, kHello), "4353 02 00 0100 0000 00000000 00000000 08000000 00100000 7f0f0000 82292f6d"},
      {"HELLO F27", hello(4096, 0xF27, kHello), "4353 02 00 0100 0000 00000000 00000000 08000000 00100000 270f0000 cf0e9663"},
      {"HELLO_ACK", hello(4096, 0xF7F, kHelloAck), "4353 02 00 0200 0000 00000000 00000000 08000000 00100000 7f0f0000 aa803135"},
      {"MIC_START", ControlFrame(kMicStart, 1, 16000, {}, 1), "4353 02 00 1000 0100 01000000 803e0000 00000000 0b84a626"},
      {"MIC_STARTED", ControlFrame(kMicStarted, 1, 16000), "4353 02 00 1100 0100 00000000 803e0000 00000000 f5596b13"},
      {"SPEAKER_START", ControlFrame(kSpeakerStart, 2, 24000), "4353 02 00 2000 0200 00000000 c05d0000 00000000 c93cb9a3"},
      {"SPEAKER_CREDIT", ControlFrame(kSpeakerCredit, 2, 24000, U32(8192), 3),
       "4353 02 00 2100 0200 03000000 c05d0000 04000000 00200000 6942008d"},
      {"SPEAKER_END", ControlFrame(kSpeakerEnd, 2, 24000, {}, 9), "4353 02 00 2200 0200 09000000 c05d0000 00000000 3b23b0b9"},
      {"ERROR BUSY", ControlFrame(kError, 2, 0, U32(5)), "4353 02 00 0300 0200 00000000 00000000 04000000 05000000 fd2ee798"},
      {"STATUS", ControlFrame(kStatus, 0, 0, {3}, 5), "4353 02 00 3000 0000 05000000 00000000 01000000 03 0f2a6c40"},
      {"SPEAKER_PCM golden", Encoded(golden), "4353 02 02 2000 0100 2a000000 c05d0000 04000000 01020304 a2b25483"},
  };
  for (auto& c : cases) {
    CAPTURE(c.name);
    CHECK(ToHex(c.got) == Hex(c.want));
    Frame f;
    CHECK(Decode(c.got.data(), c.got.size(), &f) == DecodeError::None);
  }
}

TEST_CASE("encode refuses oversize payloads and bad types") {
  Bytes big(kMaxPayload + 1), out(kMaxFrame + 8);
  Frame f;
  f.payload = big.data();
  f.length = uint32_t(big.size());
  CHECK(Encode(f, out.data(), out.size()) == 0);
  f.length = kMaxPayload;
  CHECK(Encode(f, out.data(), out.size()) == kMaxFrame);
  f.type = 7;
  CHECK(Encode(f, out.data(), out.size()) == 0);
  f.type = 0;
  CHECK(Encode(f, out.data(), 100) == 0);  // buffer too small
}

TEST_CASE("decode names each failure") {
  Bytes good = ControlFrame(kStatus, 0, 0, {1});
  Frame f;
  CHECK(Decode(good.data(), 10, &f) == DecodeError::Short);
  Bytes b = good;
  b[0] = 0;
  CHECK(Decode(b.data(), b.size(), &f) == DecodeError::Magic);
  b = good;
  b[2] = 1;
  CHECK(Decode(b.data(), b.size(), &f) == DecodeError::Version);
  b = good;
  b[3] = 7;
  CHECK(Decode(b.data(), b.size(), &f) == DecodeError::Type);
  b = good;
  PutU32(b.data() + 16, 4097);
  CHECK(Decode(b.data(), b.size(), &f) == DecodeError::Length);
  b = good;
  b.back() ^= 1;
  CHECK(Decode(b.data(), b.size(), &f) == DecodeError::Crc);
  b = good;
  b.push_back(0);
  CHECK(Decode(b.data(), b.size(), &f) == DecodeError::Trailing);
  CHECK(std::string(DecodeErrorName(DecodeError::Crc)) == "crc mismatch");
}

TEST_CASE("encode then parse round-trips every byte value and every length bucket") {
  Bytes payload(kMaxPayload);
  for (size_t i = 0; i < payload.size(); i++) payload[i] = uint8_t(i);
  for (uint32_t len : {0u, 1u, 2u, 255u, 256u, 640u, 4095u, 4096u}) {
    Frame f;
    f.type = 6;
    f.flags = 0xBEEF;
    f.stream = 65535;
    f.sequence = 0xFFFFFFFF;
    f.sampleRate = 24000;
    f.payload = payload.data();
    f.length = len;
    Bytes enc = Encoded(f);
    Parser p;
    auto got = ParseAll(p, enc);
    REQUIRE(got.size() == 1);
    CHECK(got[0].type == 6);
    CHECK(got[0].flags == 0xBEEF);
    CHECK(got[0].stream == 65535);
    CHECK(got[0].sequence == 0xFFFFFFFF);
    CHECK(got[0].payload == Bytes(payload.begin(), payload.begin() + len));
  }
}

TEST_CASE("a frame split at every offset is emitted once, after its last byte") {
  Bytes enc = FromHex("43530202200001002a000000c05d00000400000001020304a2b25483");
  for (size_t cut = 1; cut < enc.size(); cut++) {
    Parser p;
    Bytes a(enc.begin(), enc.begin() + long(cut)), b(enc.begin() + long(cut), enc.end());
    CHECK(ParseAll(p, a).empty());
    CHECK(ParseAll(p, b).size() == 1);
  }
  Parser p;  // byte at a time
  size_t n = 0;
  for (uint8_t c : enc) n += ParseAll(p, Bytes{c}).size();
  CHECK(n == 1);
}

TEST_CASE("resync: garbage, fake magic, bad version, bad type, oversize and CRC each cost one byte") {
  Bytes good = ControlFrame(kStatus, 0, 0, {2});
  Bytes stream = {0xFF, 0x43, 0x43, 0x53, 0x00};  // a lone 'C' and a magic with junk
  Bytes badVer = good;
  badVer[2] = 1;
  Bytes badType = good;
  badType[3] = 9;
  Bytes oversize = good;
  PutU32(oversize.data() + 16, 5000);
  Bytes badCrc = good;
  badCrc[badCrc.size() - 1] ^= 0x80;
  for (auto* part : {&badVer, &badType, &oversize, &badCrc, &good}) stream.insert(stream.end(), part->begin(), part->end());
  Parser p;
  auto got = ParseAll(p, stream);
  REQUIRE(got.size() == 1);
  CHECK(got[0].payload == Bytes{2});
  CHECK(p.stats().crcErrors == 1);
  CHECK(p.stats().badHeaders >= 3);
}

TEST_CASE("a real frame hidden inside a corrupt frame's bytes is still found") {
  Bytes inner = ControlFrame(kStatus, 0, 0, {1});
  Frame outer;
  outer.type = 6;
  outer.stream = 3;
  outer.payload = inner.data();
  outer.length = uint32_t(inner.size());
  Bytes enc = Encoded(outer);
  enc.back() ^= 1;  // outer CRC broken: the parser must walk into the payload
  Parser p;
  auto got = ParseAll(p, enc);
  REQUIRE(got.size() == 1);
  CHECK(got[0].flags == kStatus);
}

TEST_CASE("no magic keeps only the last byte; a trailing 'C' joins the next read") {
  Parser p;
  Bytes junk(100, 0x11);
  junk.back() = 0x43;
  CHECK(ParseAll(p, junk).empty());
  CHECK(p.pending() == 1);
  Bytes good = ControlFrame(kStatus, 0, 0, {1});
  Bytes rest(good.begin() + 1, good.end());
  CHECK(ParseAll(p, rest).size() == 1);
}

TEST_CASE("many coalesced maximum frames in one huge read all come out in order") {
  Bytes payload(kMaxPayload, 0xAB);
  Bytes all;
  for (uint32_t i = 0; i < 10; i++) {
    Frame f;
    f.type = 2;
    f.sequence = i;
    f.payload = payload.data();
    f.length = kMaxPayload;
    Bytes e = Encoded(f);
    all.insert(all.end(), e.begin(), e.end());
  }
  Parser p;
  auto got = ParseAll(p, all);
  REQUIRE(got.size() == 10);
  for (uint32_t i = 0; i < 10; i++) CHECK(got[i].sequence == i);
  CHECK(p.pending() == 0);
}

TEST_CASE("hello payload and negotiation helpers") {
  uint8_t p[8];
  EncodeHelloPayload(Hello{4096, 0xF27}, p);
  CHECK(ToHex(p, 8) == "00100000270f0000");
  Hello h;
  CHECK(DecodeHelloPayload(p, 8, &h));
  CHECK(h.maxPayload == 4096);
  CHECK(h.capabilities == 0xF27);
  CHECK_FALSE(DecodeHelloPayload(p, 7, &h));
  CHECK(EventReady(0xF27, kFirmwareCaps));
  CHECK_FALSE(EventReady(0x227, kFirmwareCaps));
}

// ---- cut-off frames (README "Cut-off frames", issue 32 item 5)

namespace {
// CutFrame is the first n bytes of a frame promising the largest payload.
Bytes CutFrame(size_t n) {
  Bytes pay(kMaxPayload);
  Frame f;
  f.type = 2;
  f.stream = 1;
  f.sampleRate = 24000;
  f.payload = pay.data();
  f.length = kMaxPayload;
  Bytes e = Encoded(f);
  return Bytes(e.begin(), e.begin() + long(n));
}
std::vector<OwnedFrame> ParseAt(Parser& p, const Bytes& b, uint32_t now) {
  std::vector<OwnedFrame> out;
  p.FeedAll(b.data(), b.size(), now, [&](const Frame& f) {
    out.push_back({f.type, f.flags, f.stream, f.sequence, f.sampleRate, Bytes(f.payload, f.payload + f.length)});
  });
  return out;
}
std::vector<OwnedFrame> ExpireAt(Parser& p, uint32_t now) {
  p.Expire(now);
  std::vector<OwnedFrame> out;
  Frame f;
  while (p.Next(&f)) out.push_back({f.type, f.flags, f.stream, f.sequence, f.sampleRate, Bytes(f.payload, f.payload + f.length)});
  return out;
}
}  // namespace

TEST_CASE("a cut frame is given up on kStaleAfterMs after its first byte; the HELLO behind it is found") {
  for (uint32_t t0 : {1000u, 0xFFFFFF00u}) {  // and across the clock's wrap
    CAPTURE(t0);
    Parser p;
    CHECK(ParseAt(p, CutFrame(40), t0).empty());
    CHECK(ParseAt(p, HelloFrame(), t0 + 100).empty());  // swallowed, for now
    CHECK(ExpireAt(p, t0 + kStaleAfterMs - 1).empty());
    auto got = ExpireAt(p, t0 + kStaleAfterMs);
    REQUIRE(got.size() == 1);
    CHECK(got[0].flags == kHello);
    CHECK(p.stats().stale == 1);
    CHECK(p.stats().skippedBytes == 40);
    CHECK(p.pending() == 0);
  }
  Parser p;  // a HELLO arriving after the deadline is found at once
  CHECK(ParseAt(p, CutFrame(40), 1000).empty());
  CHECK(ParseAt(p, HelloFrame(), 1000 + kStaleAfterMs).size() == 1);
}

TEST_CASE("a frame whose rest arrives late but in one read is still emitted") {
  Bytes whole = CutFrame(kMaxFrame);
  Parser p;
  CHECK(ParseAt(p, Bytes(whole.begin(), whole.begin() + 40), 1000).empty());
  CHECK(ParseAt(p, Bytes(whole.begin() + 40, whole.end()), 4000).size() == 1);
  CHECK(p.stats().stale == 0);
}

TEST_CASE("a frame trickling in a byte per ms (more reads than arrival slots) is not stale") {
  Bytes e = ControlFrame(kSpeakerText, 1, 0, Bytes(96, 'x'));
  Parser p;
  size_t n = 0;
  for (size_t i = 0; i < e.size(); i++) n += ParseAt(p, Bytes{e[i]}, 1000 + uint32_t(i)).size();
  CHECK(n == 1);
  CHECK(p.stats().stale == 0);
}

TEST_CASE("heartbeats every 20 ms behind a cut frame all come out once it is stale") {
  Parser p;
  ParseAt(p, CutFrame(40), 1000);
  size_t got = 0;
  for (uint32_t i = 1; i <= 30; i++) {
    got += ParseAt(p, ControlFrame(kStatus, 0, 0, {0}), 1000 + 20 * i).size();
    if (20 * i >= kStaleAfterMs) CHECK(got == i);
    else CHECK(got == 0);
  }
}

TEST_CASE("bytes fed without a time never go stale (plain section 4)") {
  Parser p;
  ParseAll(p, CutFrame(40));
  ParseAll(p, HelloFrame());
  CHECK(ExpireAt(p, 1000000).empty());
  CHECK(p.stats().stale == 0);
}

TEST_CASE("the host's fill completes any partial frame, so the HELLO behind it is read") {
  Bytes inner = CutFrame(kMaxFrame);
  Bytes nested = CutFrame(60);
  nested.insert(nested.end(), inner.begin(), inner.end() - 100);
  for (const Bytes& held : {Bytes{}, Bytes{0x43, 0x53}, CutFrame(11), CutFrame(40), CutFrame(kMaxFrame - 1), nested}) {
    CAPTURE(held.size());
    Parser p;  // untimed: a parser without the timeout
    ParseAll(p, held);
    ParseAll(p, Bytes(kFillLen, 0));
    auto got = ParseAll(p, HelloFrame());
    REQUIRE(!got.empty());
    CHECK(got.back().flags == kHello);
    CHECK(p.pending() == 0);
  }
}
