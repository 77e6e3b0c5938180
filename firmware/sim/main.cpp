// cores3-sim: the firmware core on Linux as a virtual CoreS3. It speaks wire
// v2 on a tty (a pty slave made by the host side) and exposes the screen and
// touch panel as a line protocol on a unix socket (see control.h).
//
//   cores3-sim --serial /dev/pts/7 [--control unix:/tmp/cores3.sock]
//              [--mic-wav voice.wav] [--boot-token a1b2c3d4] [--caps 0xF7F]
//              [--diagnostics] [--settings PATH]
//
// --settings keeps tts.volume in PATH (KEY=VALUE lines, replaced
// atomically), the sim's NVS; without it the volume lives in memory.
// --diagnostics is the diagnostic build: caps 0xFFF and DIAGNOSTICS frames
// (the same as --caps with bit 7 set).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "control.h"
#include "device.h"
#include "face_model.h"
#include "raster.h"
#include "usb_io.h"
#include "facetools.h"
#include "session.h"
#include "wav.h"

namespace {

volatile sig_atomic_t gStop = 0;
void OnSignal(int) { gStop = 1; }

uint32_t NowMs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint32_t(uint64_t(ts.tv_sec) * 1000 + uint64_t(ts.tv_nsec) / 1000000);
}

class SerialPort : public sc::Transport, public sc::ByteSource {
 public:
  int fd = -1;
  bool readable = false;  // poll said POLLIN: one read is due
  // A pty has no cheap "bytes available": poll's POLLIN stands for it, and a
  // short read ends the drain.
  size_t Available() override { return readable ? sc::kUsbReadBytes : 0; }
  size_t Read(uint8_t* b, size_t n) override {
    ssize_t r = ::read(fd, b, n);
    readable = r == ssize_t(n);
    return r > 0 ? size_t(r) : 0;
  }
  size_t Write(const uint8_t* d, size_t n) override {
    ssize_t w = ::write(fd, d, n);
    return w > 0 ? size_t(w) : 0;  // EAGAIN: the host is slow; retried next tick
  }
};

// SimSpeaker plays in real time: it buffers at most 100 ms ahead, like a DMA
// ring, so credit and DONE timing match a real output.
class SimSpeaker : public sc::AudioOut {
 public:
  bool Begin(uint32_t r) override {
    rate_ = r;
    until_ = 0;
    return true;
  }
  size_t Writable(uint32_t now) override {
    double ahead = until_ > now ? until_ - now : 0;
    double room = 100.0 - ahead;
    return room <= 0 ? 0 : size_t(room * rate_ * 2 / 1000.0) & ~size_t(1);
  }
  bool Write(const uint8_t*, size_t n, uint32_t now) override {
    double start = until_ > now ? until_ : now;
    until_ = start + double(n) * 1000.0 / (rate_ * 2.0);
    return true;
  }
  bool Drained(uint32_t now) override { return double(now) >= until_; }
  size_t Buffered(uint32_t now) override {
    double ahead = until_ > now ? until_ - now : 0;
    return size_t(ahead * rate_ * 2 / 1000.0) & ~size_t(1);
  }
  void Stop() override { until_ = 0; }

 private:
  uint32_t rate_ = 24000;
  double until_ = 0;
};

// SimMic produces 20 ms frames from a WAV file (looped) or a 440 Hz tone.
class SimMic : public sc::AudioIn {
 public:
  std::vector<int16_t> wav;
  bool running = false;
  uint32_t next = 0;
  size_t pos = 0;
  bool Begin(uint32_t) override {
    running = true;
    next = NowMs() + 20;
    pos = 0;
    return true;
  }
  void End() override { running = false; }
  void Frame(uint8_t out[640]) {
    for (size_t i = 0; i < 320; i++) {
      int16_t v;
      if (!wav.empty()) {
        v = wav[pos++ % wav.size()];
      } else {
        v = int16_t(3000 * std::sin(2 * M_PI * 440.0 * double(pos++) / 16000.0));
      }
      sc::PutU16(out + 2 * i, uint16_t(v));
    }
  }
};

