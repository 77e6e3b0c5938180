// DIAGNOSTICS (spec §21.1): the 52-byte payload upstream's PC tool parses,
// the per-session counters, and when the Device sends reports. Pins: a
// release build (0xF7F) never sends type 5; a diagnostic build (0xFFF)
// reports session start, audio start, every 100 ms, and completion or abort,
// with its own sequence counter; stale reports never outlive their session.
#include <cstdio>

#include "helpers.h"

using namespace sc;

namespace {
Bytes Pcm(uint16_t stream, uint32_t seq, size_t len, uint32_t rate = 24000) {
  Bytes p(len, 0x10);
  Frame f;
  f.type = 2;
  f.stream = stream;
  f.sequence = seq;
  f.sampleRate = rate;
  f.payload = p.data();
  f.length = uint32_t(len);
  return Encoded(f);
}
std::vector<DiagSnapshot> Reports(const std::vector<OwnedFrame>& fs, std::vector<uint32_t>* seqs = nullptr) {
  std::vector<DiagSnapshot> out;
  for (auto& f : fs) {
    if (f.type != uint8_t(Type::Diagnostics)) continue;
    DiagSnapshot d;
    REQUIRE(DecodeDiagnostics(f.payload.data(), f.payload.size(), &d));
    out.push_back(d);
    if (seqs) seqs->push_back(f.sequence);
  }
  return out;
}
size_t IndexOf(const std::vector<OwnedFrame>& fs, uint8_t type, uint16_t code) {
  for (size_t i = 0; i < fs.size(); i++)
    if (fs[i].type == type && (type != 0 || fs[i].flags == code)) return i;
  return SIZE_MAX;
}
}  // namespace

TEST_CASE("diagnostics payload: 52 bytes, version 1, fields little-endian in upstream's order") {
  DiagSnapshot s;
  s.event = DiagEvent::Periodic;
  s.flags = kDiagAudioActive | kDiagStarving;
  s.ticksMs = 0x04030201;
  s.sampleRate = 24000;
  s.queuedBytes = 1;
  s.writableBytes = 2;
  s.receivedBytes = 3;
  s.writtenBytes = 4;
  s.receivedFrames = 5;
  s.writableCallbacks = 6;
  s.starvationEvents = 7;
  s.maxReceiveGapMs = 8;
  s.maxWritableGapMs = 9;
  s.txQueueBytes = 0xA0B0C0D0;
  uint8_t p[kDiagPayloadBytes];
  EncodeDiagnostics(s, p);
  CHECK(ToHex(p, sizeof p) ==
        "0103" "1100" "01020304" "c05d0000" "01000000" "02000000" "03000000" "04000000"
        "05000000" "06000000" "07000000" "08000000" "09000000" "d0c0b0a0");
  DiagSnapshot back;
  REQUIRE(DecodeDiagnostics(p, sizeof p, &back));
  CHECK(back.event == DiagEvent::Periodic);
  CHECK(back.flags == s.flags);
  CHECK(back.ticksMs == s.ticksMs);
  CHECK(back.txQueueBytes == s.txQueueBytes);
  CHECK(back.maxWritableGapMs == 9);
  CHECK_FALSE(DecodeDiagnostics(p, 51, &back));
  p[0] = 2;
  CHECK_FALSE(DecodeDiagnostics(p, sizeof p, &back));
}

TEST_CASE("speaker counters: gaps are maxima between events, starvation counts rises, reports on a 100 ms grid") {
  SpeakerCounters c;
  c.Begin(1000);
  c.OnPcm(3840, 1000);
  c.OnPcm(3840, 1080);
  c.OnPcm(3840, 1100);
  CHECK(c.receivedBytes() == 3 * 3840);
  CHECK(c.receivedFrames() == 3);
  CHECK(c.maxReceiveGapMs() == 80);
  c.OnWritable(1000);
  CHECK(c.maxWritableGapMs() == 0);  // one callback: no gap yet
  c.OnWritable(1021);
  c.OnWritable(1030);
  CHECK(c.writableCallbacks() == 3);
  CHECK(c.maxWritableGapMs() == 21);
  c.SetStarving(true);
  c.SetStarving(true);  // still the same starvation
  c.SetStarving(false);
  c.SetStarving(true);
  CHECK(c.starvationEvents() == 2);
  CHECK(c.starving());

  CHECK_FALSE(c.PeriodicDue(1099));
  CHECK(c.PeriodicDue(1103));   // 3 ms late
  CHECK_FALSE(c.PeriodicDue(1199));
  CHECK(c.PeriodicDue(1200));   // the grid, not 1203 + 100
  CHECK(c.PeriodicDue(1450));   // a 250 ms stall: one report, not three
  CHECK_FALSE(c.PeriodicDue(1499));
  CHECK(c.PeriodicDue(1500));   // still the grid of Begin

  c.Begin(5000);  // a new session starts from zero
  CHECK(c.receivedFrames() == 0);
  CHECK(c.starvationEvents() == 0);
  CHECK_FALSE(c.starving());
  c.OnPcm(2, 5000);
  CHECK(c.maxReceiveGapMs() == 0);  // no gap across sessions
}

