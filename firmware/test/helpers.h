// Shared test helpers: hex, the contract folder, and fakes for the ports.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <deque>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "device.h"
#include "wire.h"

using Bytes = std::vector<uint8_t>;

// The seeded fuzz loops' knobs: FUZZ_SEED (0 or unset = a fresh one, which
// the loop prints) and FUZZ_ITERS (default 20000).
inline uint64_t FuzzSeed() {
  const char* s = std::getenv("FUZZ_SEED");
  uint64_t seed = s && *s ? std::strtoull(s, nullptr, 10) : 0;
  return seed ? seed : std::random_device{}();
}
inline int FuzzIters() {
  const char* s = std::getenv("FUZZ_ITERS");
  int n = s && *s ? std::atoi(s) : 20000;
  return n > 0 ? n : 20000;
}

inline Bytes FromHex(const std::string& h) {
  Bytes b;
  REQUIRE(h.size() % 2 == 0);
  for (size_t i = 0; i < h.size(); i += 2) b.push_back(uint8_t(std::stoul(h.substr(i, 2), nullptr, 16)));
  return b;
}

inline std::string ToHex(const uint8_t* d, size_t n) {
  static const char* k = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; i++) {
    s.push_back(k[d[i] >> 4]);
    s.push_back(k[d[i] & 15]);
  }
  return s;
}
inline std::string ToHex(const Bytes& b) { return ToHex(b.data(), b.size()); }

// ContractsDir is where the Makefile says the vectors are; a missing folder
// fails the run instead of silently skipping the contract tests.
inline std::string ContractsDir() {
  const char* d = std::getenv("STACKCHAN_CONTRACTS");
#ifdef STACKCHAN_CONTRACTS_DIR
  if (!d || !*d) d = STACKCHAN_CONTRACTS_DIR;  // PlatformIO env:native
#endif
  if (!d || !*d) FAIL("STACKCHAN_CONTRACTS is not set: run the tests through `make test`");
  std::ifstream probe(std::string(d) + "/test-vectors.json");
  if (!probe) FAIL("contract vectors missing: " << d << " (vendored in protocols/stackchan/contracttest/testdata/stackchan)");
  return d;
}

