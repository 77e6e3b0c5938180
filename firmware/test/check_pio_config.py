#!/usr/bin/env python3
"""Checks platformio.ini without PlatformIO (it cannot be installed here).

* Every platform, platform package and library is pinned to one exact
  version ("name @ 1.2.3"): no ^, ~, ranges, URLs or bare names.
* The unused ArduinoJson is gone; M5Unified and M5GFX are both pinned.
* [env:native] reads the same flag files as the Makefile, and builds the
  same non-test sources as `make test`; [env:coverage] extends it.
* The diagnostic env adds STACKCHAN_DIAGNOSTICS=1 to the release flags.

Run from firmware/ (make config). Exit 1 with what is wrong.
"""
import configparser
import glob
import re
import sys

EXACT = re.compile(r"^[\w.-]+/[\w.-]+ @ \d+(\.\d+)*(\+[\w.-]+)?$")


def values(cfg, section, key):
    raw = cfg.get(section, key, fallback="")
    return [v.strip() for v in raw.splitlines() if v.strip() and not v.strip().startswith(";")]


def main():
    cfg = configparser.ConfigParser(interpolation=None, inline_comment_prefixes=None)
    cfg.read("platformio.ini")
    makefile = open("Makefile").read()
    wrong = []

    dev = "env:m5stack-cores3"
    pins = values(cfg, dev, "platform") + values(cfg, dev, "platform_packages") + values(cfg, dev, "lib_deps")
    pins += values(cfg, "env:native", "platform")
    for pin in pins:
        if not EXACT.match(pin):
            wrong.append("not an exact pin: %r (want owner/name @ x.y.z)" % pin)
    libs = " ".join(values(cfg, dev, "lib_deps")).lower()
    if "arduinojson" in libs:
        wrong.append("ArduinoJson is still a dependency (the core has its own JSON reader)")
    for lib in ("m5stack/m5unified @", "m5stack/m5gfx @"):
        if lib not in libs:
            wrong.append("%s is not pinned in lib_deps" % lib.rstrip(" @"))
    if "framework-arduinoespressif32 @ 3.20017." not in " ".join(values(cfg, dev, "platform_packages")):
        wrong.append("the Arduino core is not pinned to the 2.0.17 line (3.20017.x)")

    native = values(cfg, "env:native", "build_flags")
    for flags in ("native.flags", "sanitize.flags"):
        if "!cat %s" % flags not in native:
            wrong.append("[env:native] does not read %s" % flags)
        if "$(shell cat %s)" % flags not in makefile:
            wrong.append("the Makefile does not read %s" % flags)
    if any(f.startswith("-std=") or f.startswith("-W") or f.startswith("-fsanitize") for f in native):
        wrong.append("[env:native] defines flags of its own that belong in native.flags/sanitize.flags: %r" % native)

    src = values(cfg, "env:native", "build_src_filter")
    pio_src = set()
    for pattern in re.findall(r"\+<\.\./([^>]+)>", " ".join(src)):
        pio_src.update(glob.glob(pattern))
    lib_src = re.search(r"^SIM_LIB_SRC := (.*)$", makefile, re.M).group(1).split()
    make_src = set(glob.glob("core/*.cpp")) | set(lib_src)
    if pio_src != make_src:
        wrong.append("[env:native] builds %s, make test builds %s" % (sorted(pio_src), sorted(make_src)))

    if cfg.get("env:coverage", "extends", fallback="") != "env:native":
        wrong.append("[env:coverage] does not extend env:native")
    cov = values(cfg, "env:coverage", "build_flags")
    if "${env:native.build_flags}" not in cov or "--coverage" not in cov:
        wrong.append("[env:coverage] must be env:native's flags plus --coverage: %r" % cov)
    diag = values(cfg, "env:m5stack-cores3-diagnostics", "build_flags")
    if "${env:m5stack-cores3.build_flags}" not in diag or "-DSTACKCHAN_DIAGNOSTICS=1" not in diag:
        wrong.append("the diagnostic env must be the release flags plus -DSTACKCHAN_DIAGNOSTICS=1: %r" % diag)

    if wrong:
        for w in wrong:
            print("platformio.ini: " + w, file=sys.stderr)
        return 1
    print("platformio.ini: %d exact pins, one flag source with the Makefile, native sources agree" % len(pins))
    return 0


if __name__ == "__main__":
    sys.exit(main())
