// The Device engine end to end through fakes: handshake rules (§9.2), the
// pre-HELLO [OURS] rule, STATUS, the microphone and speaker flows with credit,
// prebuffer, captions, DONE only after a drain, EVENT gating and the USB
// disconnect reset. Each case names the rule it pins.
#include "helpers.h"

using namespace sc;

namespace {
Bytes Pcm(uint16_t stream, uint32_t seq, size_t len, uint32_t rate = 24000, int16_t amp = 1000) {
  Bytes p(len);
  for (size_t i = 0; i + 1 < len; i += 2) PutU16(p.data() + i, uint16_t(i % 4 ? amp : -amp));
  Frame f;
  f.type = 2;
  f.stream = stream;
  f.sequence = seq;
  f.sampleRate = rate;
  f.payload = p.data();
  f.length = uint32_t(len);
  return Encoded(f);
}
uint32_t ErrorOf(const std::vector<OwnedFrame>& fs, uint16_t* stream = nullptr) {
  for (auto& f : fs)
    if (f.type == 0 && f.flags == kError) {
      if (stream) *stream = f.stream;
      return f.u32();
    }
  return 0;
}
bool Has(const std::vector<OwnedFrame>& fs, uint16_t code, uint16_t stream) {
  for (auto& f : fs)
    if (f.type == 0 && f.flags == code && f.stream == stream) return true;
  return false;
}
uint32_t CreditSum(const std::vector<OwnedFrame>& fs) {
  uint32_t n = 0;
  for (auto& f : fs)
    if (f.type == 0 && f.flags == kSpeakerCredit) n += f.u32();
  return n;
}
}  // namespace

TEST_CASE("HELLO: checks in order, ERROR 1 on stream 0, ACK with min(max,4096) and 0xF7F") {
  Rig r(false);
  r.Send(HelloFrame(639, 0xF27));
  uint16_t s = 99;
  CHECK(ErrorOf(r.Take(), &s) == kErrInvalidRequest);
  CHECK(s == 0);
  r.Send(HelloFrame(4096, 0xF27 & ~kCapStreamId));
  CHECK(ErrorOf(r.Take()) == kErrInvalidRequest);
  r.Send(ControlFrame(kHello, 5, 0, Bytes(8)));  // stream != 0
  CHECK(ErrorOf(r.Take()) == kErrInvalidRequest);
  r.Send(ControlFrame(kHello, 0, 0, Bytes(7)));  // 7 bytes
  CHECK(ErrorOf(r.Take()) == kErrInvalidRequest);
  CHECK_FALSE(r.dev.helloDone());
  r.Send(HelloFrame(640, 0x227));
  auto fs = r.Take();
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].flags == kHelloAck);
  CHECK(fs[0].stream == 0);
  CHECK(ToHex(fs[0].payload) == "800200007f0f0000");
  CHECK(r.dev.transport() == TransportState::Unsupported);  // host lacks EVENT
  r.Send(HelloFrame(100000, 0xF27));
  fs = r.Take();
  CHECK(ToHex(fs[0].payload) == "001000007f0f0000");
  CHECK(r.dev.transport() == TransportState::Ready);
}

TEST_CASE("[OURS] media, STATUS, captions and EVENT before the first HELLO get ERROR 1") {
  Rig r(false);
  r.Send(ControlFrame(kMicStart, 1, 16000));
  CHECK(ErrorOf(r.Take()) == kErrInvalidRequest);
  r.Send(ControlFrame(kSpeakerStart, 2, 24000));
  CHECK(ErrorOf(r.Take()) == kErrInvalidRequest);
  r.Send(ControlFrame(kStatus, 0, 0, {1}));
  CHECK(ErrorOf(r.Take()) == kErrInvalidRequest);
  r.SendEvent(BuildConversationStop("x"), 4);
  uint16_t s = 0;
  CHECK(ErrorOf(r.Take(), &s) == kErrInvalidRequest);
  CHECK(s == 4);
  CHECK(r.mic.began == 0);
}

TEST_CASE("STATUS: 0-5 with our bit 11, bad frames are ERROR 1, HELLO resets to IDLE") {
  Rig r;
  r.Send(ControlFrame(kStatus, 0, 0, {5}));
  CHECK(r.dev.status() == 5);
  r.Send(ControlFrame(kStatus, 0, 0, {6}));
  CHECK(ErrorOf(r.Take()) == kErrInvalidRequest);
  r.Send(ControlFrame(kStatus, 0, 16000, {1}));
  CHECK(ErrorOf(r.Take()) == kErrInvalidRequest);
  r.Send(ControlFrame(kStatus, 0, 0, {1, 2}));
  CHECK(ErrorOf(r.Take()) == kErrInvalidRequest);
  CHECK(r.dev.status() == 5);
  r.Send(HelloFrame());
  CHECK(r.dev.status() == 0);
  CHECK(r.ui.statuses == std::vector<uint8_t>{5, 0});
}

