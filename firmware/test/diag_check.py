#!/usr/bin/env python3
"""Speaker figures of the diagnostic cores3-sim, checked from its DIAGNOSTICS.

Our own host-side check (spec §21.1): a 10 s speaker session at 24 kHz with a
caption, sent credit-driven as upstream's PC tool does, against
`cores3-sim --diagnostics`. It fails unless the firmware reports
0 starvation events, 0 credit violations and DIAGNOSTICS at about 10 Hz, and
its byte counters agree with what was sent.

About 10 Hz, exactly: every periodic report must sit in its own slot of the
100 ms grid that starts at the session_started report (device ticks), and
at least half the slots must have one (the sim is not real-time: a loaded
2-core CI machine can stall it past a slot, and the firmware then skips the
slot rather than bursting).

Credit violations, as seen on the wire: a report whose received bytes exceed
the credit granted before it (the firmware took PCM it never allowed), or
whose outstanding credit exceeds the 8 KiB window, or whose queue (received
minus written) exceeds 1 s; any ERROR frame; host credit going negative.

Then, when STACKCHAN_UPSTREAM_DIAG names upstream Stack-chan's
firmware/scripts/usb-audio-diagnostics.py, that tool runs against fresh sims
in its speaker, paced and caption-stress modes and must agree (exit 0,
0 starvation, ~10 Hz of CSV rows, no negative host credit). Without it the
check says SKIP on one line. It needs pyserial (Debian: python3-serial).

    python3 test/diag_check.py build/cores3-sim
"""
import csv
import math
import os
import re
import select
import struct
import subprocess
import sys
import tempfile
import threading
import time
import tty

from dockhost import (DIAG_EVENTS, ERROR, HELLO, HELLO_ACK, SPEAKER_CREDIT, SPEAKER_DONE, SPEAKER_END,
                      SPEAKER_START, SPEAKER_TEXT, TYPE_CONTROL, TYPE_DIAGNOSTICS, TYPE_SPEAKER, Host, control,
                      frame, parse_diagnostics, start_sim, stop_sim)

CREDIT_WINDOW = 8192
HOST_CAPS = 0x37F  # what upstream's tool sends: no EVENT, no DIAGNOSTICS asked
FW_DIAG_BIT = 1 << 7
# The firmware reports on a 100 ms grid of its own clock (checked exactly);
# the rate bounds leave room for a loaded machine stalling the sim's loop.
MIN_HZ, MAX_HZ = 5.0, 10.5


def fail(msg):
    raise SystemExit("diag check: FAIL: " + msg)


def sine(rate, samples, first):
    return b"".join(struct.pack("<h", round(8000 * math.sin(2 * math.pi * 440 * (first + i) / rate)))
                    for i in range(samples))


