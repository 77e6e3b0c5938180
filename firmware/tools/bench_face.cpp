// bench_face: what one frame costs on the host (`make bench`): the
// FaceModel building its display list (the CoreS3 does this every 16 ms in
// loop(), so it must stay far below that), our rasterizer, and the PNG
// encoder. Prints ns per call and the list's size; not a test.
#include <chrono>
#include <cstdio>

#include "face_model.h"
#include "raster.h"

namespace {
template <typename F>
double NsPer(int n, F f) {
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; i++) f(i);
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / n;
}
}  // namespace

int main() {
  sc::FaceModel m(7);
  m.Link(sc::TransportState::Ready);
  m.Handshake(true);
  m.Task(true);
  m.Status(uint8_t(sc::StatusValue::Listening));
  m.Caption("All 42 tests passed. Shall I commit the change now?");
  size_t ops = 0;
  uint64_t sink = 0;
  double frame = NsPer(200000, [&](int i) {
    const sc::DisplayList& l = m.Frame(uint32_t(i) * 16);
    ops = l.ops.size();
    sink += l.ops.size();
  });
  double hash = NsPer(200000, [&](int i) { sink += m.Frame(uint32_t(i) * 16).Hash(); });
  sim::Canvas c;
  double raster = NsPer(2000, [&](int i) { c.Draw(m.Frame(uint32_t(i) * 16)); });
  double png = NsPer(200, [&](int) { sink += sim::EncodePng(c).size(); });
  std::printf("face frame: %.0f ns/op (%zu draw ops); frame+hash: %.0f ns/op; raster 320x240: %.0f ns/op; png: %.0f ns/op (%zu bytes) [%llu]\n",
              frame, ops, hash, raster, png, sim::EncodePng(c).size(), (unsigned long long)(sink & 1));
  return 0;
}