TEST_CASE("release build (0xF7F) sends no DIAGNOSTICS through a whole speaker session") {
  Rig r;
  r.spk.writable = 1 << 20;
  r.Send(ControlFrame(kSpeakerStart, 2, 24000));
  for (uint32_t seq = 0; seq < 7; seq++) r.Send(Pcm(2, seq, 3840));
  for (int i = 0; i < 5; i++) r.Tick(100);
  r.Send(ControlFrame(kSpeakerEnd, 2, 24000));
  r.Tick(10);
  auto fs = r.Take();
  CHECK(Reports(fs).empty());
  CHECK(IndexOf(fs, 0, kSpeakerDone) != SIZE_MAX);
  CHECK(r.dev.stats().diagnosticsOut == 0);
}

TEST_CASE("diagnostic build (0xFFF): start, audio start, 100 ms reports, completed before DONE") {
  Rig r(false, 0xF27, kFirmwareCapsDiag);
  r.Send(HelloFrame(4096, 0x37F));  // upstream's tool: no EVENT, no DIAGNOSTICS asked
  auto fs = r.Take();
  REQUIRE(fs.size() == 1);
  CHECK(ToHex(fs[0].payload) == "00100000ff0f0000");

  r.spk.writable = 1 << 20;
  r.Send(ControlFrame(kSpeakerStart, 3, 24000));
  fs = r.Take();
  std::vector<uint32_t> seqs;
  auto ds = Reports(fs, &seqs);
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].event == DiagEvent::SessionStarted);
  CHECK(ds[0].sampleRate == 24000);
  CHECK(ds[0].ticksMs == r.now);
  CHECK(ds[0].flags == kDiagBufferEmpty);
  CHECK(ds[0].receivedFrames == 0);
  CHECK(fs[IndexOf(fs, 5, 0)].stream == 3);
  CHECK(fs[IndexOf(fs, 5, 0)].rate == 24000);

  uint32_t seq = 0;
  for (; seq < 6; seq++) {
    r.now += 20;
    r.Send(Pcm(3, seq, 3840));
  }
  CHECK(Reports(r.Take()).empty());  // below the prebuffer, before the first 100 ms
  r.now += 30;
  r.spk.drained = false;
  r.spk.buffered = 7 * 3840;
  r.Send(Pcm(3, seq++, 3840));  // prebuffer reached: the output starts
  fs = r.Take();
  ds = Reports(fs, &seqs);
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].event == DiagEvent::AudioStarted);
  CHECK(ds[0].receivedFrames == 7);
  CHECK(ds[0].receivedBytes == 7 * 3840);
  CHECK(ds[0].maxReceiveGapMs == 30);

  r.Tick(50);  // 200 ms after the start: two grid slots passed, one report
  ds = Reports(r.Take(), &seqs);
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].event == DiagEvent::Periodic);
  CHECK(ds[0].writtenBytes == 7 * 3840);
  CHECK(ds[0].queuedBytes == 7 * 3840);  // all in the output now
  CHECK((ds[0].flags & kDiagAudioActive));
  CHECK_FALSE((ds[0].flags & kDiagBufferEmpty));
  CHECK(ds[0].starvationEvents == 0);
  CHECK(ds[0].writableCallbacks >= 1);
  r.Tick(99);
  CHECK(Reports(r.Take()).empty());
  r.Tick(1);
  CHECK(Reports(r.Take(), &seqs).size() == 1);

  r.Send(ControlFrame(kSpeakerEnd, 3, 24000));
  r.Tick(10);
  ds = Reports(r.Take(), &seqs);
  CHECK(ds.empty());  // ended, waiting for the drain: no event until the next slot
  r.spk.drained = true;
  r.Tick(10);
  fs = r.Take();
  ds = Reports(fs, &seqs);
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].event == DiagEvent::Completed);
  CHECK((ds[0].flags & kDiagSpeakerEnded));
  CHECK((ds[0].flags & kDiagBufferEmpty));
  CHECK(ds[0].writtenBytes == 7 * 3840);
  CHECK(IndexOf(fs, 5, 0) < IndexOf(fs, 0, kSpeakerDone));
  for (size_t i = 0; i < seqs.size(); i++) CHECK(seqs[i] == i);  // its own counter from 0

  r.Tick(500);  // no session: no reports
  CHECK(Reports(r.Take()).empty());
}