class Run:
    """One credit-driven speaker session and everything seen on the wire."""

    def __init__(self, host, rate, frame_ms):
        self.host, self.rate = host, rate
        self.frame_bytes = rate * 2 * frame_ms // 1000
        self.credit = self.granted = 0
        self.sent = self.frames = 0
        self.done = False
        self.errors = []
        self.reports = []  # (host seconds, report, credit granted before it)
        self.negative_credit = 0

    def handle(self, f):
        ftype, code, stream, _, _, payload = f
        if ftype == TYPE_CONTROL and code == ERROR:
            self.errors.append((stream, struct.unpack("<I", payload)[0] if len(payload) == 4 else -1))
        elif ftype == TYPE_CONTROL and stream == 1 and code == SPEAKER_CREDIT:
            n = struct.unpack("<I", payload)[0]
            self.credit += n
            self.granted += n
        elif ftype == TYPE_CONTROL and stream == 1 and code == SPEAKER_DONE:
            self.done = True
        elif ftype == TYPE_DIAGNOSTICS and stream == 1:
            self.reports.append((time.monotonic(), parse_diagnostics(payload), self.granted))

    def pump(self, timeout):
        for f in self.host.poll(timeout):
            self.handle(f)

    def send_pcm(self):
        pcm = sine(self.rate, self.frame_bytes // 2, self.sent // 2)
        self.host.send(frame(TYPE_SPEAKER, 0, 1, self.frames, self.rate, pcm))
        self.credit -= len(pcm)
        if self.credit < 0:
            self.negative_credit += 1
        self.sent += len(pcm)
        self.frames += 1


def handshake(host):
    deadline, next_hello = time.monotonic() + 8, 0.0
    while time.monotonic() < deadline:
        if time.monotonic() >= next_hello:
            host.send(control(HELLO, payload=struct.pack("<II", 4096, HOST_CAPS)))
            next_hello = time.monotonic() + 0.5
        for f in host.poll(0.01):
            if f[0] == TYPE_CONTROL and f[1] == HELLO_ACK:
                return struct.unpack("<II", f[5])
    fail("no HELLO_ACK within 8 s")


def speaker_session(host, rate, seconds, frame_ms=80, caption="diagnostics: a 440 Hz tone"):
    run = Run(host, rate, frame_ms)
    started = time.monotonic()
    host.send(control(SPEAKER_START, 1, rate))
    deadline = time.monotonic() + 3
    while run.credit < run.frame_bytes and time.monotonic() < deadline:
        run.pump(0.01)
    if run.credit < run.frame_bytes:
        fail("no initial SPEAKER_CREDIT within 3 s")
    host.send(control(SPEAKER_TEXT, 1, rate, caption.encode()))
    target = round(seconds * 1000 / frame_ms)
    while run.frames < target:
        run.pump(0.001)
        while run.credit >= run.frame_bytes and run.frames < target:
            run.send_pcm()
        if run.errors:
            fail("ERROR frames while streaming: %r" % run.errors)
    host.send(control(SPEAKER_END, 1, rate))
    deadline = time.monotonic() + max(10, seconds + 5)
    while not run.done and time.monotonic() < deadline:
        run.pump(0.01)
    if not run.done:
        fail("no SPEAKER_DONE within %d s of SPEAKER_END" % max(10, seconds + 5))
    run.elapsed = time.monotonic() - started
    run.pump(0.1)  # anything trailing
    return run


def figures(run):
    """The checked figures of one run, and the list of what is wrong."""
    wrong = []
    if run.errors:
        wrong.append("ERROR frames: %r" % run.errors)
    if not run.reports:
        return {}, wrong + ["no DIAGNOSTICS on stream 1"]
    events = [r["event"] for _, r, _ in run.reports]
    if events[0] != "session_started":
        wrong.append("first report is %s, want session_started" % events[0])
    if events.count("audio_started") != 1:
        wrong.append("%d audio_started reports, want 1" % events.count("audio_started"))
    if events[-1] != "completed":
        wrong.append("last report is %s, want completed" % events[-1])
    violations = run.negative_credit
    for _, r, granted in run.reports:
        if r["received"] > granted or granted - r["received"] > CREDIT_WINDOW:
            violations += 1
        if r["received"] - r["written"] > run.rate * 2:
            violations += 1
    final = run.reports[-1][1]
    starvation = max(r["starvation"] for _, r, _ in run.reports)
    periodic = [(t, r) for t, r, _ in run.reports if r["event"] == "periodic"]
    if len(periodic) < 2:
        return {}, wrong + ["%d periodic reports" % len(periodic)]
    start = run.reports[0][1]["ticks"]
    slots = [((r["ticks"] - start) & 0xFFFFFFFF) // 100 for _, r in periodic]
    off_grid = sum(1 for a, b in zip([0] + slots, slots) if b <= a)
    if off_grid:
        wrong.append("%d periodic reports share a 100 ms slot or precede the first one: slots %r" % (off_grid, slots))
    span_ms = (periodic[-1][1]["ticks"] - periodic[0][1]["ticks"]) & 0xFFFFFFFF
    device_hz = (len(periodic) - 1) * 1000.0 / span_ms if span_ms else 0
    host_hz = (len(periodic) - 1) / (periodic[-1][0] - periodic[0][0])
    fig = {
        "reports": len(run.reports), "periodic": len(periodic), "device_hz": device_hz, "host_hz": host_hz,
        "starvation": starvation, "credit_violations": violations, "sent": run.sent,
        "received": final["received"], "written": final["written"], "max_receive_gap": final["max_receive_gap"],
        "max_writable_gap": final["max_writable_gap"], "writable_callbacks": final["writable_callbacks"],
        "elapsed": run.elapsed, "slots": slots[-1],
    }
    if starvation:
        wrong.append("%d starvation events" % starvation)
    if violations:
        wrong.append("%d credit violations" % violations)
    if not MIN_HZ <= device_hz <= MAX_HZ:
        wrong.append("periodic reports at %.2f Hz of device time, want %.1f-%.1f" % (device_hz, MIN_HZ, MAX_HZ))
    if not MIN_HZ - 1 <= host_hz <= MAX_HZ + 2:
        wrong.append("periodic reports at %.2f Hz at the host" % host_hz)
    if not run.sent == final["received"] == final["written"]:
        wrong.append("sent %d, firmware received %d and wrote %d" % (run.sent, final["received"], final["written"]))
    return fig, wrong


def check_ours(sim, rate=24000, seconds=10):
    proc, master, slave = start_sim(sim, "--diagnostics", "--boot-token", "d1a90000")
    try:
        host = Host(master)
        _, caps = handshake(host)
        if not caps & FW_DIAG_BIT:
            fail("the diagnostic sim advertises caps 0x%x without bit 7" % caps)
        run = speaker_session(host, rate, seconds)
    finally:
        stop_sim(proc, master, slave)
    fig, wrong = figures(run)
    if wrong:
        fail("; ".join(wrong))
    print("diag check: ours, %d Hz, %.0f s of PCM in %.1f s: %d reports, periodic in %d of %d grid slots, "
          "%.2f Hz (device) / %.2f Hz (host), "
          "starvation %d, credit violations %d, sent %d = received %d = written %d, max receive gap %d ms, "
          "max writable gap %d ms, %d writable callbacks" % (
              rate, seconds, fig["elapsed"], fig["reports"], fig["periodic"], fig["slots"], fig["device_hz"],
              fig["host_hz"], fig["starvation"],
              fig["credit_violations"], fig["sent"], fig["received"], fig["written"], fig["max_receive_gap"],
              fig["max_writable_gap"], fig["writable_callbacks"]))


# ---- upstream's tool, when present


def relay(a, b, stop):
    """Copies bytes both ways between two pty masters until stop is set."""
    peer = {a: b, b: a}
    while not stop.is_set():
        r, _, _ = select.select([a, b], [], [], 0.05)
        for fd in r:
            try:
                data = os.read(fd, 65536)
            except OSError:  # the tool closed its side (EIO); keep waiting
                continue
            view = memoryview(data)
            while view and not stop.is_set():
                try:
                    view = view[os.write(peer[fd], view):]
                except BlockingIOError:
                    time.sleep(0.001)
                except OSError:
                    break


def check_upstream(sim, tool, name, args, seconds):
    proc, sim_master, sim_slave = start_sim(sim, "--diagnostics")
    tool_master, tool_slave = os.openpty()
    tty.setraw(tool_master)
    stop = threading.Event()
    t = threading.Thread(target=relay, args=(sim_master, tool_master, stop), daemon=True)
    t.start()
    out_dir = tempfile.mkdtemp(prefix="stackchan-diag-")
    csv_path = os.path.join(out_dir, name + ".csv")
    try:
        res = subprocess.run([sys.executable, tool, "--port", os.ttyname(tool_slave), "--output", csv_path] + args,
                             capture_output=True, text=True, timeout=seconds + 40)
    finally:
        stop.set()
        t.join()
        stop_sim(proc, sim_master, sim_slave, tool_master, tool_slave)
    if res.returncode != 0:
        fail("upstream tool, %s mode, exit %d:\n%s%s" % (name, res.returncode, res.stdout, res.stderr))
    summary = dict(re.findall(r"(\w+)=(-?\d+)", res.stdout.strip().splitlines()[-1]))
    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    snaps = [r for r in rows if r["event"] == "snapshot"]
    negative = sum(1 for r in rows if int(r["host_credit_bytes"]) < 0)
    hz = (len(snaps) - 1) * 1000.0 / (float(snaps[-1]["host_ms"]) - float(snaps[0]["host_ms"])) if len(snaps) > 1 else 0
    wrong = []
    if int(summary.get("starvation_events", -1)) != 0:
        wrong.append("starvation_events=%s" % summary.get("starvation_events"))
    if negative:
        wrong.append("%d rows with negative host credit" % negative)
    if summary.get("sent_bytes") != summary.get("received_bytes"):
        wrong.append("sent_bytes=%s received_bytes=%s" % (summary.get("sent_bytes"), summary.get("received_bytes")))
    if seconds >= 2 and not MIN_HZ - 1 <= hz <= MAX_HZ + 2:
        wrong.append("snapshots at %.2f Hz" % hz)
    if wrong:
        fail("upstream tool, %s mode: %s\n%s" % (name, "; ".join(wrong), res.stdout))
    print("diag check: upstream %s mode agrees: %s, %d CSV rows, snapshots %.2f Hz, 0 negative host credit" % (
        name, res.stdout.strip().splitlines()[-1], len(rows), hz))


UPSTREAM_MODES = [
    ("speaker", ["--sample-rate", "24000", "--duration", "10", "--caption", "upstream speaker mode"], 10),
    ("paced", ["--mode", "paced", "--sample-rate", "24000", "--duration", "10", "--caption", "paced"], 10),
    ("caption-stress", ["--sample-rate", "24000", "--duration", "3", "--initial-caption-count", "16",
                        "--initial-caption-bytes", "1024", "--combined-initial-pcm-frames", "2"], 3),
]


def main():
    sim = sys.argv[1]
    check_ours(sim)
    tool = os.environ.get("STACKCHAN_UPSTREAM_DIAG", "")
    if not tool:
        print("diag check: upstream usb-audio-diagnostics.py: SKIP (set STACKCHAN_UPSTREAM_DIAG to its path; "
              "it needs python3-serial)")
        return
    if not os.path.isfile(tool):
        fail("STACKCHAN_UPSTREAM_DIAG=%s: no such file" % tool)
    if subprocess.run([sys.executable, "-c", "import serial"], capture_output=True).returncode != 0:
        fail("STACKCHAN_UPSTREAM_DIAG is set but pyserial is missing: apt-get install python3-serial")
    for name, args, seconds in UPSTREAM_MODES:
        check_upstream(sim, tool, name, args, seconds)


if __name__ == "__main__":
    main()
