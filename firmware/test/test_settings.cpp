// tts.volume (core/settings): the Pi's claude_pi.settings raw EVENT, its
// validation, persistence through the SettingsStore port, the volume
// swipe, the speaker's volume and the diagnostic build's forced 0; and the
// USB RX pacing of core/usb_io.
#include <map>

#include "helpers.h"
#include "settings.h"
#include "touch.h"
#include "usb_io.h"

using namespace sc;

namespace {

class MemStore : public SettingsStore {
 public:
  std::map<std::string, std::string> kv;
  int saves = 0;
  bool fail = false;
  bool Load(const char* key, std::string* v) override {
    auto it = kv.find(key);
    if (it == kv.end()) return false;
    *v = it->second;
    return true;
  }
  bool Save(const char* key, const std::string& v) override {
    if (fail) return false;
    saves++;
    kv[key] = v;
    return true;
  }
};

class VolSpeaker : public FakeSpeaker {
 public:
  std::vector<int> volumes;
  void SetVolume(uint8_t p) override { volumes.push_back(p); }
};

class VolUi : public FakeUi {
 public:
  std::vector<std::pair<int, bool>> volumes;
  std::vector<bool> hellos, playing;
  void Volume(uint8_t p, bool z) override { volumes.push_back({p, z}); }
  void Handshake(bool d) override { hellos.push_back(d); }
  void Playing(bool on) override { playing.push_back(on); }
};

// VolRig is a Device with a settings store, a volume-aware speaker and UI.
struct VolRig {
  explicit VolRig(MemStore* store, uint32_t caps = kFirmwareCaps) : dev(cfg(store, caps), usb, spk, mic, ui) {
    dev.SetUsbConnected(true, now);
    Send(HelloFrame(4096, 0xF27 | kCapEvent));
    usb.Take();
  }
  static DeviceConfig cfg(MemStore* store, uint32_t caps) {
    DeviceConfig c;
    c.capabilities = caps;
    c.settings = store;
    return c;
  }
  void Send(const Bytes& b) { dev.OnReceive(b.data(), b.size(), now); }
  void Event(const std::string& json) {
    ChunkEvent(nextId++, reinterpret_cast<const uint8_t*>(json.data()), json.size(), 4096,
               [&](const Frame& f) { Send(Encoded(f)); });
  }
  uint32_t now = 1000;
  uint16_t nextId = 1;
  FakeUsb usb;
  VolSpeaker spk;
  FakeMic mic;
  VolUi ui;
  Device dev;
};

std::string SettingsJson(const std::string& volume) {
  return R"({"type":"claude_pi.settings","event_id":"e1","tts":{"volume":)" + volume + "}}";
}

}  // namespace

