#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""crib-dump --fast on memory with scattered zero pages (bench-target
--heap-mix: one page in four zeros): the short runs of zeros stay in the
records of the data around them, so that the records are large enough to
be stored rather than compressed, where the default writes every run of
zeros as a record of its own.  TAP."""
import os
import subprocess
import sys
import time

sys.path.insert(0, "/usr/local/libexec/crib/tests/dump-lib")
from dumptest import dump, inspect_json, records  # noqa: E402
from tap import Tap  # noqa: E402

TARGET = "/usr/local/libexec/crib/bench/bench-target"
STORED_MIN = 128 << 10      # a record with more data than this is stored
t = Tap()


def data_records(path):
    return [p["data"]["len"] for p in records(inspect_json(path), "pages") if "data" in p]


def main():
    work = "/tmp/crib-dump-fast"
    os.makedirs(work, exist_ok=True)
    ready = os.path.join(work, "ready")
    if os.path.exists(ready):
        os.unlink(ready)
    proc = subprocess.Popen([TARGET, "--mem", "8", "--heap-mix", ready],
                            stdin=subprocess.DEVNULL)
    try:
        while not os.path.exists(ready) and proc.poll() is None:
            time.sleep(0.05)
        fast, compact = os.path.join(work, "fast.crib"), os.path.join(work, "compact.crib")
        rc, err = dump(proc.pid, fast, "--leave-running", "--fast")
        t.check(rc == 0, "--fast dumps memory with scattered zero pages", err)
        rc, err = dump(proc.pid, compact, "--leave-running", "--compact")
        t.check(rc == 0, "... and so does the default, --compact", err)
        for path in (fast, compact):
            r = subprocess.run(["crib-inspect", "--verify", path], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            t.check(r.returncode == 0, "%s verifies" % os.path.basename(path), r.stdout)
        big = [n for n in data_records(fast) if n > STORED_MIN]
        t.check(sum(big) >= 8 << 20,
                "--fast: the 8 MiB, zero pages included, lie in records large enough to "
                "be stored", data_records(fast))
        small = [n for n in data_records(compact) if n <= 3 * 4096]
        t.check(len(small) >= 8 * 1024 // 16,
                "the default writes the runs between zero pages as records of their own",
                len(small))
        t.check(os.path.getsize(fast) >= 8 << 20 and os.path.getsize(compact) < 4 << 20,
                "--fast stores the memory as it is; the default compresses it",
                (os.path.getsize(fast), os.path.getsize(compact)))
    finally:
        proc.kill()
        proc.wait()


try:
    main()
except Exception as e:  # a crash is a failure
    t.check(False, "raised %r" % (e,))
sys.exit(t.done())
