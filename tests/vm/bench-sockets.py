#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The socket benchmark's programs on a tiny case, so that they keep
working: sock-target sets up its sockets, sock-facts reads the same facts
through the dump_sockets CRIB program and the procfs way (procfs,
sock_diag, getsockopt()) and times both, and the driver runs through once
(--quick).  No timing is checked.  TAP."""
import os
import re
import sys
import tempfile

sys.path.insert(0, "/usr/local/libexec/crib/tests/dump-lib")
from benchtest import check_timing, quick_run, run_facts, start_target  # noqa: E402
from dumptest import read  # noqa: E402
from tap import Tap  # noqa: E402

N = 80

t = Tap()


def socket_kinds(pid):
    """(TCP, UDP, UNIX) sockets of @pid, counted from /proc/net by inode."""
    inodes = set()
    for fd in os.listdir("/proc/%d/fd" % pid):
        m = re.match(r"socket:\[(\d+)\]", os.readlink("/proc/%d/fd/%s" % (pid, fd)))
        if m:
            inodes.add(int(m.group(1)))
    counts = []
    for tables, col in ((("tcp", "tcp6"), 9), (("udp", "udp6"), 9), (("unix",), 6)):
        n = 0
        for name in tables:
            for line in read("/proc/net/" + name).splitlines()[1:]:
                f = line.split()
                n += int(f[col]) in inodes
        counts.append(n)
    return tuple(counts)


def check_facts(workdir):
    proc, ready = start_target(workdir, "sock-target", "--sockets", str(N))
    try:
        words = ready.split()
        counts = dict(zip(words[0::2], (int(w) for w in words[1::2])))
        t.eq(counts.get("sockets"), N, "sock-target reports %d sockets" % N)
        t.eq(socket_kinds(proc.pid), (counts.get("tcp"), counts.get("udp"), counts.get("unix")),
             "procfs agrees with sock-target on TCP, UDP and UNIX sockets")
        rc, out, err = run_facts("sock-facts", proc.pid, "--compare")
        t.check(rc == 0 and "compare sockets %d differences 0\n" % N in out,
                "sock-facts --compare: the CRIB program and the procfs way read the same facts",
                out + err)
        # Twice: the procfs way's repair-mode visits must leave the sockets as they were.
        rc, out, err = run_facts("sock-facts", proc.pid, "--compare")
        t.check(rc == 0 and "differences 0\n" in out, "... and again, after that visit",
                out + err)
        check_timing(t, "sock-facts", proc.pid,
                     ["sockets", str(N), "tcp", str(counts.get("tcp")), "udp",
                      str(counts.get("udp")), "unix", str(counts.get("unix"))],
                     "the %d sockets" % N, ["crib-program", "procfs-diag"])
    finally:
        proc.kill()
        proc.wait()
    rc, out, err = run_facts("sock-facts", proc.pid, "--compare")
    t.check(rc == 1 and "no process with pid %d" % proc.pid in err,
            "sock-facts on a process that is gone: exit 1, saying so", (rc, err))


def check_driver(workdir):
    text = quick_run(t, "sockets.py", workdir)
    t.check(any(line.startswith("| 60 |") for line in text.splitlines()),
            "... and writes its table", text)


with tempfile.TemporaryDirectory() as workdir:
    check_facts(workdir)
with tempfile.TemporaryDirectory() as workdir:
    check_driver(workdir)
sys.exit(t.done())