TEST_CASE("unknown and firmware-to-host control codes are ERROR 1 on the frame's stream") {
  Rig r;
  for (uint16_t code : {uint16_t(kHelloAck), uint16_t(kMicStarted), uint16_t(99)}) {
    r.Send(ControlFrame(code, 3, 0));
    uint16_t s = 0;
    CHECK(ErrorOf(r.Take(), &s) == kErrInvalidRequest);
    CHECK(s == 3);
  }
}

TEST_CASE("microphone: STARTED only with the first captured frame, PCM 640 B from seq 0, STOPPED drops queued PCM") {
  Rig r;
  r.Send(ControlFrame(kMicStart, 4, 16000));
  CHECK(r.mic.began == 1);
  CHECK(r.Take().empty());  // capture not running yet
  Bytes pcm(640, 7);
  r.dev.OnMicFrame(pcm.data(), pcm.size(), r.now);
  r.dev.OnMicFrame(pcm.data(), pcm.size(), r.now);
  auto fs = r.Take();
  REQUIRE(fs.size() == 3);
  CHECK(fs[0].flags == kMicStarted);
  CHECK(fs[1].type == 1);
  CHECK(fs[1].sequence == 0);
  CHECK(fs[2].sequence == 1);
  CHECK(fs[2].rate == 16000);
  CHECK(fs[2].payload.size() == 640);
  r.Send(ControlFrame(kMicStart, 4, 16000));  // idempotent: STARTED again
  CHECK(Has(r.Take(), kMicStarted, 4));
  r.Send(ControlFrame(kSpeakerStart, 5, 24000));
  CHECK(ErrorOf(r.Take()) == kErrBusy);  // half duplex
  r.usb.budget = 0;  // USB stalls: PCM piles up, then MIC_STOP drops it
  r.dev.OnMicFrame(pcm.data(), pcm.size(), r.now);
  r.Send(ControlFrame(kMicStop, 4, 16000));
  r.usb.budget = SIZE_MAX;
  r.Tick(1);
  fs = r.Take();
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].flags == kMicStopped);
  CHECK(r.mic.ended == 1);
  r.Send(ControlFrame(kMicStop, 4, 16000));  // idempotent
  CHECK(Has(r.Take(), kMicStopped, 4));
}

TEST_CASE("microphone: a full TX queue is ERROR 3 and a force-stop; MIC_STOP still answered") {
  Rig r;
  r.Send(ControlFrame(kMicStart, 8, 16000));
  r.usb.budget = 0;
  Bytes pcm(640);
  for (int i = 0; i < 40; i++) r.dev.OnMicFrame(pcm.data(), pcm.size(), r.now);
  CHECK(r.dev.mic().active() == 0);
  r.usb.budget = SIZE_MAX;
  r.Tick(1);
  uint16_t s = 0;
  CHECK(ErrorOf(r.Take(), &s) == kErrTransportOverflow);
  CHECK(s == 8);
  r.Send(ControlFrame(kMicStop, 8, 16000));
  CHECK(Has(r.Take(), kMicStopped, 8));
}

