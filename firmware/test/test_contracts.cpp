// The six contract files, loaded from the repository's vendored copies
// (protocols/stackchan/contracttest/testdata/stackchan, pinned by SHA-256 in
// VENDOR_SOURCE.json beside that folder). Where a vector and the spec disagree the spec's
// stated choice wins: abort after a force-stop is idempotent (§23).
#include <dirent.h>

#include <set>

#include "appevent.h"
#include "event.h"
#include "helpers.h"
#include "media.h"

using namespace sc;
using Json = nlohmann::json;

TEST_CASE("every contract file in the folder is covered by a test here") {
  std::string dir = ContractsDir();
  std::set<std::string> known = {"test-vectors.json",          "negotiation-vectors.json", "application-event-vectors.json",
                                 "parser-scenarios-v2.json",   "media-session-v2.json",    "application-event-v1.json"};
  DIR* d = opendir(dir.c_str());
  REQUIRE(d != nullptr);
  std::set<std::string> seen;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n.size() > 5 && n.substr(n.size() - 5) == ".json") seen.insert(n);
  }
  closedir(d);
  CHECK(seen == known);
}

namespace {
Frame FrameFrom(const Json& j, Bytes& storage) {
  storage = FromHex(j["payloadHex"].get<std::string>());
  Frame f;
  f.type = j["type"].get<uint8_t>();
  f.flags = j["flags"].get<uint16_t>();
  f.stream = j["streamId"].get<uint16_t>();
  f.sequence = j["sequence"].get<uint32_t>();
  f.sampleRate = j["sampleRate"].get<uint32_t>();
  f.payload = storage.data();
  f.length = uint32_t(storage.size());
  return f;
}
size_t ParseCount(Parser& p, const Bytes& b, std::vector<OwnedFrame>* out = nullptr) {
  size_t n = 0;
  p.FeedAll(b.data(), b.size(), [&](const Frame& f) {
    n++;
    if (out) out->push_back({f.type, f.flags, f.stream, f.sequence, f.sampleRate, Bytes(f.payload, f.payload + f.length)});
  });
  return n;
}
}  // namespace

TEST_CASE("test-vectors.json: valid frames encode, decode and parse exactly; the corrupt one fails") {
  Json v = LoadContract("test-vectors.json");
  CHECK(v["protocolVersion"] == 2);
  REQUIRE(v["validFrames"].size() == 3);
  for (auto& c : v["validFrames"]) {
    CAPTURE(c["name"].get<std::string>());
    Bytes storage;
    Frame f = FrameFrom(c["frame"], storage);
    CHECK(ToHex(Encoded(f)) == c["encodedHex"].get<std::string>());
    Bytes enc = FromHex(c["encodedHex"]);
    Frame d;
    REQUIRE(Decode(enc.data(), enc.size(), &d) == DecodeError::None);
    CHECK(d.type == f.type);
    CHECK(d.flags == f.flags);
    CHECK(d.stream == f.stream);
    CHECK(d.sequence == f.sequence);
    CHECK(d.sampleRate == f.sampleRate);
    CHECK(ToHex(d.payload, d.length) == c["frame"]["payloadHex"].get<std::string>());
    Parser p;
    std::vector<OwnedFrame> got;
    CHECK(ParseCount(p, enc, &got) == 1);
    CHECK(ToHex(got[0].payload) == c["frame"]["payloadHex"].get<std::string>());
  }
  REQUIRE(v["invalidFrames"].size() == 1);
  for (auto& c : v["invalidFrames"]) {
    CHECK(c["reason"] == "crc_mismatch");
    Bytes enc = FromHex(c["encodedHex"]);
    Frame d;
    CHECK(Decode(enc.data(), enc.size(), &d) == DecodeError::Crc);
    Parser p;
    CHECK(ParseCount(p, enc) == 0);
  }
}

TEST_CASE("the conversation.stop builder reproduces the vector's EVENT frame byte for byte") {
  Json v = LoadContract("test-vectors.json");
  for (auto& c : v["validFrames"]) {
    if (c["name"] != "single-frame-conversation-event") continue;
    std::string msg = BuildConversationStop("fixture-1");
    Bytes out;
    ChunkEvent(7, reinterpret_cast<const uint8_t*>(msg.data()), msg.size(), 4096, [&](const Frame& f) { out = Encoded(f); });
    CHECK(ToHex(out) == c["encodedHex"].get<std::string>());
  }
}