inline std::string LoadContractText(const std::string& name) {
  std::string path = ContractsDir() + "/" + name;
  std::ifstream f(path);
  if (!f) FAIL("cannot open contract file " << path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
inline nlohmann::json LoadContract(const std::string& name) { return nlohmann::json::parse(LoadContractText(name)); }
// Ordered keeps the fixture's key order, for byte-exact builder checks.
inline nlohmann::ordered_json LoadContractOrdered(const std::string& name) {
  return nlohmann::ordered_json::parse(LoadContractText(name));
}

inline Bytes Encoded(const sc::Frame& f) {
  Bytes out(sc::kMaxFrame);
  size_t n = sc::Encode(f, out.data(), out.size());
  REQUIRE(n > 0);
  out.resize(n);
  return out;
}

inline Bytes ControlFrame(uint16_t code, uint16_t stream, uint32_t rate, const Bytes& payload = {}, uint32_t seq = 0) {
  sc::Frame f;
  f.type = 0;
  f.flags = code;
  f.stream = stream;
  f.sequence = seq;
  f.sampleRate = rate;
  f.payload = payload.data();
  f.length = uint32_t(payload.size());
  return Encoded(f);
}

inline Bytes U32(uint32_t v) {
  Bytes b(4);
  sc::PutU32(b.data(), v);
  return b;
}

inline Bytes HelloFrame(uint32_t max = 4096, uint32_t caps = 0xF27) {
  Bytes p(8);
  sc::PutU32(p.data(), max);
  sc::PutU32(p.data() + 4, caps);
  return ControlFrame(sc::kHello, 0, 0, p);
}

// OwnedFrame is a decoded frame with its payload copied.
struct OwnedFrame {
  uint8_t type = 0;
  uint16_t flags = 0, stream = 0;
  uint32_t sequence = 0, rate = 0;
  Bytes payload;
  uint32_t u32() const { return payload.size() >= 4 ? sc::GetU32(payload.data()) : 0xFFFFFFFF; }
};

// FakeUsb collects what the device writes and parses it back into frames.
class FakeUsb : public sc::Transport {
 public:
  size_t budget = SIZE_MAX;  // bytes accepted per Write, to test partial writes
  size_t Write(const uint8_t* d, size_t n) override {
    if (n > budget) n = budget;
    parser.FeedAll(d, n, [&](const sc::Frame& f) {
      OwnedFrame o{f.type, f.flags, f.stream, f.sequence, f.sampleRate, Bytes(f.payload, f.payload + f.length)};
      frames.push_back(o);
    });
    bytes += n;
    return n;
  }
  std::vector<OwnedFrame> Take() {
    std::vector<OwnedFrame> out(frames.begin(), frames.end());
    frames.clear();
    return out;
  }
  sc::Parser parser;
  std::deque<OwnedFrame> frames;
  size_t bytes = 0;
};

// FakeSpeaker accepts up to `chunk` bytes per Writable and drains when told.
class FakeSpeaker : public sc::AudioOut {
 public:
  bool Begin(uint32_t r) override {
    rate = r;
    began++;
    return beginOk;
  }
  size_t Writable(uint32_t) override { return writable; }
  bool Write(const uint8_t* d, size_t n, uint32_t) override {
    data.insert(data.end(), d, d + n);
    return writeOk;
  }
  bool Drained(uint32_t) override { return drained; }
  size_t Buffered(uint32_t) override { return drained ? 0 : buffered; }
  void Stop() override { stops++; }
  uint32_t rate = 0;
  int began = 0, stops = 0;
  bool beginOk = true, writeOk = true, drained = true;
  size_t writable = 0, buffered = 0;
  Bytes data;
};

class FakeMic : public sc::AudioIn {
 public:
  bool Begin(uint32_t) override {
    began++;
    return ok;
  }
  void End() override { ended++; }
  int began = 0, ended = 0;
  bool ok = true;
};

class FakeUi : public sc::Ui {
 public:
  void Status(uint8_t v) override { statuses.push_back(v); }
  void Task(bool r) override { tasks.push_back(r); }
  void Caption(const std::string& t) override { captions.push_back(t); }
  void Mouth(float o) override { mouths.push_back(o); }
  void Approval(const sc::ApprovalView& v) override { approvals.push_back(v); }
  void Conversation(sc::ConvState s, const std::string& e) override { convs.push_back({s, e}); }
  void Link(sc::TransportState s) override { links.push_back(s); }
  void AudioPlayed(uint64_t b, uint32_t, bool c) override { played.push_back({b, c}); }
  void Log(const char* l) override { logs.push_back(l); }
  std::vector<uint8_t> statuses;
  std::vector<bool> tasks;
  std::vector<std::string> captions;
  std::vector<float> mouths;
  std::vector<sc::ApprovalView> approvals;
  std::vector<std::pair<sc::ConvState, std::string>> convs;
  std::vector<sc::TransportState> links;
  std::vector<std::pair<uint64_t, bool>> played;
  std::vector<std::string> logs;
};

// Rig is a Device with fakes, connected, optionally after a HELLO.
struct Rig {
  explicit Rig(bool hello = true, uint32_t hostCaps = 0xF27, uint32_t fwCaps = sc::kFirmwareCaps)
      : dev(cfg(fwCaps), usb, spk, mic, ui) {
    dev.SetUsbConnected(true, now);
    if (hello) {
      Send(HelloFrame(4096, hostCaps));
      auto fs = usb.Take();
      REQUIRE(fs.size() == 1);
      REQUIRE(fs[0].flags == sc::kHelloAck);
    }
  }
  static sc::DeviceConfig cfg(uint32_t caps = sc::kFirmwareCaps) {
    sc::DeviceConfig c;
    c.capabilities = caps;
    c.bootToken = "a1b2c3d4";
    return c;
  }
  void Send(const Bytes& b) { dev.OnReceive(b.data(), b.size(), now); }
  void Tick(uint32_t dt) {
    now += dt;
    dev.SetUsbConnected(plugged, now);
    dev.Tick(now);
  }
  std::vector<OwnedFrame> Take() { return usb.Take(); }
  // Events decodes the EVENT frames sent (single-chunk messages).
  std::vector<nlohmann::json> Events() {
    std::vector<nlohmann::json> out;
    for (auto& f : usb.Take())
      if (f.type == 6) out.push_back(nlohmann::json::parse(std::string(f.payload.begin(), f.payload.end())));
    return out;
  }
  void SendEvent(const std::string& json, uint16_t id) {
    sc::ChunkEvent(id, reinterpret_cast<const uint8_t*>(json.data()), json.size(), 4096,
                   [&](const sc::Frame& f) { Send(Encoded(f)); });
  }
  uint32_t now = 1000;
  bool plugged = true;
  FakeUsb usb;
  FakeSpeaker spk;
  FakeMic mic;
  FakeUi ui;
  sc::Device dev;
};
