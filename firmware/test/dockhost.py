"""A minimal dock host for the cores3-sim tests: wire v2 frames over a pty.

Written from the spec (shared/specs/stackchan-dock-protocol.md §2, §21.1),
standard library only. Used by sim_smoke.py and diag_check.py.
"""
import os
import select
import struct
import subprocess
import time
import tty
import zlib

TYPE_CONTROL, TYPE_MIC, TYPE_SPEAKER, TYPE_DIAGNOSTICS, TYPE_EVENT = 0, 1, 2, 5, 6
HELLO, HELLO_ACK, ERROR = 1, 2, 3
SPEAKER_START, SPEAKER_CREDIT, SPEAKER_END, SPEAKER_DONE, SPEAKER_ABORT, SPEAKER_TEXT = 32, 33, 34, 35, 36, 37


def frame(ftype, flags, stream, seq, rate, payload=b""):
    head = struct.pack("<HBBHHIII", 0x5343, 2, ftype, flags, stream, seq, rate, len(payload))
    body = head + payload
    return body + struct.pack("<I", zlib.crc32(body) & 0xFFFFFFFF)


def control(code, stream=0, rate=0, payload=b"", seq=0):
    return frame(TYPE_CONTROL, code, stream, seq, rate, payload)


# DIAGNOSTICS payload (spec §21.1): version, event, flags, then 12 u32.
DIAG_FIELDS = ("ticks", "rate", "queued", "writable", "received", "written", "received_frames",
               "writable_callbacks", "starvation", "max_receive_gap", "max_writable_gap", "tx_queue")
DIAG_EVENTS = {1: "session_started", 2: "audio_started", 3: "periodic", 4: "completed", 5: "aborted"}


def parse_diagnostics(payload):
    if len(payload) != 52:
        raise ValueError("DIAGNOSTICS payload is %d bytes, want 52" % len(payload))
    version, event, flags = struct.unpack_from("<BBH", payload)
    if version != 1:
        raise ValueError("DIAGNOSTICS version %d, want 1" % version)
    d = dict(zip(DIAG_FIELDS, struct.unpack_from("<12I", payload, 4)))
    d["event"] = DIAG_EVENTS.get(event, "unknown_%d" % event)
    d["flags"] = flags
    return d


class Host:
    """The host end of a pty: send bytes, read frames with a deadline."""

    def __init__(self, fd):
        self.fd = fd
        self.buf = b""
        self.pending = []

    def send(self, data):
        view = memoryview(data)
        while view:
            _, w, _ = select.select([], [self.fd], [], 1.0)
            if w:
                view = view[os.write(self.fd, view):]

    def poll(self, timeout):
        """Returns the frames that arrive within timeout seconds (maybe none)."""
        out = []
        r, _, _ = select.select([self.fd], [], [], timeout)
        if r:
            self.buf += os.read(self.fd, 65536)
        while len(self.buf) >= 24:
            i = self.buf.find(b"CS")
            if i < 0:
                self.buf = self.buf[-1:]
                break
            self.buf = self.buf[i:]
            if len(self.buf) < 24:
                break
            _, ver, ftype, flags, stream, seq, rate, n = struct.unpack("<HBBHHIII", self.buf[:20])
            if ver != 2 or ftype > 6 or n > 4096:
                self.buf = self.buf[1:]
                continue
            if len(self.buf) < 24 + n:
                break
            crc = struct.unpack("<I", self.buf[20 + n:24 + n])[0]
            if zlib.crc32(self.buf[:20 + n]) & 0xFFFFFFFF != crc:
                self.buf = self.buf[1:]
                continue
            out.append((ftype, flags, stream, seq, rate, self.buf[20:20 + n]))
            self.buf = self.buf[24 + n:]
        return out

    def frames(self, timeout):
        """Yields frames for timeout seconds; frames not taken stay queued."""
        end = time.time() + timeout
        while True:
            while self.pending:
                yield self.pending.pop(0)
            if time.time() >= end:
                return
            self.pending.extend(self.poll(0.05))

    def expect(self, pred, what, timeout=3.0):
        for f in self.frames(timeout):
            if pred(f):
                return f
        raise SystemExit("FAIL: no %s from the sim within %.1f s" % (what, timeout))


def start_sim(sim, *args):
    """Starts cores3-sim on a fresh pty; returns (process, master fd, slave fd)."""
    master, slave = os.openpty()
    tty.setraw(master)
    proc = subprocess.Popen([sim, "--serial", os.ttyname(slave)] + list(args), stdout=subprocess.DEVNULL)
    return proc, master, slave


def stop_sim(proc, *fds):
    proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    for fd in fds:
        os.close(fd)
