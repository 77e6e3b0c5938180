// How the device layer moves USB bytes (spec §4, §25): a worker task woken
// by the CDC driver's readable callback (and every 2 ms for maintenance)
// drains the 32 KiB RX ring in reads of up to 16 KiB, at most four per
// wake like upstream, and feeds each read to the Device. The pacing
// decision lives here so it is tested on the host (test/test_usb_io.cpp);
// src/main.cpp and the cores3-sim only provide a ByteSource.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sc {

constexpr size_t kUsbRxRingBytes = 32768;  // the CDC driver's RX buffer
constexpr size_t kUsbTxRingBytes = 16384;  // the CDC driver's TX buffer
constexpr size_t kUsbReadBytes = 16384;    // one read
constexpr int kUsbReadsPerWake = 4;        // reads per wake before yielding
constexpr uint32_t kUsbMaintenanceMs = 2;  // the worker's wake without data

// ByteSource is the driver's RX side: Available bytes can be read now
// without blocking; Read takes at most len of them.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual size_t Available() = 0;
  virtual size_t Read(uint8_t* buf, size_t len) = 0;
};

struct DrainResult {
  size_t bytes = 0;
  int reads = 0;
  // more: data was left after the last allowed read; wake again at once
  // instead of waiting for the next callback or maintenance tick.
  bool more = false;
};

// DrainRx reads from src into buf (kUsbReadBytes) and calls
// feed(buf, n) for every non-empty read.
template <typename Feed>
DrainResult DrainRx(ByteSource& src, uint8_t* buf, Feed feed) {
  DrainResult r;
  while (r.reads < kUsbReadsPerWake) {
    size_t avail = src.Available();
    if (avail == 0) return r;
    size_t n = src.Read(buf, avail < kUsbReadBytes ? avail : kUsbReadBytes);
    if (n == 0) return r;  // the driver had less than it said: next wake
    r.reads++;
    r.bytes += n;
    feed(buf, n);
  }
  r.more = src.Available() > 0;
  return r;
}

}  // namespace sc