TEST_CASE("claude_pi.settings: decode, range, unknown fields, not-ours") {
  struct Case {
    std::string json;
    SettingsDecode want;
    int volume;  // -1: none
  } cases[] = {
      {SettingsJson("0"), SettingsDecode::Ok, 0},
      {SettingsJson("100"), SettingsDecode::Ok, 100},
      {SettingsJson("55"), SettingsDecode::Ok, 55},
      {R"({"type":"claude_pi.settings","event_id":"x","tts":{"volume":7,"voice":"en"},"brightness":3})", SettingsDecode::Ok, 7},
      {R"({"type":"claude_pi.settings","event_id":"x"})", SettingsDecode::Ok, -1},
      {R"({"type":"claude_pi.settings","event_id":"x","tts":{}})", SettingsDecode::Ok, -1},
      {SettingsJson("101"), SettingsDecode::Invalid, -1},
      {SettingsJson("-1"), SettingsDecode::Invalid, -1},
      {SettingsJson("50.0"), SettingsDecode::Invalid, -1},
      {SettingsJson("5e1"), SettingsDecode::Invalid, -1},
      {SettingsJson("-0"), SettingsDecode::Invalid, -1},
      {SettingsJson("\"50\""), SettingsDecode::Invalid, -1},
      {SettingsJson("null"), SettingsDecode::Invalid, -1},
      {SettingsJson("1000000000000000000000"), SettingsDecode::Invalid, -1},
      {R"({"type":"claude_pi.settings","event_id":"x","tts":5})", SettingsDecode::Invalid, -1},
      {R"({"type":"claude_pi.settings","tts":{"volume":5}})", SettingsDecode::Invalid, -1},
      {R"({"type":"claude_pi.settings","event_id":"","tts":{"volume":5}})", SettingsDecode::Invalid, -1},
      {R"({"type":"claude_pi.settings","event_id":7,"tts":{"volume":5}})", SettingsDecode::Invalid, -1},
      {R"({"type":"session.created","event_id":"x","tts":{"volume":5}})", SettingsDecode::NotSettings, -1},
      {R"({"event_id":"x","tts":{"volume":5}})", SettingsDecode::NotSettings, -1},
      {R"([1,2])", SettingsDecode::NotSettings, -1},
      {R"({"type":"claude_pi.settings",)", SettingsDecode::NotSettings, -1},
  };
  for (const Case& c : cases) {
    CAPTURE(c.json);
    SettingsEvent ev;
    const char* why = "";
    CHECK(DecodeSettingsEvent(c.json, &ev, &why) == c.want);
    if (c.want == SettingsDecode::Invalid) CHECK(std::string(why).rfind("claude_pi.settings: ", 0) == 0);
    if (c.want == SettingsDecode::Ok) {
      CHECK(ev.hasVolume == (c.volume >= 0));
      if (c.volume >= 0) CHECK(ev.volume == c.volume);
    }
  }
}

TEST_CASE("volume: the saved tts.volume is read at boot and applied to the speaker; default 60") {
  MemStore empty;
  VolRig a(&empty);
  CHECK(a.dev.volume() == kDefaultVolume);
  REQUIRE_FALSE(a.spk.volumes.empty());
  CHECK(a.spk.volumes.back() == kDefaultVolume);
  CHECK(a.ui.volumes.empty());  // nothing to show at boot
  MemStore kept;
  kept.kv[kVolumeKey] = "35";
  VolRig b(&kept);
  CHECK(b.dev.volume() == 35);
  CHECK(b.spk.volumes.back() == 35);
  MemStore junk;
  junk.kv[kVolumeKey] = "loud";
  VolRig c(&junk);
  CHECK(c.dev.volume() == kDefaultVolume);
}

TEST_CASE("volume: the Pi's settings event sets, persists, shows a change and survives a reboot") {
  MemStore store;
  {
    VolRig r(&store);
    r.Event(SettingsJson("80"));
    CHECK(r.dev.volume() == 80);
    CHECK(r.spk.volumes.back() == 80);
    CHECK(store.kv[kVolumeKey] == "80");
    REQUIRE(r.ui.volumes.size() == 1);
    CHECK(r.ui.volumes[0] == std::make_pair(80, false));
    r.Event(SettingsJson("80"));  // the Pi resends at every HELLO: no save, nothing shown
    CHECK(store.saves == 1);
    CHECK(r.ui.volumes.size() == 1);
    r.Event(SettingsJson("120"));  // refused whole, logged, nothing changes
    CHECK(r.dev.volume() == 80);
    REQUIRE_FALSE(r.ui.logs.empty());
    CHECK(r.ui.logs.back() == "claude_pi.settings: tts.volume must be an integer 0-100");
    CHECK(r.dev.stats().settingsApplied == 2);
    CHECK(r.usb.Take().empty());  // no ERROR frame: a bad event costs only itself (§13.3)
  }
  VolRig again(&store);  // a reboot
  CHECK(again.dev.volume() == 80);
  CHECK(again.spk.volumes.back() == 80);
}

TEST_CASE("volume: other raw events are still dropped and counted; settings need EVENT ready") {
  MemStore store;
  VolRig r(&store);
  r.Event(R"({"type":"session.created","event_id":"s","session":{}})");
  CHECK(r.dev.stats().rawEvents == 1);
  CHECK(r.dev.stats().settingsApplied == 0);
  CHECK(store.saves == 0);
}

