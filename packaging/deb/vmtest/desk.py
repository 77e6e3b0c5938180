#!/usr/bin/env python3
"""desk.py JOB: a stand-in for the Claude desktop app inside the power-cut
guest, over the sim board's NUS socket (the same newline-delimited JSON the
app sends over BLE, buddy-protocol.md). It loops until killed (or the power
goes):

  stats  a heartbeat with a new prompt, then button A pressed through the
         sim's web API: each approval is an urgent stats save
         (stats.json, by temp + fsync + rename + directory fsync)
  pack   a folder push (char_begin, file, chunk, file_end, char_end) of a
         text-mode pack, "alpha" and "beta" in turn, each with a 64 KiB
         pad.txt that names its pack on every line: each char_end swaps
         packs/current
  both   the two in turn, on one link (the NUS socket has one desktop)

After each step it appends what the Pi acknowledged to /host/desk.log, so
the checks after a cut know the newest state that was durable on the Pi.
check: prints what packs/current holds ("none", "alpha", "beta") after
verifying it is whole, or exits 1 saying what is torn.
"""
import base64
import json
import os
import socket
import sys
import time
import urllib.request

NUS = ("127.0.0.1", 8331)
WEB = "http://127.0.0.1:8330"
PACKS = "/var/lib/claude-pi/packs/current"


def pad(name):
    line = ("pack %s " % name).ljust(63, "x") + "\n"
    return (line * 1024).encode()


def manifest(name):
    frames = {"frames": ["(%s)" % name, "[%s]" % name], "delay": 200}
    return json.dumps({"name": name, "mode": "text",
                       "states": {"idle": frames, "busy": frames, "attention": frames}}).encode()


class Link:
    def __init__(self):
        deadline = time.time() + 60
        while True:
            try:
                self.s = socket.create_connection(NUS, timeout=10)
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.5)
        self.buf = b""

    def send(self, obj):
        self.s.sendall(json.dumps(obj).encode() + b"\n")

    def recv(self, want, timeout=15):
        """The next line for which want(obj) is true."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                try:
                    obj = json.loads(line)
                except ValueError:
                    continue
                if want(obj):
                    return obj
            self.s.settimeout(max(0.1, deadline - time.time()))
            try:
                b = self.s.recv(65536)
            except socket.timeout:
                break
            if not b:
                raise EOFError("the Pi closed the NUS link")
            self.buf += b
        raise TimeoutError("no answer from the Pi")

    def ack(self, cmd, timeout=15):
        a = self.recv(lambda o: o.get("ack") == cmd, timeout)
        if not a.get("ok"):
            raise RuntimeError("%s refused: %s" % (cmd, a))
        return a


def log(line):
    with open("/host/desk.log", "a") as f:
        f.write(line + "\n")
        f.flush()
        os.fsync(f.fileno())


def heartbeat(prompt=None):
    hb = {"total": 1, "running": 1, "waiting": 1 if prompt else 0, "msg": "working",
          "entries": ["power-cut test"], "tokens": 1000, "tokens_today": 100}
    if prompt:
        hb["prompt"] = prompt
    return hb


def approve(link, n):
    """One prompt, approved with button A; an urgent stats save on the Pi."""
    pid = "req_cut_%d_%d" % (os.getpid(), n)
    link.send(heartbeat({"id": pid, "tool": "Bash", "hint": "make test"}))
    time.sleep(0.3)
    # The prompt's screen may first need a press to wake; press until decided.
    for _ in range(10):
        req = urllib.request.Request(WEB + "/api/press/A", method="POST", data=b"")
        urllib.request.urlopen(req, timeout=5).read()
        try:
            link.recv(lambda o: o.get("cmd") == "permission" and o.get("id") == pid, 2)
            break
        except TimeoutError:
            continue
    else:
        raise RuntimeError("prompt %s never decided" % pid)
    link.send(heartbeat())
    log("approved %s" % pid)


def stats_job():
    link = Link()
    n = 0
    while True:
        n += 1
        approve(link, n)


def both_job():
    """Approvals and pack pushes in turn, on the one link."""
    link = Link()
    n = 0
    while True:
        n += 1
        approve(link, n)
        name = ("alpha", "beta")[n % 2]
        push(link, name)
        log("installed %s" % name)


def push(link, name):
    files = [("pad.txt", pad(name)), ("manifest.json", manifest(name))]
    total = sum(len(b) for _, b in files)
    link.send({"cmd": "char_begin", "name": name, "total": total})
    link.ack("char_begin")
    for path, data in files:
        link.send({"cmd": "file", "path": path, "size": len(data)})
        link.ack("file")
        for i in range(0, len(data), 256):
            link.send({"cmd": "chunk", "d": base64.b64encode(data[i:i + 256]).decode()})
            link.ack("chunk")
        link.send({"cmd": "file_end"})
        link.ack("file_end")
    link.send({"cmd": "char_end"})
    link.ack("char_end")


def pack_job():
    link = Link()
    n = 0
    while True:
        name = ("alpha", "beta")[n % 2]
        push(link, name)
        log("installed %s" % name)
        n += 1


def check():
    """What packs/current holds, verified whole."""
    try:
        with open(os.path.join(PACKS, "manifest.json"), "rb") as f:
            m = json.loads(f.read())
    except FileNotFoundError:
        print("none")
        return 0
    name = m.get("name")
    if name not in ("alpha", "beta"):
        print("packs/current/manifest.json names %r" % name)
        return 1
    with open(os.path.join(PACKS, "pad.txt"), "rb") as f:
        if f.read() != pad(name):
            print("packs/current/pad.txt is not %s's whole pad" % name)
            return 1
    print(name)
    return 0


if __name__ == "__main__":
    job = sys.argv[1] if len(sys.argv) > 1 else ""
    if job == "stats":
        stats_job()
    elif job == "pack":
        pack_job()
    elif job == "both":
        both_job()
    elif job == "check":
        sys.exit(check())
    else:
        sys.exit("usage: desk.py stats|pack|both|check")
