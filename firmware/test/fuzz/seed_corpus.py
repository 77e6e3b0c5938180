#!/usr/bin/env python3
"""Writes the libFuzzer seed corpus: each line of SEEDS/settings.txt as one
input with the selector byte of the settings decoder (2) and of the event
decoder (0); each line of SEEDS/session.txt with the session decoder's (4),
and the whole file as one input (a session's worth of raw events); and cut
frames for the parser, untimed (1) and timed (3).
Usage: seed_corpus.py SEEDS OUT."""
import os
import struct
import sys
import zlib


def main():
    seeds, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    n = 0
    with open(os.path.join(seeds, "settings.txt"), "rb") as f:
        for line in f:
            line = line.rstrip(b"\n")
            if not line:
                continue
            for sel in (0, 2):  # as a settings event, and through Classify
                with open(os.path.join(out, "seed-%d-%d" % (sel, n)), "wb") as o:
                    o.write(bytes([sel]) + line)
            n += 1
    with open(os.path.join(seeds, "session.txt"), "rb") as f:
        lines = [l.rstrip(b"\n") for l in f if l.strip()]
    for i, line in enumerate(lines):
        with open(os.path.join(out, "seed-4-%d" % i), "wb") as o:
            o.write(bytes([4]) + line)
    with open(os.path.join(out, "seed-4-all"), "wb") as o:
        o.write(bytes([4]) + b"\n".join(lines))
    # Cut-off frames (README "Cut-off frames"): 40 bytes of a frame that
    # promises 4096, then a HELLO, untimed (1) and as timed reads (3) of
    # [gap x 8 ms][length-1][bytes], the HELLO 100 ms and 600 ms later.
    cut = frame(2, 0, 1, 24000, bytes(4096))[:40]
    hello = frame(0, 1, 0, 0, struct.pack("<II", 4096, 0xF27))
    status = frame(0, 48, 0, 0, bytes([0]))
    seeds = {
        "seed-1-cut-hello": bytes([1]) + cut + hello,
        "seed-3-cut-hello-100ms": bytes([3, 0, len(cut) - 1]) + cut + bytes([12, len(hello) - 1]) + hello,
        "seed-3-cut-hello-600ms": bytes([3, 0, len(cut) - 1]) + cut + bytes([75, len(hello) - 1]) + hello,
        "seed-3-cut-heartbeats": bytes([3, 0, len(cut) - 1]) + cut + (bytes([25, len(status) - 1]) + status) * 4,
    }
    for name, b in seeds.items():
        with open(os.path.join(out, name), "wb") as o:
            o.write(b)
    return 0


def frame(typ, flags, stream, rate, payload):
    """A wire v2 frame (spec §2)."""
    head = b"CS" + bytes([2, typ]) + struct.pack("<HHIII", flags, stream, 0, rate, len(payload))
    body = head + payload
    return body + struct.pack("<I", zlib.crc32(body) & 0xFFFFFFFF)


if __name__ == "__main__":
    sys.exit(main())