TEST_CASE("volume: a vertical swipe below the head steps it by 10, clamped, shown each time") {
  MemStore store;
  VolRig r(&store);
  r.dev.OnTouch(TouchAction::VolumeUp, r.now);
  CHECK(r.dev.volume() == 70);
  for (int i = 0; i < 5; i++) r.dev.OnTouch(TouchAction::VolumeUp, r.now);
  CHECK(r.dev.volume() == 100);
  CHECK(r.ui.volumes.size() == 6);  // at the top it still shows the full bar
  CHECK(store.kv[kVolumeKey] == "100");
  for (int i = 0; i < 12; i++) r.dev.OnTouch(TouchAction::VolumeDown, r.now);
  CHECK(r.dev.volume() == 0);
  CHECK(r.spk.volumes.back() == 0);
  store.fail = true;
  r.dev.OnTouch(TouchAction::VolumeUp, r.now);
  CHECK(r.dev.volume() == 10);  // applied, but not kept: said so
  CHECK(r.ui.logs.back().find("saving the setting failed") != std::string::npos);
}

TEST_CASE("volume: the diagnostic build plays at 0 whatever is saved") {
  MemStore store;
  store.kv[kVolumeKey] = "90";
  VolRig r(&store, kFirmwareCapsDiag);
  CHECK(r.dev.volume() == 90);
  CHECK(r.dev.outputVolume() == 0);
  CHECK(r.spk.volumes.back() == 0);
  r.dev.OnTouch(TouchAction::VolumeDown, r.now);
  CHECK(r.dev.volume() == 80);
  CHECK(r.spk.volumes.back() == 0);
  CHECK(r.ui.volumes.back() == std::make_pair(80, true));
}

TEST_CASE("touch: vertical swipes below the head are the volume; never on the approval screen") {
  auto classify = [](int x0, int y0, int x1, int y1) {
    TouchClassifier c;
    TouchPoint p;
    p.x = int16_t(x0);
    p.y = int16_t(y0);
    c.Update(1000, &p, 1);
    p.x = int16_t(x1);
    p.y = int16_t(y1);
    c.Update(1100, &p, 1);
    return c.Update(1116, nullptr, 0);
  };
  CHECK(classify(160, 200, 160, 120).kind == Gesture::SwipeUp);
  CHECK(classify(160, 120, 170, 200).kind == Gesture::SwipeDown);
  CHECK(classify(160, 200, 160, 165).kind == Gesture::None);  // 35 px: too short
  CHECK(classify(160, 60, 160, 200).kind == Gesture::None);   // starts on the head
  CHECK(classify(100, 150, 180, 100).kind == Gesture::None);  // more across than up
  CHECK(ActionFor(classify(160, 200, 160, 120), false) == TouchAction::VolumeUp);
  CHECK(ActionFor(classify(160, 120, 160, 200), false) == TouchAction::VolumeDown);
  CHECK(ActionFor(classify(160, 200, 160, 120), true) == TouchAction::None);
  CHECK(ActionFor(classify(160, 120, 160, 200), true) == TouchAction::None);
}

TEST_CASE("ui: Handshake follows HELLO and resets; Playing spans the audio, not the session") {
  MemStore store;
  VolRig r(&store);
  REQUIRE(r.ui.hellos.size() == 1);
  CHECK(r.ui.hellos[0]);
  r.spk.writable = 1 << 20;
  r.Send(ControlFrame(kSpeakerStart, 3, 16000));
  CHECK(r.ui.playing.empty());  // started, nothing played yet
  Bytes pcm(3200, 0x10);
  r.Send([&] {
    Frame f;
    f.type = uint8_t(Type::SpeakerPcm);
    f.stream = 3;
    f.sampleRate = 16000;
    f.payload = pcm.data();
    f.length = uint32_t(pcm.size());
    return Encoded(f);
  }());
  r.Send(ControlFrame(kSpeakerEnd, 3, 16000));
  r.dev.Tick(r.now + 10);
  REQUIRE(r.ui.playing.size() == 2);
  CHECK(r.ui.playing[0]);
  CHECK_FALSE(r.ui.playing[1]);
  r.dev.SetUsbConnected(false, r.now + 500);
  REQUIRE(r.ui.hellos.size() == 2);
  CHECK_FALSE(r.ui.hellos[1]);
}

