// SofWatch turns the USB Serial/JTAG peripheral's SOF frame index into
// "a host is there": a host sends a start-of-frame packet every 1 ms, so
// between two polls (every 2 ms) the 11-bit index moves; a wall charger,
// a suspended or an unplugged host leaves it frozen. Device debounces the
// answer (100 ms, spec §1), so one missed poll is not a disconnect.
//
// The CoreS3 layer reads the index register; this part is pure and tested.
#pragma once

#include <cstdint>

namespace sc {

constexpr uint32_t kSofFrameIndexMask = 0x7FF;  // bits 10:0 of USB_SERIAL_JTAG_FRAM_NUM_REG

class SofWatch {
 public:
  // Update takes the register value; true if the index moved since the
  // last call (the first call only learns it).
  bool Update(uint32_t framNum) {
    uint32_t index = framNum & kSofFrameIndexMask;
    bool moved = seeded_ && index != last_;
    last_ = index;
    seeded_ = true;
    return moved;
  }

 private:
  uint32_t last_ = 0;
  bool seeded_ = false;
};

}  // namespace sc
