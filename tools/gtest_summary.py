#!/usr/bin/env python3
"""One Markdown table of GoogleTest programs' outcomes, from their --gtest_output=json files:
per program the tests passed, failed and skipped, and the failed ones named. A failure that says a
real model is missing (tests/support/paths.cpp: its weights could not be had, as on a GPU machine
where they did not travel) is counted apart from the others.

Run: python3 tools/gtest_summary.py LOG_DIR PROGRAM...   (reads LOG_DIR/PROGRAM.json)
"""
import json
import sys
from pathlib import Path

MISSING_MODEL = "a real test model is missing"


def outcomes(report):
    passed, skipped, failed, missing = 0, 0, [], []
    for suite in report.get("testsuites", []):
        for test in suite.get("testsuite", []):
            name = f"{suite['name']}.{test['name']}"
            failures = [f.get("failure", "") for f in test.get("failures", [])]
            if not failures:
                skipped += test.get("result") == "SKIPPED" or test.get("status") == "NOTRUN"
                passed += test.get("result") != "SKIPPED" and test.get("status") != "NOTRUN"
            elif any(MISSING_MODEL in f for f in failures):
                missing.append(name)
            else:
                failed.append(name)
    return passed, skipped, failed, missing


def main():
    logs, programs = Path(sys.argv[1]), sys.argv[2:]
    print("| suite | passed | skipped | failed | failed for want of real weights | the other failures |")
    print("| --- | --- | --- | --- | --- | --- |")
    bad = False
    for program in programs:
        path = logs / f"{program}.json"
        if not path.exists():
            started = [l for l in (logs / f"{program}.out").read_text(errors="replace").splitlines() if l.startswith("[ RUN")]
            last = f"; it stopped in {started[-1].split()[-1]}" if started else ""
            print(f"| {program} | - | - | - | - | no report: the program did not finish{last} (see {program}.out) |")
            bad = True
            continue
        passed, skipped, failed, missing = outcomes(json.loads(path.read_text()))
        bad |= bool(failed)
        named = ", ".join(failed[:12]) + (f" and {len(failed) - 12} more" if len(failed) > 12 else "")
        print(f"| {program} | {passed} | {skipped} | {len(failed)} | {len(missing)} | {named} |")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