TEST_CASE("parser-scenarios-v2.json") {
  Json v = LoadContract("test-vectors.json");
  Json s = LoadContract("parser-scenarios-v2.json");
  auto byName = [&](const std::string& n) -> Bytes {
    for (auto* list : {&v["validFrames"], &v["invalidFrames"]})
      for (auto& c : *list)
        if (c["name"] == n) return FromHex(c["encodedHex"]);
    FAIL("no vector named " << n);
    return {};
  };
  auto& ps = s["parserScenarios"];

  SUBCASE("fragment: upstream split points 5 and 17, then every split") {
    Bytes f = byName(ps["fragmentFrame"]);
    Parser p;
    CHECK(ParseCount(p, Bytes(f.begin(), f.begin() + 5)) == 0);
    CHECK(ParseCount(p, Bytes(f.begin() + 5, f.begin() + 17)) == 0);
    CHECK(ParseCount(p, Bytes(f.begin() + 17, f.end())) == 1);
  }
  SUBCASE("coalesced frames come out in order") {
    Bytes all;
    std::vector<std::string> names;
    for (auto& n : ps["coalescedFrames"]) {
      Bytes b = byName(n);
      all.insert(all.end(), b.begin(), b.end());
      names.push_back(n);
    }
    Parser p;
    std::vector<OwnedFrame> got;
    CHECK(ParseCount(p, all, &got) == 2);
    CHECK(got[0].stream == 513);
    CHECK(got[1].type == 6);
  }
  SUBCASE("garbage + corrupt frame + recovery frame gives exactly the recovery frame") {
    Bytes all = {0xFF, 0x00};
    Bytes bad = byName(ps["crcCorruptFrame"]), good = byName(ps["recoveryFrame"]);
    all.insert(all.end(), bad.begin(), bad.end());
    all.insert(all.end(), good.begin(), good.end());
    Parser p;
    std::vector<OwnedFrame> got;
    CHECK(ParseCount(p, all, &got) == 1);
    CHECK(got[0].sequence == 42);
  }
  SUBCASE("event sequence mismatch discards the partial message only") {
    auto& m = s["eventSequenceMismatch"];
    EventReassembler r;
    std::vector<EventReassembler::Result> res;
    std::vector<Bytes> keep;
    for (auto& fr : m["frames"]) {
      keep.push_back(FromHex(fr["payloadHex"]));
      Frame f;
      f.type = 6;
      f.stream = m["streamId"];
      f.flags = fr["flags"];
      f.sequence = fr["sequence"];
      f.payload = keep.back().data();
      f.length = uint32_t(keep.back().size());
      res.push_back(r.Push(f));
    }
    CHECK(res[0].error == EventError::None);
    CHECK_FALSE(res[0].complete);
    CHECK(std::string(EventErrorText(res[1].error)) == m["expectedError"].get<std::string>());
    CHECK_FALSE(res[1].complete);
    CHECK(r.pendingCount() == 0);
    uint8_t c = 'c';
    Frame again;
    again.type = 6;
    again.stream = m["streamId"];
    again.flags = 3;
    again.payload = &c;
    again.length = 1;
    auto ok = r.Push(again);
    CHECK(ok.complete);
    CHECK(ok.message == "c");
  }
}

