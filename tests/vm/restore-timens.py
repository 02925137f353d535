#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A process in a time namespace of its own (unshare --time with offsets)
dumped, killed and restored in the same boot: it comes back in a time
namespace with the same offsets, so that CLOCK_MONOTONIC and
CLOCK_BOOTTIME read as they would have without the checkpoint, and a
The snapshot's header carries the
offsets, and crib-inspect shows them; a second dump of the restored
process holds the same offsets again.  TAP."""
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, "/usr/local/libexec/crib/tests/dump-lib")
from dumptest import dump, inspect_json, read  # noqa: E402
from restoretest import adopt_orphans, reap, restore, wait_for  # noqa: E402
from tap import Tap  # noqa: E402

t = Tap()
tmp = os.environ.get("TMPDIR", "/tmp")
MONOTONIC_S, BOOTTIME_S = 86400, 2 * 86400

# Prints CLOCK_MONOTONIC in ns whenever the file it names appears.
CLOCK_READER = """
import os, sys, time
ask, answer = sys.argv[1], sys.argv[2]
while True:
    if os.path.exists(ask):
        os.unlink(ask)
        with open(answer + '.tmp', 'w') as f:
            f.write('%d %d' % (time.clock_gettime_ns(time.CLOCK_MONOTONIC),
                               time.clock_gettime_ns(time.CLOCK_BOOTTIME)))
        os.rename(answer + '.tmp', answer)
    time.sleep(0.05)
"""


def offsets(pid):
    """{clock: seconds} of /proc/PID/timens_offsets."""
    return {m.group(1): int(m.group(2)) for m in
            re.finditer(r"^(\w+)\s+(-?\d+)\s+\d+$", read("/proc/%d/timens_offsets" % pid), re.M)}


def ask_clocks(ask, answer):
    """The reader's CLOCK_MONOTONIC and CLOCK_BOOTTIME, and ours, in ns."""
    if os.path.exists(answer):
        os.unlink(answer)
    open(ask, "w").close()
    if not wait_for(lambda: os.path.exists(answer), 20, 0.05):
        return None
    mono, boot = (int(v) for v in read(answer).split())
    return (mono, boot, time.clock_gettime_ns(time.CLOCK_MONOTONIC),
            time.clock_gettime_ns(time.CLOCK_BOOTTIME))


def clocks_shifted(c):
    """The reader's clocks are ours plus the offsets, within 5 s."""
    return c and abs(c[0] - c[2] - MONOTONIC_S * 10**9) < 5 * 10**9 and \
        abs(c[1] - c[3] - BOOTTIME_S * 10**9) < 5 * 10**9


def header_offsets(snap):
    header = [r["fields"] for r in inspect_json(snap)["records"] if r["type"] == "header"][0]
    return header["timens_monotonic_ns"], header["timens_boottime_ns"]


def test_restore():
    ask, answer = os.path.join(tmp, "timens-ask"), os.path.join(tmp, "timens-answer")
    p = subprocess.Popen(["unshare", "--time", "--fork", "--monotonic", str(MONOTONIC_S),
                          "--boottime", str(BOOTTIME_S), sys.executable, "-c", CLOCK_READER,
                          ask, answer], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    pid = None
    try:
        if not t.check(wait_for(lambda: open("/proc/%d/task/%d/children" %
                                             (p.pid, p.pid)).read().split(), 10),
                       "the reader runs in a new time namespace"):
            return
        pid = int(open("/proc/%d/task/%d/children" % (p.pid, p.pid)).read().split()[0])
        t.check(clocks_shifted(ask_clocks(ask, answer)), "its clocks are shifted")
        snap = os.path.join(tmp, "timens.crib")
        rc, err = dump(pid, snap)
        if not t.eq(rc, 0, "dumped (the time namespace's clocks are carried)"):
            t.diag(err)
            return
        p.wait()
        t.eq(header_offsets(snap), (MONOTONIC_S * 10**9, BOOTTIME_S * 10**9),
             "the header holds the offsets")
        summary = subprocess.run(["crib-inspect", snap], stdout=subprocess.PIPE).stdout.decode()
        t.check("time namespace offsets: monotonic +86400.000 s, boottime +172800.000 s"
                in summary, "crib-inspect shows them", summary)
        rc, err = restore(snap)
        if not t.eq(rc, 0, "restored in the same boot"):
            t.diag(err)
            return
        t.eq(offsets(pid), {"monotonic": MONOTONIC_S, "boottime": BOOTTIME_S},
             "the restored process is in a time namespace with the same offsets")
        t.check(os.readlink("/proc/%d/ns/time" % pid) != os.readlink("/proc/self/ns/time"),
                "... not in ours")
        t.check(clocks_shifted(ask_clocks(ask, answer)),
                "its clocks go on from where they were")
        rc, err = dump(pid, snap + ".again", "--leave-running")
        if t.eq(rc, 0, "the restored process dumps again"):
            t.eq(header_offsets(snap + ".again"), header_offsets(snap),
                 "... with the same offsets")
    finally:
        if pid:
            reap(pid)
        p.kill()
        p.wait()


def test_initial():
    """A process in crib-dump's time namespace: no offsets, and none made."""
    p = subprocess.Popen(["sleep", "600"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    try:
        snap = os.path.join(tmp, "no-timens.crib")
        rc, err = dump(p.pid, snap)
        if not t.eq(rc, 0, "a process in the initial time namespace dumped"):
            t.diag(err)
            return
        p.wait()
        t.eq(header_offsets(snap), (0, 0), "... no offsets in the header")
        rc, err = restore(snap)
        if t.eq(rc, 0, "... restored"):
            t.eq(os.readlink("/proc/%d/ns/time" % p.pid), os.readlink("/proc/self/ns/time"),
                 "... in crib-restore's time namespace")
            reap(p.pid)
    finally:
        p.kill()
        p.wait()


adopt_orphans()
for test in (test_restore, test_initial):
    try:
        test()
    except Exception as e:
        t.check(False, "%s raised %r" % (test.__name__, e))
sys.exit(t.done())
