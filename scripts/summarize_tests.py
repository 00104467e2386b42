"""Sums up one run of scripts/test.sh from the JUnit XML files its parts wrote (ctest's
--output-junit, pytest's --junitxml): a line per part with its counts and its failed tests,
each by name with one line on why (pytest's failure message; for ctest the last exception
its output shows), so that a log cut to its last lines still says it; the cases skipped
inside tests that passed (a ctest test runs a Python file of unittest cases under -v: its
own outcome is one for all of them), the slowest tests of the whole run, and a closing
line 'tests: N passed, N failed, N skipped' (a part without a report counts as one
failure: it crashed or was never reached). Exits 1 if anything failed.
    python3 scripts/summarize_tests.py [--slowest N] PART=REPORT.xml ..."""
import argparse
import os
import re
import sys
import xml.etree.ElementTree as ET

# unittest -v: "test_name (module.Class.test_name) ... skipped 'reason'", with the first
# line of the test's docstring, if it has one, on a line of its own before the " ... ".
SKIPPED_CASE = re.compile(r"^(\w+) \([\w.]+\)(?:\n[^\n]*?)? \.\.\. skipped '(.*)'$", re.M)
# A Python exception's last line in a traceback ("TimeoutError: timed out").
EXCEPTION_LINE = re.compile(r"^(?:[\w.]+\.)?\w*(?:Error|Exception|Exit)\b.*$", re.M)
PYTEST_E = re.compile(r"^E\s+")  # the prefix of the error lines in pytest's report
# The line in a failed test's report that says what failed beneath it: a Snakemake job,
# Spack, one of our tools ("deltameta_client: error: ..."), docker/cluster.sh.
CAUSE_LINE = re.compile(r"^(?:Error in rule |==> Error: |[\w.-]+: error: |cluster: )")
REASON_CHARS = 300  # of the one line printed after a failed test's name


def failure_reason(case):
    """One line on why a failed case failed: pytest's failure message (its first line, and
    the first line of the report that names a cause beneath it, CAUSE_LINE, where there is
    one), else the last exception line in the failure's text or the test's output
    (ctest's), else ''."""
    failed = case.find("failure")
    if failed is None:
        failed = case.find("error")
    message = (failed.get("message") or "").strip()
    if message and message != "Failed":  # ctest's message is always "Failed"
        first, cause = message.splitlines()[0], ""
        for line in (failed.text or "").splitlines():  # pytest's whole report; E-prefixed lines
            line = PYTEST_E.sub("", line).strip()
            if CAUSE_LINE.match(line) and line not in first:
                cause = line[:REASON_CHARS // 2]
                break
        first = first[:REASON_CHARS - len(cause) - 5] if cause else first[:REASON_CHARS]
        return f"{first} ... {cause}" if cause else first
    out = case.find("system-out")
    text = (failed.text or "") + "\n" + (out.text if out is not None and out.text else "")
    found = EXCEPTION_LINE.findall(text)
    return found[-1].strip()[:REASON_CHARS] if found else ""


def skipped_inside(case):
    """(case name, reason) of each unittest case that a ctest test's output says it skipped."""
    out = case.find("system-out")
    return SKIPPED_CASE.findall(out.text or "") if out is not None else []


def cases(path):
    """(name, seconds, outcome, skipped cases inside it, why it failed) of every test case in
    a JUnit XML file; outcome is one of passed, failed, skipped (ctest's 'disabled' and
    'notrun' count as skipped)."""
    root = ET.parse(path).getroot()
    for case in root.iter("testcase"):
        name, cls = case.get("name", "?"), case.get("classname") or ""
        if cls and cls != name:  # pytest's: the test's module, dotted
            name = f"{cls.replace('.', '/')}.py::{name}"
        if case.find("failure") is not None or case.find("error") is not None:
            outcome = "failed"
        elif case.find("skipped") is not None or case.get("status") in ("disabled", "notrun"):
            outcome = "skipped"
        else:
            outcome = "passed"
        why = failure_reason(case) if outcome == "failed" else ""
        yield name, float(case.get("time") or 0), outcome, skipped_inside(case), why


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--slowest", type=int, default=15, help="how many of the slowest tests to list")
    ap.add_argument("parts", nargs="+", metavar="PART=REPORT.xml")
    args = ap.parse_args(argv)
    totals = {"passed": 0, "failed": 0, "skipped": 0}
    timed, broken = [], []
    for spec in args.parts:
        part, _, path = spec.partition("=")
        if not os.path.exists(path) or os.path.getsize(path) == 0:
            broken.append(part)
            print(f"{part}: no report ({path}): the part did not run to its end (its output above says why)")
            continue
        try:
            found = list(cases(path))
        except ET.ParseError as e:
            broken.append(part)
            print(f"{part}: unreadable report {path}: {e}")
            continue
        counts = {k: sum(1 for _, _, o, _, _ in found if o == k) for k in totals}
        for k in totals:
            totals[k] += counts[k]
        timed += [(secs, f"{part}: {name}") for name, secs, _, _, _ in found]
        inside = [(name, sub, why) for name, _, outcome, skips, _ in found if outcome == "passed"
                  for sub, why in skips]
        print(f"{part}: {counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped"
              + (f" (unittest cases skipped inside passed tests: {len(inside)})" if inside else ""))
        for name, _, outcome, _, why in found:
            if outcome == "failed":
                print(f"  FAILED {name}" + (f": {why}" if why else ""))
        for name, sub, why in inside:
            print(f"  skipped inside {name}: {sub}: {why}")
    if args.slowest:
        print(f"slowest {min(args.slowest, len(timed))} tests:")
        for secs, name in sorted(timed, reverse=True)[:args.slowest]:
            print(f"  {secs:8.1f} s  {name}")
    if broken:  # each counts as one failure: what it would have tested is unknown
        print(f"parts without a report: {', '.join(broken)}")
        totals["failed"] += len(broken)
    print(f"tests: {totals['passed']} passed, {totals['failed']} failed, {totals['skipped']} skipped")
    return 1 if totals["failed"] or broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