TEST_CASE("negotiation-vectors.json") {
  Json v = LoadContract("negotiation-vectors.json");
  CHECK(v["capabilityBits"]["event"] == uint32_t(kCapEvent));
  CHECK(v["capabilityBits"]["statusExtended"] == uint32_t(kCapStatusExtended));
  for (auto& h : v["helloPayloads"]) {
    CAPTURE(h["name"].get<std::string>());
    uint8_t p[8];
    EncodeHelloPayload(Hello{h["maxPayload"], h["capabilities"]}, p);
    CHECK(ToHex(p, 8) == h["payloadHex"].get<std::string>());
    Bytes b = FromHex(h["payloadHex"]);
    Hello back;
    REQUIRE(DecodeHelloPayload(b.data(), b.size(), &back));
    CHECK(back.maxPayload == h["maxPayload"]);
    CHECK(back.capabilities == h["capabilities"]);
    // Our firmware accepts all three HELLOs: each has STREAM_ID and max >= 640.
    Rig rig(false);
    rig.Send(HelloFrame(back.maxPayload, back.capabilities));
    auto fs = rig.Take();
    REQUIRE(fs.size() == 1);
    CHECK(fs[0].flags == kHelloAck);
    CHECK(ToHex(fs[0].payload) == "001000007f0f0000");
    bool ready = rig.dev.transport() == TransportState::Ready;
    CHECK(ready == bool(back.capabilities & kCapEvent));
  }
  for (auto& r : v["connectionPolicy"]) {
    HostPolicy p = r["dock"] == "android" ? HostPolicy::Android : HostPolicy::Codex;
    CHECK(ConnectionAllowed(p, r["firmwareAdvertisesEvent"]) == r["connectionAllowed"].get<bool>());
  }
  for (auto& r : v["eventNegotiation"]) {
    uint32_t host = r["dockAdvertisesEvent"].get<bool>() ? uint32_t(kCapEvent) : 0u;
    uint32_t fw = r["firmwareAdvertisesEvent"].get<bool>() ? uint32_t(kCapEvent) : 0u;
    CHECK(HostMaySendEvent(fw) == r["expected"]["dockMaySendEvent"].get<bool>());
    CHECK(FirmwareMaySendEvent(host) == r["expected"]["firmwareMaySendEvent"].get<bool>());
    CHECK(EventReady(host, fw) == r["expected"]["conversationControlAvailable"].get<bool>());
    // The device's transport state is ready exactly when both advertised.
    DeviceConfig cfg = Rig::cfg();
    cfg.capabilities = (kFirmwareCaps & ~kCapEvent) | fw;
    FakeUsb usb;
    FakeSpeaker spk;
    FakeMic mic;
    FakeUi ui;
    Device dev(cfg, usb, spk, mic, ui);
    dev.SetUsbConnected(true, 0);
    Bytes hello = HelloFrame(4096, (0xF27 & ~kCapEvent) | host);
    dev.OnReceive(hello.data(), hello.size(), 0);
    CHECK((dev.transport() == TransportState::Ready) == r["expected"]["conversationControlAvailable"].get<bool>());
  }
  for (auto& r : v["extendedStatusNegotiation"]) {
    uint32_t fw = r["firmwareAdvertisesStatusExtended"].get<bool>() ? uint32_t(kCapStatusExtended) : 0u;
    CHECK(HostMaySendExtendedStatus(fw) == r["expectedDockMaySendExtendedStatus"].get<bool>());
  }
}

TEST_CASE("media-session-v2.json: microphone scenarios") {
  Json v = LoadContract("media-session-v2.json");
  for (auto& sc : v["microphoneScenarios"]) {
    CAPTURE(sc["name"].get<std::string>());
    MicGuard g;
    for (auto& st : sc["steps"]) {
      std::string op = st["operation"];
      CAPTURE(op);
      if (op == "forceStop") {
        CHECK(g.ForceStop() == st["expectedStreamId"].get<uint16_t>());
      } else if (op == "reset") {
        g.Reset();
      } else {
        Outcome o = op == "start" ? g.Start(st["streamId"], st["sampleRate"], st["payloadBytes"], false)
                                  : g.Stop(st["streamId"], st["sampleRate"], st["payloadBytes"]);
        CHECK(std::string(ResultName(o.result)) == st["expected"].get<std::string>());
      }
    }
  }
}

TEST_CASE("media-session-v2.json: speaker scenarios") {
  Json v = LoadContract("media-session-v2.json");
  for (auto& sc : v["speakerScenarios"]) {
    CAPTURE(sc["name"].get<std::string>());
    auto g = std::make_unique<SpeakerGuard>();
    for (auto& st : sc["steps"]) {
      std::string op = st["operation"];
      CAPTURE(op);
      if (op == "forceStop") {
        Session s = g->ForceStop();
        CHECK(s.id == st["expectedStreamId"].get<uint16_t>());
        if (st.contains("expectedSampleRate")) CHECK(s.rate == st["expectedSampleRate"].get<uint32_t>());
        continue;
      }
      if (op == "reset") {
        g->Reset();
        continue;
      }
      if (op == "clear") {
        CHECK(g->Clear(st["streamId"]) == st["expected"].get<bool>());
        continue;
      }
      uint16_t id = st["streamId"];
      uint32_t rate = st["sampleRate"];
      size_t len = st["payloadBytes"];
      Outcome o;
      if (op == "start") o = g->Start(id, rate, len, false);
      else if (op == "end") o = g->End(id, rate, len);
      else if (op == "abort") o = g->Abort(id, rate, len);
      else if (op == "validateData") {
        g->Grant(g->CreditDue());
        o = g->ValidateData(id, rate, g->expectedSequence(), len);
      } else FAIL("unknown operation " << op);
      CHECK(std::string(ResultName(o.result)) == st["expected"].get<std::string>());
    }
  }
}