TEST_CASE("diagnostic build: the output running dry mid-stream is one starvation event, flagged") {
  Rig r(true, 0xF27, kFirmwareCapsDiag);
  r.spk.writable = 1 << 20;
  r.Send(ControlFrame(kSpeakerStart, 4, 16000));
  for (uint32_t seq = 0; seq < 5; seq++) r.Send(Pcm(4, seq, 3200, 16000));  // 16000 B = prebuffer
  r.spk.drained = true;  // played out at once: the host is late
  r.Tick(1);
  r.Tick(1);
  CHECK(r.dev.speakerCounters().starvationEvents() == 1);
  r.Tick(100);
  auto ds = Reports(r.Take());
  REQUIRE_FALSE(ds.empty());
  CHECK(ds.back().event == DiagEvent::Periodic);
  CHECK(ds.back().starvationEvents == 1);
  CHECK((ds.back().flags & kDiagStarving));
  CHECK((ds.back().flags & kDiagBufferEmpty));
  r.spk.drained = false;
  r.Send(Pcm(4, 5, 3200, 16000));
  r.Send(ControlFrame(kSpeakerEnd, 4, 16000));
  r.spk.drained = true;
  r.Tick(1);  // ended: an empty output is the normal end, not starvation
  CHECK(r.dev.speakerCounters().starvationEvents() == 1);
}

TEST_CASE("diagnostic build: ABORT drops the session's queued reports and sends one ABORTED, no DONE") {
  Rig r(true, 0xF27, kFirmwareCapsDiag);
  r.Send(ControlFrame(kSpeakerStart, 6, 8000));
  r.Take();
  r.usb.budget = 0;  // the host stops reading: reports pile up
  for (int i = 0; i < 3; i++) r.Tick(100);
  r.usb.budget = SIZE_MAX;
  r.Send(ControlFrame(kSpeakerAbort, 6, 8000));
  auto fs = r.Take();
  auto ds = Reports(fs);
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].event == DiagEvent::Aborted);
  CHECK(IndexOf(fs, 0, kSpeakerDone) == SIZE_MAX);
  CHECK(r.dev.stats().diagnosticsOut == 5);  // start, 3 periodic (dropped unsent), aborted
}

TEST_CASE("fuzz: the DIAGNOSTICS decoder takes exactly 52 bytes of version 1 and round-trips them") {
  uint64_t seed = FuzzSeed();
  int iters = FuzzIters();
  std::printf("fuzz diagnostics decoder: seed=%llu iterations=%d\n", (unsigned long long)seed, iters);
  std::mt19937_64 rng(seed);
  int decoded = 0;
  for (int it = 0; it < iters; it++) {
    Bytes p(rng() % 4 == 0 ? rng() % 60 : kDiagPayloadBytes);
    for (auto& b : p) b = uint8_t(rng());
    if (!p.empty() && rng() % 2) p[0] = kDiagVersion;
    DiagSnapshot d;
    bool ok = DecodeDiagnostics(p.data(), p.size(), &d);
    REQUIRE(ok == (p.size() == kDiagPayloadBytes && p[0] == kDiagVersion));
    if (!ok) continue;
    decoded++;
    uint8_t again[kDiagPayloadBytes];
    EncodeDiagnostics(d, again);
    REQUIRE(ToHex(again, sizeof again) == ToHex(p));
  }
  CHECK(decoded > 0);
}
