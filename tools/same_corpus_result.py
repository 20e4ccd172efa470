#!/usr/bin/env python3
"""Checks that two corpus results (attnscope-cli corpus / merge) hold the same run: the same
number of windows, every integer accumulator identical and every float64 one within 1e-6 of
the first's largest value. Exit status 1 with the first difference otherwise.

  python3 tools/same_corpus_result.py EXPECTED.json ACTUAL.json
"""
import base64
import json
import struct
import sys


def main():
    expected, actual = (json.load(open(p)) for p in sys.argv[1:3])
    if actual["windows"] != expected["windows"]:
        sys.exit(f"windows differ: {actual['windows']} against {expected['windows']}")
    for name, t in expected["accumulators"].items():
        a, b = base64.b64decode(t["data"]), base64.b64decode(actual["accumulators"][name]["data"])
        if t["dtype"] == "int64":
            if a != b:
                sys.exit(f"{name} differs")
            continue
        x, y = struct.unpack(f"<{len(a) // 8}d", a), struct.unpack(f"<{len(b) // 8}d", b)
        scale = max([1.0] + [abs(v) for v in x])
        gap = max([0.0] + [abs(u - v) for u, v in zip(x, y)])
        if len(x) != len(y) or gap > 1e-6 * scale:
            sys.exit(f"{name} differs by {gap} (scale {scale})")
    print(f"same run: {expected['windows']} windows, counts identical, sums within 1e-6")


if __name__ == "__main__":
    main()
