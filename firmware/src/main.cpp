// CoreS3 adapter: the thin layer between M5Unified and the tested core.
// Everything the protocol decides lives in core/; this file only moves bytes,
// samples and pixels. It has NOT been compiled in this repository's CI (no
// ESP32 toolchain there): see README.md.
//
// Threads: the protocol worker (core 0) owns the Device, the USB port and
// the audio. It sleeps until the CDC driver's readable callback wakes it,
// or 2 ms pass (maintenance: SOF, audio pump, credit, diagnostics), then
// drains the RX ring by core/usb_io.h's rules. loop() (core 1) draws the
// FaceModel's frame and reads the touch panel. They talk through a FreeRTOS
// queue (touches) and a mutex-guarded FaceModel (what to draw), so drawing
// never blocks USB reception (spec §20.2). Stack-chan's tools (core/tools.h,
// offered to the host over the session layer, core/session.h) run on the
// protocol task too and reach the face through core/face_tools.h, each
// action under the same lock.
#include <Arduino.h>
#include <M5Unified.h>
#include <Preferences.h>

#include <soc/soc.h>
#include <soc/usb_serial_jtag_reg.h>

#include <functional>

#include "device.h"
#include "face.h"
#include "face_model.h"
#include "face_tools.h"
#include "session.h"
#include "tools.h"
#include "usb_io.h"
#include "usb_presence.h"