TEST_CASE("media-session-v2.json: credit boundaries") {
  Json v = LoadContract("media-session-v2.json");
  REQUIRE(v["creditBoundaries"].size() == 3);
  for (auto& b : v["creditBoundaries"]) {
    size_t len = b["payloadBytes"], credit = b["outstandingCreditBytes"];
    CHECK(WithinCredit(len, credit) == b["accepted"].get<bool>());
    // and through the guard itself, at 24 kHz (capacity 48000)
    auto g = std::make_unique<SpeakerGuard>();
    REQUIRE(g->Start(9, 24000, 0, false).result == Result::Accepted);
    g->Grant(uint32_t(credit));
    Outcome o = g->ValidateData(9, 24000, 0, len);
    CHECK((o.result == Result::Accepted) == b["accepted"].get<bool>());
  }
}

TEST_CASE("application-event-v1.json: inbound accepted and equal, rejected, outbound builders exact") {
  Json v = LoadContract("application-event-v1.json");
  CHECK(v["applicationSchema"] == kAppSchema);
  for (auto& e : v["acceptedInbound"]) {
    CAPTURE(e.dump());
    Classified c = Classify(e.dump());
    REQUIRE(c.route == Route::Application);
    CHECK(IsInbound(c.event.type));
    CHECK(Json::parse(Serialize(c.event)) == e);
  }
  for (auto& e : v["rejectedInbound"]) {
    CAPTURE(e.dump());
    CHECK(Classify(e.dump()).route == Route::Drop);
  }
  nlohmann::ordered_json ordered = LoadContractOrdered("application-event-v1.json");
  for (auto& o : ordered["outbound"]) {
    std::string b = o["builder"], id = o["requestId"];
    CAPTURE(b);
    std::string got = b == "conversation.start"          ? BuildConversationStart(id)
                      : b == "conversation.stop"         ? BuildConversationStop(id)
                      : b == "approval.presented"        ? BuildApprovalPresented(id)
                      : b == "approval.response.approve" ? BuildApprovalResponse(id, true)
                                                         : "";
    REQUIRE_FALSE(got.empty());
    CHECK(Json::parse(got) == Json::parse(o["expected"].dump()));
    CHECK(got == o["expected"].dump());  // same key order as the fixture
  }
}

TEST_CASE("application-event-vectors.json: routing, acceptance, builders, retry constants") {
  Json v = LoadContract("application-event-vectors.json");
  CHECK(v["applicationSchema"] == kAppSchema);
  CHECK(v["conversationRequestRetry"]["intervalMilliseconds"] == kConversationRetryMs);
  CHECK(v["conversationRequestRetry"]["timeoutMilliseconds"] == uint32_t(kConversationTimeoutMs));
  REQUIRE(v["vectors"].size() == 14);
  nlohmann::ordered_json ordered = LoadContractOrdered("application-event-vectors.json");
  for (auto& t : ordered["vectors"]) {
    std::string name = t["name"];
    CAPTURE(name);
    Classified c = Classify(t["value"].dump());
    bool accepted = t["codexParserAccepted"];
    CHECK((c.route == Route::Application) == accepted);
    if (t["androidRoute"] == "raw") CHECK(c.route == Route::Raw);
    if (accepted) CHECK(Json::parse(Serialize(c.event)) == Json::parse(t["value"].dump()));
    if (name == "conversation-start")
      CHECK(BuildConversationStart(t["value"]["requestId"]) == t["value"].dump());
    if (name == "conversation-stop")
      CHECK(BuildConversationStop(t["value"]["requestId"]) == t["value"].dump());
    if (name.rfind("conversation-result", 0) == 0) {
      REQUIRE(c.route == Route::Application);
      CHECK(c.event.type == AppType::ConversationResult);
    }
  }
}
