#!/usr/bin/env python3
"""Writes the libFuzzer seed corpus: each line of SEEDS/settings.txt as one
input with the selector byte of the settings decoder (2) and of the event
decoder (0); each line of SEEDS/session.txt with the session decoder's (4),
and the whole file as one input (a session's worth of raw events).
Usage: seed_corpus.py SEEDS OUT."""
import os
import sys


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
    return 0


if __name__ == "__main__":
    sys.exit(main())