namespace {

// ---- USB Serial/JTAG CDC (303a:1001) ------------------------------------

class UsbPort : public sc::Transport, public sc::ByteSource {
 public:
  size_t Write(const uint8_t* d, size_t n) override {
    int room = Serial.availableForWrite();
    if (room <= 0) return 0;
    if (size_t(room) < n) n = size_t(room);
    return Serial.write(d, n);
  }
  size_t Available() override {
    int n = Serial.available();
    return n > 0 ? size_t(n) : 0;
  }
  size_t Read(uint8_t* b, size_t n) override { return Serial.read(b, n); }
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
    bool ok = M5.Speaker.begin();
    M5.Speaker.setVolume(volume_);  // the core's tts.volume, again after each begin
    return ok;
  }
  void SetVolume(uint8_t percent) override {
    volume_ = uint8_t(uint32_t(percent) * 255 / 100);  // M5.Speaker: 0..255
    M5.Speaker.setVolume(volume_);
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
  uint8_t volume_ = 0;
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

// ---- settings: NVS (Preferences), whose writes are atomic per key.

class NvsSettings : public sc::SettingsStore {
 public:
  bool Load(const char* key, std::string* v) override {
    if (!open() || !prefs_.isKey(key)) return false;
    *v = prefs_.getString(key).c_str();
    return true;
  }
  bool Save(const char* key, const std::string& v) override {
    return open() && prefs_.putString(key, v.c_str()) == v.size();
  }

 private:
  bool open() {
    if (!opened_) opened_ = prefs_.begin("claude_pi", false);
    return opened_;
  }
  Preferences prefs_;
  bool opened_ = false;
};

// ---- UI: the protocol task reports to the FaceModel, loop() draws its frame.

SemaphoreHandle_t gUiLock;
sc::FaceModel* gFace;  // guarded by gUiLock

// WithUi runs f holding the UI lock (the protocol task's side of it). A
// template, so UiSink's calls (the mouth: every 125 ms) wrap nothing on the heap.
template <typename F>
void WithUi(F f) {
  xSemaphoreTake(gUiLock, portMAX_DELAY);
  f();
  xSemaphoreGive(gUiLock);
}

class UiSink : public sc::Ui {
 public:
  void Status(uint8_t v) override { with([&] { gFace->Status(v); }); }
  void Task(bool running) override { with([&] { gFace->Task(running); }); }
  void Caption(const std::string& t) override { with([&] { gFace->Caption(t); }); }
  void Mouth(float open) override { with([&] { gFace->Mouth(open); }); }
  void Approval(const sc::ApprovalView& v) override { with([&] { gFace->Approval(v); }); }
  void Conversation(sc::ConvState s, const std::string& e) override { with([&] { gFace->Conversation(s, e); }); }
  void Link(sc::TransportState s) override { with([&] { gFace->Link(s); }); }
  void Handshake(bool d) override { with([&] { gFace->Handshake(d); }); }
  void Playing(bool on) override { with([&] { gFace->Playing(on); }); }
  void Volume(uint8_t p, bool z) override { with([&] { gFace->Volume(p, z); }); }

 private:
  template <typename F>
  void with(F f) {
    WithUi(f);
  }
};

// Touch actions travel from loop() to the protocol task (core/touch.h).
QueueHandle_t gInput;
sc::TouchClassifier gTouch;  // loop() only

UsbPort gUsb;
Speaker gSpeaker;
Mic gMic;
UiSink gSink;
NvsSettings gSettings;
sc::Device* gDev;
TaskHandle_t gWorker;
// Stack-chan's tools: the catalog, its runner and the host-facing session.
sc::CharacterTools* gTools;
sc::SendVia<sc::Device>* gToHost;
sc::RealtimeSession* gToolSession;

// The CDC driver's readable (and TX-done) callback runs in the event loop
// task: it only wakes the worker.
void OnUsbEvent(void*, esp_event_base_t, int32_t, void*) {
  if (gWorker) xTaskNotifyGive(gWorker);
}

void ProtocolTask(void*) {
  static uint8_t rx[sc::kUsbReadBytes];  // static: the task stack is 8 KiB
  bool more = false;
  for (;;) {
    // Woken by the readable callback, at once when the last drain left
    // data, else after the 2 ms maintenance period (upstream's timer).
    if (!more) ulTaskNotifyTake(pdTRUE, pdMS_TO_TICKS(sc::kUsbMaintenanceMs));
    uint32_t now = millis();
    gDev->SetUsbConnected(UsbConnected(), now);
    more = sc::DrainRx(gUsb, rx, [&](const uint8_t* d, size_t n) { gDev->OnReceive(d, n, now); }).more;
    sc::TouchAction in;
    while (xQueueReceive(gInput, &in, 0) == pdTRUE) gDev->OnTouch(in, now);
    gMic.Poll(*gDev, now);
    gDev->Tick(now);
  }
}

}  // namespace

void setup() {
  auto cfg = M5.config();
  cfg.serial_baudrate = 0;  // USB CDC: line coding is irrelevant; no log output on it
  M5.begin(cfg);
  Serial.setRxBufferSize(sc::kUsbRxRingBytes);  // spec §25: RX 32 KiB
  Serial.setTxBufferSize(sc::kUsbTxRingBytes);  //           TX 16 KiB
  Serial.onEvent(ARDUINO_HW_CDC_RX_EVENT, OnUsbEvent);
  Serial.onEvent(ARDUINO_HW_CDC_TX_EVENT, OnUsbEvent);
  Serial.begin();

  gUiLock = xSemaphoreCreateMutex();
  gInput = xQueueCreate(16, sizeof(sc::TouchAction));
  gFace = new sc::FaceModel(esp_random());
  gFace->SetGlyphs(FaceHasGlyph);

  sc::DeviceConfig dc;
#if STACKCHAN_DIAGNOSTICS
  // The diagnostic build (env:m5stack-cores3-diagnostics): caps 0xFFF, so
  // the core sends DIAGNOSTICS; silent like upstream's diagnostic builds,
  // so a bench run of the PC tool does not blare a sine wave.
  // The core then plays at volume 0 whatever tts.volume says.
  dc.capabilities = sc::kFirmwareCapsDiag;
#endif
  dc.settings = &gSettings;  // tts.volume: read here, before any speaker session
  char token[9];
  snprintf(token, sizeof token, "%08lx", (unsigned long)esp_random());
  dc.bootToken = token;
  gDev = new sc::Device(dc, gUsb, gSpeaker, gMic, gSink);
  gDev->SetGlyphs(FaceHasGlyph);  // what efont lacks shows as a U+XXXX box
  // The tools' session: set before the worker starts, so no raw event is
  // missed; its event ids carry the boot token, unique across boots.
  gTools = new sc::CharacterTools(sc::ToolFaceOver(*gFace, [](const std::function<void()>& f) { WithUi(f); }));
  gToHost = new sc::SendVia<sc::Device>(*gDev);
  gToolSession = new sc::RealtimeSession(*gToHost, *gTools, sc::CharacterTools::Catalog(),
                                         sc::CharacterTools::Instructions(), token);
  gDev->SetRealtime(gToolSession);

  FaceBegin(M5.Display);
  xTaskCreatePinnedToCore(ProtocolTask, "dock", 8192, nullptr, 5, &gWorker, 0);
}

void loop() {
  M5.update();
  uint32_t now = millis();
  xSemaphoreTake(gUiLock, portMAX_DELAY);
  sc::DisplayList frame = gFace->Frame(now);  // a copy: drawn outside the lock
  bool approval = gFace->approvalVisible();
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
  sc::TouchAction in = sc::ActionFor(gTouch.Update(now, pts, n), approval);
  if (in != sc::TouchAction::None) xQueueSend(gInput, &in, 0);

  FaceDraw(M5.Display, frame);
  delay(16);
}