TEST_CASE("speaker: credit 8192, prebuffer 500 ms, captions with their PCM, DONE after drain") {
  Rig r;
  r.spk.writable = 0;
  r.Send(ControlFrame(kSpeakerStart, 2, 24000));
  auto fs = r.Take();
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].flags == kSpeakerCredit);
  CHECK(fs[0].u32() == 8192);
  CHECK(fs[0].stream == 2);
  CHECK(fs[0].rate == 24000);
  r.Send(ControlFrame(kSpeakerStart, 2, 24000));  // idempotent: no new credit
  CHECK(r.Take().empty());
  std::string text = "  Hello there  ";
  r.Send(ControlFrame(kSpeakerText, 2, 24000, Bytes(text.begin(), text.end())));
  r.spk.writable = 1 << 20;
  uint32_t seq = 0;
  // 6 frames of 3840 bytes = 23040 < 24000 prebuffer: nothing plays yet
  for (; seq < 6; seq++) {
    r.Send(Pcm(2, seq, 3840));
    CHECK(r.spk.data.empty());
  }
  CHECK(r.ui.captions.empty());
  CHECK(CreditSum(r.Take()) == 6 * 3840);  // topped back to 8192 after each frame
  r.Send(Pcm(2, seq++, 3840));  // reaches the prebuffer: everything is written
  CHECK(r.spk.data.size() == 7 * 3840);
  REQUIRE(r.ui.captions.size() == 1);
  CHECK(r.ui.captions[0] == "Hello there");
  r.spk.drained = false;
  r.Send(ControlFrame(kSpeakerEnd, 2, 24000));
  r.Tick(10);
  CHECK_FALSE(Has(r.Take(), kSpeakerDone, 2));  // not drained yet
  r.spk.drained = true;
  r.Tick(10);
  fs = r.Take();
  CHECK(Has(fs, kSpeakerDone, 2));
  CHECK(CreditSum(fs) == 0);  // no credit after END
  CHECK(r.ui.captions.back() == "");
  REQUIRE_FALSE(r.ui.played.empty());
  CHECK(r.ui.played.back().first == 7 * 3840);
  CHECK(r.ui.played.back().second);
  r.Send(ControlFrame(kSpeakerEnd, 2, 24000));  // idempotent, silent
  r.Send(Pcm(2, seq, 2));                      // [OURS] late PCM dropped silently
  CHECK(r.Take().empty());
}

TEST_CASE("speaker: END without PCM sends DONE at once; a trailing caption is never shown") {
  Rig r;
  r.Send(ControlFrame(kSpeakerStart, 3, 16000));
  std::string t = "never";
  r.Send(ControlFrame(kSpeakerText, 3, 16000, Bytes(t.begin(), t.end())));
  r.Send(ControlFrame(kSpeakerEnd, 3, 16000));
  CHECK(Has(r.Take(), kSpeakerDone, 3));
  for (auto& c : r.ui.captions) CHECK(c != "never");
}

TEST_CASE("speaker: wrong sequence is ERROR 6 and a force-stop without DONE; ABORT then idempotent") {
  Rig r;
  r.Send(ControlFrame(kSpeakerStart, 7, 24000));
  r.Take();
  r.Send(Pcm(7, 1, 100));
  auto fs = r.Take();
  CHECK(ErrorOf(fs) == kErrSpeakerSequenceMismatch);
  CHECK_FALSE(Has(fs, kSpeakerDone, 7));
  CHECK(r.dev.speaker().active().id == 0);
  CHECK(r.spk.stops == 1);
  r.Send(ControlFrame(kSpeakerAbort, 7, 24000));
  CHECK(r.Take().empty());  // idempotent after force-stop (§23)
}

TEST_CASE("speaker: PCM above credit, odd length, wrong rate are ERROR 2; stale ids are ignored") {
  for (auto bad : {Pcm(1, 0, 3), Pcm(1, 0, 100, 16000), Pcm(1, 0, 0)}) {
    Rig r;
    r.Send(ControlFrame(kSpeakerStart, 1, 24000));
    r.Take();
    r.Send(Pcm(9, 0, 100));  // stale: other id
    CHECK(r.Take().empty());
    r.Send(bad);
    CHECK(ErrorOf(r.Take()) == kErrInvalidStreamData);
    CHECK(r.dev.speaker().active().id == 0);
  }
}

TEST_CASE("speaker: credit is enforced when the 1 s queue fills (8 kHz, output stalled)") {
  Rig r;
  r.spk.writable = 0;
  r.Send(ControlFrame(kSpeakerStart, 1, 8000));
  uint32_t granted = CreditSum(r.Take());
  for (uint32_t seq = 0; seq < 3; seq++) {
    r.Send(Pcm(1, seq, 4000, 8000));
    granted += CreditSum(r.Take());
  }
  CHECK(granted == 16000);  // never more than the 1 s queue
  CHECK(r.dev.speaker().outstanding() == 4000);
  r.Send(Pcm(1, 3, 4002, 8000));
  CHECK(ErrorOf(r.Take()) == kErrInvalidStreamData);
  CHECK(r.dev.speaker().active().id == 0);
}

TEST_CASE("speaker: ABORT stops at once, no DONE, clears caption and mouth, drops queued credit") {
  Rig r;
  r.usb.budget = 0;  // keep the initial credit queued
  r.Send(ControlFrame(kSpeakerStart, 5, 8000));
  r.Send(ControlFrame(kSpeakerAbort, 5, 8000));
  r.usb.budget = SIZE_MAX;
  r.Tick(1);
  auto fs = r.Take();
  CHECK(fs.empty());
  CHECK(r.spk.stops == 1);
  CHECK(r.ui.played.back().second == false);
}

