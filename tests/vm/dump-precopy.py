#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""crib-dump --pre-copy: memory copied while the process runs, then only
what it wrote since, once frozen.  A stopped process dumped both ways
gives the same snapshot; the pages come last in the stream; a process
that keeps writing its memory is let go before its pages are written
out (with --leave-running), and its snapshot holds every page as the
freeze found it (restore-workloads.py restores one); a copy larger than
half the memory available is refused.  TAP."""
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, "/usr/local/libexec/crib/tests/dump-lib")
from dumptest import Workload, dump, inspect_json, read  # noqa: E402
from tap import Tap  # noqa: E402

t = Tap()


def kib(err, pattern):
    """The number @pattern (one group) finds in crib-dump -v's output, or None."""
    m = re.search(pattern, err)
    return int(m.group(1)) if m else None


def stopped_both_ways():
    w = Workload("heap", "16", "@DIR@/ready")
    try:
        os.kill(w.pid, signal.SIGSTOP)
        plain, pre = w.path("plain.crib"), w.path("pre.crib")
        rc, err = dump(w.pid, plain, "--leave-running")
        t.check(rc == 0, "a stopped process dumps", err)
        rc, err = dump(w.pid, pre, "--leave-running", "--pre-copy", "-v")
        if not t.check(rc == 0, "... and dumps with --pre-copy", err):
            return
        copied = kib(err, r"pre-copied (\d+) KiB of 1 processes")
        t.check(copied is not None and copied >= 16 * 1024 * 2 // 3,
                "... which copied its touched memory first", err)
        kept = kib(err, r"(\d+) KiB of memory kept")
        clean = kib(err, r"KiB of memory kept, (\d+) KiB of it from the pre-copy")
        t.check(kept and clean and kept - clean < 256,
                "... and took nearly all of it from that copy (nothing was written)", err)
        r = subprocess.run(["crib-inspect", "--diff", "--ignore-volatile", plain, pre],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        t.check(r.returncode == 0, "the two snapshots do not differ", r.stdout)
        kinds = [rec["type"] for rec in inspect_json(pre)["records"]]
        first = kinds.index("pages") if "pages" in kinds else len(kinds)
        t.check(set(kinds[first:-2]) == {"pages"} and kinds[-2:] == ["dump_stats", "trailer"],
                "the --pre-copy snapshot carries its pages last, before its dump_stats",
                kinds[first:])
        os.kill(w.pid, signal.SIGCONT)
        time.sleep(2.5)
        t.check(w.alive() and not os.path.exists(w.path("ready.bad")),
                "the process runs on, its memory unchanged")
    finally:
        w.stop()


def let_go_first():
    w = Workload("churn", "16", "@DIR@/ready")
    try:
        snap = w.path("snap.crib")
        rc, err = dump(w.pid, snap, "--leave-running", "--pre-copy", "--fast", "-v")
        if not t.check(rc == 0, "a process rewriting its memory dumps with --pre-copy --fast",
                       err):
            return
        lines = err.splitlines()
        let_go = [i for i, line in enumerate(lines) if "let go, writing the memory" in line]
        written = [i for i, line in enumerate(lines) if re.search(r"\d+ pages, \d+ of them zero",
                                                                 line)]
        t.check(let_go and written and let_go[0] < written[0],
                "... it is let go before its pages are written out", err)
        kept = kib(err, r"(\d+) KiB of memory kept")
        clean = kib(err, r"KiB of memory kept, (\d+) KiB of it from the pre-copy")
        t.check(kept is not None and kept >= 16 * 1024 and clean is not None and clean < kept,
                "... the pages it wrote meanwhile are read again once it is frozen", err)
        r = subprocess.run(["crib-inspect", "--verify", snap], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        t.check(r.returncode == 0, "the snapshot verifies", r.stdout)
        time.sleep(1.5)
        t.check(w.alive() and not os.path.exists(w.path("ready.bad")),
                "the process runs on, its own check passing",
                read(w.path("ready.bad")) if os.path.exists(w.path("ready.bad")) else None)
    finally:
        w.stop()


def mem_available_mib():
    for line in read("/proc/meminfo").splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) // 1024
    return 0


def too_large():
    """A copy larger than half the memory available is refused up front."""
    w = Workload("heap", str(mem_available_mib() * 6 // 10), "@DIR@/ready", timeout=600)
    try:
        snap = w.path("snap.crib")
        rc, err = dump(w.pid, snap, "--pre-copy", "--leave-running")
        t.check(rc == 1 and "--pre-copy would hold" in err and "available" in err,
                "--pre-copy of more than half the available memory: exit 1, saying so",
                (rc, err))
        t.check(w.alive() and not os.path.exists(snap),
                "... the process runs on, no snapshot file left")
    finally:
        w.stop()


def main():
    stopped_both_ways()
    let_go_first()
    too_large()


try:
    main()
except Exception as e:  # a crash is a failure
    t.check(False, "raised %r" % (e,))
sys.exit(t.done())
