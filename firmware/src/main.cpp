// CoreS3 adapter: the thin layer between M5Unified and the tested core.
// Everything the protocol decides lives in core/; this file only moves bytes,
// samples and pixels. It has NOT been compiled in this repository's CI (no
// ESP32 toolchain there): see README.md.
//
// Threads: the protocol task (core 0) owns the Device, the USB port and the
// audio; loop() (core 1) draws and reads the touch panel. They talk through a
// FreeRTOS queue (touches) and a mutex-guarded UiState (what to draw), so
// drawing never blocks USB reception (spec §20.2).
#include <Arduino.h>
#include <M5Unified.h>

#include <soc/soc.h>
#include <soc/usb_serial_jtag_reg.h>

#include "device.h"
#include "face.h"
#include "usb_presence.h"

namespace {

// ---- USB Serial/JTAG CDC (303a:1001) ------------------------------------

class UsbPort : public sc::Transport {
 public:
  size_t Write(const uint8_t* d, size_t n) override {
    int room = Serial.availableForWrite();
    if (room <= 0) return 0;
    if (size_t(room) < n) n = size_t(room);
    return Serial.write(d, n);
  }
};

// UsbConnected: did the host's SOF frame index move since the last poll?
// Read straight from the USB Serial/JTAG register, the same on ESP-IDF 4.4
// (arduino-esp32 2.0.17, what platformio.ini pins) and 5.x; IDF 4.4 has no
// usb_serial_jtag_is_connected(), and HWCDC's bool() there is not an SOF
// check. Reading the register has no side effect on the CDC driver.
sc::SofWatch gSof;  // protocol task only
bool UsbConnected() { return gSof.Update(REG_READ(USB_SERIAL_JTAG_FRAM_NUM_REG)); }

// ---- speaker: M5.Speaker keeps a pointer to what it plays, so samples are
// copied into rotating slots; at most two are in use (playing + queued).

constexpr int kSpkChannel = 0;
constexpr size_t kSlotBytes = 1024;

class Speaker : public sc::AudioOut {
 public:
  bool Begin(uint32_t rate) override {
    rate_ = rate;
    M5.Mic.end();  // CoreS3: speaker and mic share I2S; the protocol is half duplex
    return M5.Speaker.begin();
  }
  size_t Writable(uint32_t) override { return M5.Speaker.isPlaying(kSpkChannel) < 2 ? kSlotBytes : 0; }
  bool Write(const uint8_t* pcm, size_t n, uint32_t) override {
    int16_t* slot = slots_[next_];
    sizes_[next_] = n;
    next_ = (next_ + 1) % 3;
    memcpy(slot, pcm, n);
    return M5.Speaker.playRaw(slot, n / 2, rate_, false, 1, kSpkChannel, false);
  }
  bool Drained(uint32_t) override { return M5.Speaker.isPlaying(kSpkChannel) == 0; }
  // Buffered: the slots still in M5.Speaker (playing + queued). The playing
  // one counts whole, so this is an upper bound by at most one slot.
  size_t Buffered(uint32_t) override {
    size_t inUse = M5.Speaker.isPlaying(kSpkChannel), sum = 0;
    for (size_t i = 0; i < inUse && i < 3; i++) sum += sizes_[(next_ + 2 - i) % 3];
    return sum;
  }
  void Stop() override { M5.Speaker.stop(kSpkChannel); }

 private:
  uint32_t rate_ = 24000;
  int16_t slots_[3][kSlotBytes / 2];
  size_t sizes_[3] = {0, 0, 0};
  int next_ = 0;
};

// ---- microphone: 16 kHz, 20 ms (320 samples) per frame, triple-buffered.

class Mic : public sc::AudioIn {
 public:
  bool Begin(uint32_t) override {
    M5.Speaker.end();
    auto cfg = M5.Mic.config();
    cfg.sample_rate = 16000;
    M5.Mic.config(cfg);
    running_ = M5.Mic.begin();
    queued_ = 0;
    return running_;
  }
  void End() override {
    running_ = false;
    M5.Mic.end();
  }
  // Poll queues the next record; a buffer two records old is complete.
  void Poll(sc::Device& dev, uint32_t now) {
    if (!running_) return;
    if (!M5.Mic.record(bufs_[idx_], 320, 16000)) {
      dev.OnCaptureFailed(now);
      return;
    }
    if (++queued_ > 2) dev.OnMicFrame(reinterpret_cast<uint8_t*>(bufs_[(idx_ + 1) % 3]), 640, now);
    idx_ = (idx_ + 1) % 3;
  }