// ---- USB RX pacing (core/usb_io.h)

namespace {
class FakeRx : public ByteSource {
 public:
  size_t pending = 0, shortBy = 0;
  std::vector<size_t> reads;
  size_t Available() override { return pending; }
  size_t Read(uint8_t*, size_t len) override {
    size_t n = len > pending ? pending : len;
    if (shortBy && n > shortBy) n -= shortBy;
    pending -= n;
    reads.push_back(n);
    return n;
  }
};
}  // namespace

TEST_CASE("usb rx: reads of up to 16 KiB, at most four per wake, then 'more'") {
  static uint8_t buf[kUsbReadBytes];
  CHECK(kUsbRxRingBytes == 32768);
  CHECK(kUsbTxRingBytes == 16384);
  FakeRx rx;
  size_t fed = 0;
  auto feed = [&](const uint8_t*, size_t n) { fed += n; };
  rx.pending = 40000;
  DrainResult r = DrainRx(rx, buf, feed);
  CHECK(rx.reads == std::vector<size_t>{16384, 16384, 7232});
  CHECK(r.bytes == 40000);
  CHECK(fed == 40000);
  CHECK_FALSE(r.more);
  rx.reads.clear();
  rx.pending = 100000;  // more than four reads' worth: yield, then come back at once
  r = DrainRx(rx, buf, feed);
  CHECK(r.reads == 4);
  CHECK(r.bytes == 4 * kUsbReadBytes);
  CHECK(r.more);
  rx.reads.clear();
  rx.pending = 0;
  r = DrainRx(rx, buf, feed);
  CHECK(r.reads == 0);
  CHECK(rx.reads.empty());  // nothing available: no read at all
}

TEST_CASE("usb rx: the Device parses frames split across reads of any size") {
  Rig r(false);
  Bytes stream = HelloFrame();
  class Src : public ByteSource {
   public:
    const Bytes* b;
    size_t off = 0, max = 7;
    size_t Available() override { return b->size() - off; }
    size_t Read(uint8_t* out, size_t len) override {
      size_t n = std::min({len, max, b->size() - off});
      std::copy(b->begin() + long(off), b->begin() + long(off + n), out);
      off += n;
      return n;
    }
  } src;
  src.b = &stream;
  static uint8_t buf[kUsbReadBytes];
  DrainResult d = DrainRx(src, buf, [&](const uint8_t* p, size_t n) { r.dev.OnReceive(p, n, r.now); });
  CHECK(d.reads == 4);  // 7-byte reads: four per wake
  CHECK(d.more);
  while (d.more) d = DrainRx(src, buf, [&](const uint8_t* p, size_t n) { r.dev.OnReceive(p, n, r.now); });
  auto fs = r.Take();
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].flags == kHelloAck);
}

TEST_CASE("conversation without EVENT: each swipe gets an id and a fresh refusal on screen") {
  Rig r(true, 0xF27 & ~kCapEvent);
  REQUIRE(r.dev.transport() == TransportState::Unsupported);
  std::string a = r.dev.Swipe(true, r.now), b = r.dev.Swipe(true, r.now + 100);
  CHECK(a == "conversation-a1b2c3d4-1");
  CHECK(b == "conversation-a1b2c3d4-2");
  REQUIRE(r.ui.convs.size() == 2);  // the same text twice: shown twice
  for (auto& c : r.ui.convs) {
    CHECK(c.first == ConvState::Blocked);
    CHECK(c.second == kNoEventError);
  }
  CHECK(r.Take().empty());  // no EVENT frame
}
