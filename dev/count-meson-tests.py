#!/usr/bin/env python3
"""Count checks in meson's testlog.json: each TAP result line of a test
that prints them, one for any other test.  Prints "PASSED FAILED"."""
import json
import re
import sys

passed = failed = 0
try:
    with open(sys.argv[1]) as f:
        entries = [json.loads(line) for line in f if line.strip()]
except OSError:
    print("0 1")
    sys.exit(0)
for t in entries:
    out = t.get("stdout") or ""
    ok = len(re.findall(r"^ok\b", out, re.M))
    notok = len(re.findall(r"^not ok\b", out, re.M))
    # testlog.json does not say which tests speak TAP: their output does.
    if ok + notok:
        passed += ok
        failed += notok
        if t.get("result") not in ("OK", "EXPECTEDFAIL") and notok == 0:
            failed += 1
    elif t.get("result") in ("OK", "EXPECTEDFAIL"):
        passed += 1
    else:
        # Failed, timed out, or skipped: a skipped test is not a pass.
        failed += 1
print(passed, failed)