 private:
  bool running_ = false;
  int16_t bufs_[3][320];
  int idx_ = 0, queued_ = 0;
};

// ---- UI: the protocol task writes UiState, loop() draws it.

SemaphoreHandle_t gUiLock;
UiState gUi;  // guarded by gUiLock

class UiSink : public sc::Ui {
 public:
  void Status(uint8_t v) override { with([&] { gUi.status = v; }); }
  void Task(bool running) override { with([&] { gUi.taskRunning = running; }); }
  void Caption(const std::string& t) override { with([&] { gUi.caption = t; }); }
  void Mouth(float open) override { with([&] { gUi.mouth = open; }); }
  void Approval(const sc::ApprovalView& v) override { with([&] { gUi.approval = v; }); }
  void Conversation(sc::ConvState s, const std::string& e) override {
    with([&] {
      gUi.conversation = s;
      gUi.conversationError = e;
    });
  }
  void Link(sc::TransportState s) override { with([&] { gUi.link = s; }); }

 private:
  template <typename F>
  void with(F f) {
    xSemaphoreTake(gUiLock, portMAX_DELAY);
    f();
    gUi.version++;
    xSemaphoreGive(gUiLock);
  }
};

// Touch actions travel from loop() to the protocol task (core/touch.h).
QueueHandle_t gInput;
sc::TouchClassifier gTouch;  // loop() only

UsbPort gUsb;
Speaker gSpeaker;
Mic gMic;
UiSink gSink;
sc::Device* gDev;

void ProtocolTask(void*) {
  static uint8_t rx[4096];
  for (;;) {
    uint32_t now = millis();
    gDev->SetUsbConnected(UsbConnected(), now);
    int n = Serial.available();
    if (n > 0) {
      size_t got = Serial.read(rx, n < int(sizeof rx) ? size_t(n) : sizeof rx);
      gDev->OnReceive(rx, got, now);
    }
    sc::TouchAction in;
    while (xQueueReceive(gInput, &in, 0) == pdTRUE) gDev->OnTouch(in, now);
    gMic.Poll(*gDev, now);
    gDev->Tick(now);
    vTaskDelay(pdMS_TO_TICKS(2));  // upstream's 2 ms maintenance period
  }
}

}  // namespace

void setup() {
  auto cfg = M5.config();
  cfg.serial_baudrate = 0;  // USB CDC: line coding is irrelevant; no log output on it
  M5.begin(cfg);
  Serial.setRxBufferSize(32768);  // spec §25: RX 32 KiB
  Serial.setTxBufferSize(16384);  //           TX 16 KiB
  Serial.begin();

  gUiLock = xSemaphoreCreateMutex();
  gInput = xQueueCreate(16, sizeof(sc::TouchAction));

  sc::DeviceConfig dc;
#if STACKCHAN_DIAGNOSTICS
  // The diagnostic build (env:m5stack-cores3-diagnostics): caps 0xFFF, so
  // the core sends DIAGNOSTICS; silent like upstream's diagnostic builds,
  // so a bench run of the PC tool does not blare a sine wave.
  dc.capabilities = sc::kFirmwareCapsDiag;
  M5.Speaker.setVolume(0);
#endif
  char token[9];
  snprintf(token, sizeof token, "%08lx", (unsigned long)esp_random());
  dc.bootToken = token;
  gDev = new sc::Device(dc, gUsb, gSpeaker, gMic, gSink);
  gDev->SetGlyphs(FaceHasGlyph);  // what efont lacks shows as a U+XXXX box

  FaceBegin(M5.Display);
  xTaskCreatePinnedToCore(ProtocolTask, "dock", 8192, nullptr, 5, nullptr, 0);
}

void loop() {
  M5.update();
  uint32_t now = millis();
  UiState snapshot;
  xSemaphoreTake(gUiLock, portMAX_DELAY);
  snapshot = gUi;
  xSemaphoreGive(gUiLock);

  // The panel's fingers (screen coordinates) into the core's classifier;
  // M5Unified's own click/flick states are not used, so the rules are the
  // tested ones.
  sc::TouchPoint pts[2];
  size_t n = 0;
  for (size_t i = 0; i < M5.Touch.getCount() && n < 2; i++) {
    const auto& d = M5.Touch.getDetail(i);
    if (!d.isPressed()) continue;
    pts[n].id = uint8_t(d.id);
    pts[n].x = int16_t(d.x);
    pts[n].y = int16_t(d.y);
    n++;
  }
  sc::TouchAction in = sc::ActionFor(gTouch.Update(now, pts, n), snapshot.approval.visible);
  if (in != sc::TouchAction::None) xQueueSend(gInput, &in, 0);

  FaceDraw(M5.Display, snapshot, now);
  delay(16);
}