struct Client {
  int fd;
  std::string in;
};

int Usage(const char* msg) {
  std::fprintf(stderr,
               "cores3-sim: %s\nusage: cores3-sim --serial PATH [--control unix:PATH] [--mic-wav FILE] "
               "[--boot-token HEX8] [--caps 0xF7F] [--diagnostics] [--settings PATH]\n",
               msg);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string serialPath, controlPath, wavPath, token, settingsPath;
  uint32_t caps = sc::kFirmwareCaps;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "cores3-sim: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--serial") serialPath = val();
    else if (a == "--control") {
      controlPath = val();
      if (controlPath.rfind("unix:", 0) != 0) return Usage("--control wants unix:PATH");
      controlPath = controlPath.substr(5);
    } else if (a == "--mic-wav") wavPath = val();
    else if (a == "--boot-token") token = val();
    else if (a == "--caps") caps = uint32_t(std::strtoul(val().c_str(), nullptr, 0));
    else if (a == "--diagnostics") caps = sc::kFirmwareCapsDiag;
    else if (a == "--settings") settingsPath = val();
    else return Usage(("unknown argument " + a).c_str());
  }
  if (serialPath.empty()) return Usage("--serial is required");
  if (token.empty()) {
    char buf[9];
    std::snprintf(buf, sizeof buf, "%08x", unsigned(std::random_device{}()));
    token = buf;
  }

  signal(SIGINT, OnSignal);
  signal(SIGTERM, OnSignal);
  signal(SIGPIPE, SIG_IGN);

  SerialPort serial;
  serial.fd = open(serialPath.c_str(), O_RDWR | O_NOCTTY | O_NONBLOCK);
  if (serial.fd < 0) {
    std::fprintf(stderr, "cores3-sim: open %s: %s\n", serialPath.c_str(), std::strerror(errno));
    return 1;
  }
  termios tio;
  if (tcgetattr(serial.fd, &tio) == 0) {
    cfmakeraw(&tio);
    tcsetattr(serial.fd, TCSANOW, &tio);
  }

  SimMic mic;
  if (!wavPath.empty()) {
    std::string err;
    if (!sim::LoadWav16kMono(wavPath, &mic.wav, &err)) {
      std::fprintf(stderr, "cores3-sim: --mic-wav %s: %s\n", wavPath.c_str(), err.c_str());
      return 1;
    }
  }

  int listenFd = -1;
  if (!controlPath.empty()) {
    listenFd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (controlPath.size() >= sizeof addr.sun_path) return Usage("control socket path too long");
    std::strcpy(addr.sun_path, controlPath.c_str());
    unlink(controlPath.c_str());
    // Owner only: the socket presses buttons and writes screenshots.
    mode_t old = umask(0077);
    bool bound = bind(listenFd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    umask(old);
    if (!bound || listen(listenFd, 4) != 0) {
      std::fprintf(stderr, "cores3-sim: control socket %s: %s\n", controlPath.c_str(), std::strerror(errno));
      return 1;
    }
  }

  std::vector<Client> clients;
  sim::Touchscreen screen;
  auto emit = [&](const std::string& line) {
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
    std::string l = line + "\n";
    for (auto& c : clients)
      if (::write(c.fd, l.data(), l.size()) < 0) { /* a dead client is reaped on read */ }
  };
  sim::JsonUi json(emit);
  sc::FaceModel face(uint32_t(std::random_device{}()));
  sim::TeeUi ui(json, face);
  SimSpeaker speaker;
  sim::FileSettings settings(settingsPath);
  sc::DeviceConfig cfg;
  cfg.bootToken = token;
  cfg.capabilities = caps;
  if (!settingsPath.empty()) cfg.settings = &settings;
  sc::Device dev(cfg, serial, speaker, mic, ui);
  sim::SimFace toolFace;  // what Stack-chan's tools (core/tools.h) last did
  sc::CharacterTools tools(sim::ToolFaceFor(toolFace, face, json, emit));
  sc::SendVia<sc::Device> toHost(dev);
  sc::RealtimeSession tooling(toHost, tools, sc::CharacterTools::Catalog(), sc::CharacterTools::Instructions(), token);
  dev.SetRealtime(&tooling);

  bool plugged = true;
  uint32_t now = NowMs();
  dev.SetUsbConnected(true, now);
  std::fprintf(stderr, "cores3-sim: serial %s, boot token %s, caps 0x%X\n", serialPath.c_str(), token.c_str(), caps);

  std::vector<uint8_t> buf(sc::kUsbReadBytes);
  while (!gStop) {
    std::vector<pollfd> fds;
    fds.push_back({serial.fd, POLLIN, 0});
    if (listenFd >= 0) fds.push_back({listenFd, POLLIN, 0});
    for (auto& c : clients) fds.push_back({c.fd, POLLIN, 0});
    poll(fds.data(), fds.size(), 2);
    now = NowMs();

    if (fds[0].revents & (POLLHUP | POLLERR)) {
      // The host closed the pty master: nothing more can arrive.
      std::fprintf(stderr, "cores3-sim: serial closed, exiting\n");
      break;
    }
    if (fds[0].revents & POLLIN) {
      serial.readable = true;
      sc::DrainRx(serial, buf.data(), [&](const uint8_t* d, size_t n) {
        if (plugged) dev.OnReceive(d, n, now);
      });
    }
    if (listenFd >= 0 && (fds[1].revents & POLLIN)) {
      int c = accept4(listenFd, nullptr, nullptr, SOCK_NONBLOCK);
      if (c >= 0) clients.push_back({c, ""});
    }
    size_t base = listenFd >= 0 ? 2 : 1;
    for (size_t i = 0; i < clients.size();) {
      Client& c = clients[i];
      bool dead = false;
      if (base + i < fds.size() && (fds[base + i].revents & (POLLIN | POLLHUP))) {
        char tmp[512];
        ssize_t n = ::read(c.fd, tmp, sizeof tmp);
        if (n <= 0) dead = true;
        else c.in.append(tmp, size_t(n));
      }
      size_t nl;
      while ((nl = c.in.find('\n')) != std::string::npos) {
        std::string line = c.in.substr(0, nl);
        c.in.erase(0, nl + 1);
        sim::Command cmd = sim::ParseCommand(line);
        switch (cmd.kind) {
          case sim::CommandKind::Unplug: plugged = false; break;
          case sim::CommandKind::Plug: plugged = true; break;
          case sim::CommandKind::Screenshot: {
            sim::Canvas canvas;
            const sc::DisplayList& frame = face.Frame(now);
            canvas.Draw(frame);
            std::string err, reply;
            char hash[17];
            std::snprintf(hash, sizeof hash, "%016llx", (unsigned long long)frame.Hash());
            if (sim::WriteFileAtomic(cmd.path, sim::EncodePng(canvas), &err))
              reply = sc::json::Writer().str("screenshot", cmd.path).str("hash", hash).finish() + "\n";
            else
              reply = sc::json::Writer().str("error", "screenshot: " + err).finish() + "\n";
            if (::write(c.fd, reply.data(), reply.size()) < 0) dead = true;
            break;
          }
          case sim::CommandKind::Invalid: {
            std::string e = sc::json::Writer().str("error", cmd.error).finish() + "\n";
            if (::write(c.fd, e.data(), e.size()) < 0) dead = true;
            break;
          }
          default:  // a finger on the panel
            dev.OnTouch(screen.Apply(cmd, now, dev.approvals().View().visible), now);
            break;
        }
      }
      if (dead) {
        close(c.fd);
        clients.erase(clients.begin() + long(i));
        break;
      }
      i++;
    }

    dev.SetUsbConnected(plugged, now);
    if (mic.running && dev.mic().active()) {
      while (int32_t(now - mic.next) >= 0) {
        uint8_t frame[640];
        mic.Frame(frame);
        dev.OnMicFrame(frame, sizeof frame, now);
        mic.next += 20;
      }
    }
    dev.Tick(now);
    sim::TickFace(toolFace, json, now);
  }
  if (!controlPath.empty()) unlink(controlPath.c_str());
  return 0;
}
