#!/usr/bin/python3
"""Prints the failed tests of a Swift Testing xunit file, one line each with its message.
`make test` runs it when the suite fails: on a loaded machine the console has been seen to lose
lines, the issue lines among them, while the xunit file keeps every result."""
import sys
import xml.etree.ElementTree as ET

path = sys.argv[1]
try:
    cases = ET.parse(path).getroot().iter("testcase")
except (OSError, ET.ParseError) as e:
    sys.exit(f"no test results in {path}: {e}")
failed = [(c, f) for c in cases for f in c.findall("failure")]
for case, failure in failed:
    print(f"FAILED {case.get('classname')}.{case.get('name')}: {failure.get('message', '').strip()}")
print(f"{len(failed)} failure(s) recorded in {path}")
