#!/usr/bin/python3
"""Prints the failed tests of a Swift Testing xunit file, one line each with its message, then
where each child that crashed during the run crashed (its crash report, see TestEnvironment.child).
`make test` runs it when the suite fails: on a loaded machine the console has been seen to lose
lines, the issue lines among them, while the xunit file keeps every result."""
import os
import sys
import xml.etree.ElementTree as ET

REPORTS = "/tmp/gpick-tests/crash-reports"


def crashed_thread(path, frames=12):
    """The report's first line and the crashed thread's first frames."""
    with open(path, errors="replace") as f:
        lines = f.read().splitlines()
    head = [l for l in lines[:1] if l.strip()]
    for i, line in enumerate(lines):
        if line.startswith("Thread ") and line.rstrip().endswith("crashed:"):
            body = []
            for l in lines[i + 1:]:
                if l.startswith("Thread ") or len(body) == frames:
                    break
                if l.strip():
                    body.append(l)
            return head + [line] + body
    return head

path = sys.argv[1]
try:
    cases = ET.parse(path).getroot().iter("testcase")
except (OSError, ET.ParseError) as e:
    sys.exit(f"no test results in {path}: {e}")
failed = [(c, f) for c in cases for f in c.findall("failure")]
for case, failure in failed:
    print(f"FAILED {case.get('classname')}.{case.get('name')}: {failure.get('message', '').strip()}")
print(f"{len(failed)} failure(s) recorded in {path}")
# This run's reports: written since `make test` began (it touches test-started beside the results).
try:
    since = os.path.getmtime(os.path.join(os.path.dirname(path), "test-started"))
    reports = sorted(e.path for e in os.scandir(REPORTS) if e.is_file() and e.stat().st_mtime >= since)
except OSError:
    reports = []
for report in reports:
    print(f"crash report {report}:")
    for line in crashed_thread(report):
        print(f"  {line}")