TEST_CASE("speaker: caption rules - 16 queued max (ERROR 8), blank or invalid UTF-8 is ERROR 1, session continues") {
  Rig r;
  r.Send(ControlFrame(kSpeakerStart, 6, 24000));
  r.Take();
  r.Send(ControlFrame(kSpeakerText, 6, 24000, {' ', '\t'}));
  CHECK(ErrorOf(r.Take()) == kErrInvalidRequest);
  r.Send(ControlFrame(kSpeakerText, 6, 24000, {0xC3, 0x28}));
  CHECK(ErrorOf(r.Take()) == kErrInvalidRequest);
  r.Send(ControlFrame(kSpeakerText, 6, 24000, Bytes(1025, 'a')));
  CHECK(ErrorOf(r.Take()) == kErrInvalidRequest);
  for (int i = 0; i < 16; i++) r.Send(ControlFrame(kSpeakerText, 6, 24000, {'a'}));
  CHECK(r.Take().empty());
  r.Send(ControlFrame(kSpeakerText, 6, 24000, {'b'}));
  CHECK(ErrorOf(r.Take()) == kErrCaptionQueueOverflow);
  CHECK(r.dev.speaker().active().id == 6);
}

TEST_CASE("speaker: the mouth follows the RMS in steps of 0.1 every 125 ms") {
  Rig r;
  r.spk.writable = 1 << 20;
  r.Send(ControlFrame(kSpeakerStart, 2, 8000));
  r.Send(Pcm(2, 0, 4000, 8000, 1000));  // 500 ms at 8 kHz: plays; RMS 1000 -> step 5
  r.Send(Pcm(2, 1, 4000, 8000, 1000));
  r.Tick(125);
  REQUIRE_FALSE(r.ui.mouths.empty());
  CHECK(r.ui.mouths.back() == doctest::Approx(0.5));
  r.Tick(125);  // nothing written since: closed
  CHECK(r.ui.mouths.back() == doctest::Approx(0.0));
}

TEST_CASE("HELLO during playback resets sessions silently and forgets the last ids") {
  Rig r;
  r.Send(ControlFrame(kSpeakerStart, 2, 24000));
  r.Take();
  r.Send(HelloFrame());
  auto fs = r.Take();
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].flags == kHelloAck);
  CHECK(r.dev.speaker().active().id == 0);
  CHECK(r.dev.speaker().last().id == 0);
  r.Send(ControlFrame(kSpeakerAbort, 2, 24000));  // stale now: silent
  CHECK(r.Take().empty());
}

TEST_CASE("USB disconnect is confirmed after 100 ms only, then everything resets") {
  Rig r;
  r.Send(ControlFrame(kStatus, 0, 0, {2}));
  r.dev.SetUsbConnected(false, r.now + 50);
  CHECK(r.dev.transport() == TransportState::Ready);  // single SOF gap
  r.dev.SetUsbConnected(true, r.now + 60);
  r.dev.SetUsbConnected(false, r.now + 150);
  CHECK(r.dev.transport() == TransportState::Ready);
  r.dev.SetUsbConnected(false, r.now + 161);
  CHECK(r.dev.transport() == TransportState::Disconnected);
  CHECK_FALSE(r.dev.helloDone());
  CHECK(r.dev.status() == 0);
  r.now += 200;
  r.dev.SetUsbConnected(true, r.now);
  CHECK(r.dev.transport() == TransportState::Unsupported);
}

TEST_CASE("[OURS] USB back after a session: ERROR 1 on stream 0 at once, so the host notices the replug") {
  Rig r;
  r.dev.SetUsbConnected(false, r.now + 200);
  REQUIRE(r.dev.transport() == TransportState::Disconnected);
  r.Take();
  r.dev.SetUsbConnected(true, r.now + 300);
  auto fs = r.Take();
  uint16_t stream = 99;
  CHECK(ErrorOf(fs, &stream) == kErrInvalidRequest);
  CHECK(stream == 0);
  CHECK(fs.size() == 1);
  // Without a HELLO since, a second replug says nothing: there is no
  // session to lose. A fresh boot says nothing either.
  r.dev.SetUsbConnected(false, r.now + 500);
  r.dev.SetUsbConnected(true, r.now + 600);
  CHECK(r.Take().empty());
  Rig boot(false);
  CHECK(boot.Take().empty());
}

