#!/usr/bin/env python3
"""Smoke test of cores3-sim over a real pty and its control socket.

Plays the host: HELLO, a speaker session with a caption, an approval answered
by a touch, task.status, a head swipe and a microphone session. Fails (exit 1)
with the step that went wrong. Needs only the Python standard library.
"""
import json
import os
import select
import socket
import struct
import subprocess
import sys
import tempfile
import time
import tty

from dockhost import Host, control, frame


def event(msg_id, obj):
    data = json.dumps(obj, separators=(",", ":")).encode()
    assert len(data) <= 4096
    return frame(6, 3, msg_id, 0, 0, data)


class Ui:
    def __init__(self, sock):
        self.sock = sock
        self.buf = b""
        self.seen = []

    def expect(self, pred, what, timeout=3.0):
        end = time.time() + timeout
        for line in self.seen:
            if pred(line):
                self.seen.remove(line)
                return line
        while time.time() < end:
            r, _, _ = select.select([self.sock], [], [], 0.05)
            if r:
                self.buf += self.sock.recv(65536)
            while b"\n" in self.buf:
                raw, self.buf = self.buf.split(b"\n", 1)
                line = json.loads(raw)
                if pred(line):
                    return line
                self.seen.append(line)
        fail("no UI line with " + what + "; saw " + json.dumps(self.seen[-10:]))

    def send(self, cmd):
        self.sock.sendall((cmd + "\n").encode())


def fail(msg):
    print("sim smoke: FAIL: " + msg, file=sys.stderr)
    raise SystemExit(1)


def main():
    sim = sys.argv[1]
    master, slave = os.openpty()
    tty.setraw(master)
    tmp = tempfile.mkdtemp()
    sock_path = os.path.join(tmp, "cores3.sock")
    settings = os.path.join(tmp, "settings")
    proc = subprocess.Popen([sim, "--serial", os.ttyname(slave), "--control", "unix:" + sock_path,
                             "--boot-token", "a1b2c3d4", "--settings", settings], stdout=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if os.path.exists(sock_path):
                break
            time.sleep(0.02)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(sock_path)
        ui = Ui(s)
        host = Host(master)

        host.send(b"\xff\x00" + control(1, payload=struct.pack("<II", 4096, 0xF27)))
        ack = host.expect(lambda f: f[0] == 0 and f[1] == 2, "HELLO_ACK")
        if ack[5] != struct.pack("<II", 4096, 0xF7F):
            fail("HELLO_ACK payload " + ack[5].hex())

        host.send(control(48, payload=b"\x02"))
        ui.expect(lambda l: l.get("ui") == "status" and l.get("value") == "speaking", "status speaking")

        host.send(control(32, 2, 24000))
        credit = host.expect(lambda f: f[0] == 0 and f[1] == 33, "SPEAKER_CREDIT")
        if struct.unpack("<I", credit[5])[0] != 8192:
            fail("first credit is not 8192")
        host.send(control(37, 2, 24000, b"Hello from the Pi"))
        pcm = b"".join(struct.pack("<h", 4000 if i % 2 else -4000) for i in range(1920))
        host.send(frame(2, 0, 2, 0, 24000, pcm))
        host.send(frame(2, 0, 2, 1, 24000, pcm))
        host.send(control(34, 2, 24000))
        ui.expect(lambda l: l.get("ui") == "caption" and l.get("text") == "Hello from the Pi", "caption")
        host.expect(lambda f: f[0] == 0 and f[1] == 35 and f[2] == 2, "SPEAKER_DONE")
        ui.expect(lambda l: l.get("audio") == "played" and l.get("bytes") == 2 * len(pcm), "audio played")

        host.send(event(1, {"schema": "stackchan.event.v1", "type": "approval.request", "requestId": "approval-1",
                            "kind": "command", "title": "Run tests", "summary": "npm test", "detail": "npm test",
                            "truncated": False}))
        ev = host.expect(lambda f: f[0] == 6, "approval.presented")
        if json.loads(ev[5])["type"] != "approval.presented":
            fail("expected approval.presented, got " + ev[5].decode())
        ui.expect(lambda l: l.get("ui") == "approval" and l.get("requestId") == "approval-1", "approval screen")
        ui.send("down 300 230")  # a raw finger at the OK button's lower right corner
        ui.send("up")
        ev = host.expect(lambda f: f[0] == 6, "approval.response")
        resp = json.loads(ev[5])
        if resp.get("decision") != "approve":
            fail("expected approve, got " + ev[5].decode())
        host.send(event(2, {"schema": "stackchan.event.v1", "type": "approval.resolved", "requestId": "approval-1"}))
        ui.expect(lambda l: l.get("ui") == "face", "face after resolve")

        host.send(event(3, {"schema": "stackchan.event.v1", "type": "task.status", "requestId": "t1",
                            "state": "running"}))
        ui.expect(lambda l: l.get("ui") == "task" and l.get("state") == "running", "task running")

        # The Pi's raw settings event (no schema), then a volume swipe; both kept.
        host.send(event(5, {"type": "claude_pi.settings", "event_id": "pi-1", "tts": {"volume": 35}}))
        ui.expect(lambda l: l.get("ui") == "volume" and l.get("value") == 35, "volume 35 from the Pi")
        ui.send("swipe up")
        ui.expect(lambda l: l.get("ui") == "volume" and l.get("value") == 45, "volume 45 after a swipe up")
        if open(settings).read() != "tts.volume=45\n":
            fail("settings file: " + repr(open(settings).read()))
        shot = os.path.join(tmp, "screen.png")
        ui.send("screenshot " + shot)
        reply = ui.expect(lambda l: "screenshot" in l or "error" in l, "screenshot reply")
        if reply.get("screenshot") != shot or not open(shot, "rb").read().startswith(b"\x89PNG\r\n\x1a\n"):
            fail("screenshot: " + json.dumps(reply))

        ui.send("swipe forward")
        ev = host.expect(lambda f: f[0] == 6 and b"conversation.start" in f[5], "conversation.start")
        req = json.loads(ev[5])
        if req["requestId"] != "conversation-a1b2c3d4-1":
            fail("request id " + req["requestId"])
        host.send(event(4, {"schema": "stackchan.event.v1", "type": "conversation.result",
                            "requestId": req["requestId"], "success": True, "state": "listening"}))
        ui.expect(lambda l: l.get("ui") == "conversation" and l.get("state") == "listening", "conversation listening")

        host.send(control(16, 5, 16000))
        host.expect(lambda f: f[0] == 0 and f[1] == 17 and f[2] == 5, "MIC_STARTED")
        mic = host.expect(lambda f: f[0] == 1, "MICROPHONE_PCM")
        if len(mic[5]) != 640 or mic[3] != 0:
            fail("first mic frame: %d bytes, seq %d" % (len(mic[5]), mic[3]))
        host.send(control(18, 5, 16000))
        host.expect(lambda f: f[0] == 0 and f[1] == 19 and f[2] == 5, "MIC_STOPPED")

        ui.send("bogus")
        ui.expect(lambda l: "error" in l, "error for a bad command")
        ui.send("unplug")
        ui.expect(lambda l: l.get("ui") == "link" and l.get("state") == "disconnected", "link disconnected", timeout=2)
        ui.send("plug")
        ui.expect(lambda l: l.get("ui") == "link" and l.get("state") == "unsupported", "link back (no HELLO yet)", timeout=2)
        print("sim smoke: ok")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
        os.close(master)
        os.close(slave)


if __name__ == "__main__":
    main()