TEST_CASE("HELLO after a replug: the approval the host no longer sends goes, the one it sends is shown") {
  Rig r;
  r.SendEvent(R"({"schema":"stackchan.event.v1","type":"approval.request","requestId":"p1","kind":"command","title":"T","summary":"S","detail":"D","truncated":false})", 1);
  REQUIRE(r.dev.approvals().View().requestId == "p1");
  r.dev.SetUsbConnected(false, r.now + 200);
  r.now += 300;
  r.dev.SetUsbConnected(true, r.now);
  r.Send(HelloFrame());
  r.SendEvent(R"({"schema":"stackchan.event.v1","type":"approval.request","requestId":"p2","kind":"command","title":"T2","summary":"S","detail":"D","truncated":false})", 1);
  CHECK(r.dev.approvals().View().requestId == "p1");
  CHECK_FALSE(r.dev.approvals().View().buttonsEnabled);
  r.Take();
  r.Tick(kStaleGraceMs);
  CHECK(r.dev.approvals().View().requestId == "p2");
  CHECK(r.dev.approvals().View().buttonsEnabled);
  auto ev = r.Events();
  REQUIRE(ev.size() == 1);
  CHECK(ev[0]["type"] == "approval.presented");
  CHECK(ev[0]["requestId"] == "p2");
}

TEST_CASE("EVENT: chunked inbound message reassembles; bad JSON or foreign schema costs only itself") {
  Rig r;
  r.Send(ControlFrame(kSpeakerStart, 2, 24000));
  r.Take();
  std::string big = R"({"schema":"stackchan.event.v1","type":"approval.request","requestId":"a1","kind":"command","title":"T","summary":"S","detail":")" +
                    std::string(9000, 'x') + R"(","truncated":true})";
  std::vector<Bytes> frames;
  ChunkEvent(40, reinterpret_cast<const uint8_t*>(big.data()), big.size(), 4096, [&](const Frame& f) { frames.push_back(Encoded(f)); });
  REQUIRE(frames.size() == 3);
  r.SendEvent("{broken", 41);
  r.SendEvent(R"({"schema":"other.v1","type":"task.status","requestId":"t","state":"running"})", 42);
  for (auto& f : frames) r.Send(f);
  auto ev = r.Events();
  REQUIRE(ev.size() == 1);
  CHECK(ev[0]["type"] == "approval.presented");
  CHECK(ev[0]["requestId"] == "a1");
  CHECK(r.dev.speaker().active().id == 2);  // audio untouched (§13.3)
  CHECK(r.dev.stats().eventsDropped == 2);
}

TEST_CASE("task.status shows the spinner and resets to idle when the transport leaves ready") {
  Rig r;
  r.SendEvent(R"({"schema":"stackchan.event.v1","type":"task.status","requestId":"t1","state":"running"})", 1);
  CHECK(r.dev.taskRunning());
  r.Send(HelloFrame(4096, 0x227));  // host without EVENT: unsupported
  CHECK_FALSE(r.dev.taskRunning());
  CHECK(r.ui.tasks == std::vector<bool>{true, false});
}

TEST_CASE("outgoing EVENT ids run 1.. and chunk to the host's max payload") {
  Rig r(false);
  r.Send(HelloFrame(640, 0xF27));
  r.Take();
  std::string msg = "{\"a\":\"" + std::string(1500, 'y') + "\"}";
  CHECK(r.dev.Send(msg) == SendResult::Queued);
  CHECK(r.dev.Send("{}") == SendResult::Queued);
  auto fs = r.Take();
  REQUIRE(fs.size() == 4);
  CHECK(fs[0].stream == 1);
  CHECK(fs[0].flags == kEventStart);
  CHECK(fs[0].payload.size() == 640);
  CHECK(fs[2].flags == kEventEnd);
  CHECK(fs[2].sequence == 2);
  CHECK(fs[3].stream == 2);
  CHECK(fs[3].flags == 3);
  CHECK(r.dev.Send(std::string(70000, ' ')) == SendResult::Overflow);
}

TEST_CASE("[OURS] a HELLO behind a cut frame is answered from Tick once the cut frame is stale") {
  Rig r;
  Bytes pay(kMaxPayload);
  Frame f;
  f.type = 2;
  f.stream = 1;
  f.sampleRate = 24000;
  f.payload = pay.data();
  f.length = kMaxPayload;
  Bytes cut = Encoded(f);
  cut.resize(40);  // the host restarted mid-frame
  r.Send(cut);
  r.Tick(100);
  r.Send(HelloFrame(4096, 0xF27));
  CHECK(r.Take().empty());  // held as the cut frame's payload
  r.Tick(kStaleAfterMs - 100 - 1);
  CHECK(r.Take().empty());
  r.Tick(1);
  auto fs = r.Take();
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].flags == kHelloAck);
  CHECK(r.dev.parserStats().stale == 1);
}
