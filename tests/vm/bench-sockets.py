#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The socket benchmark's programs on a tiny case, so that they keep
working: sock-target sets up its sockets, sock-facts reads the same facts
through the dump_sockets CRIB program and the procfs way (procfs,
sock_diag, getsockopt()) and times both, and the driver runs through once
(--quick).  No timing is checked.  TAP."""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, "/usr/local/libexec/crib/tests/dump-lib")
from dumptest import read  # noqa: E402
from tap import Tap  # noqa: E402

BENCH = "/usr/local/libexec/crib/bench"
N = 80

t = Tap()


def start_target(workdir, n):
    ready = os.path.join(workdir, "ready")
    proc = subprocess.Popen([os.path.join(BENCH, "sock-target"), "--sockets", str(n), ready],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    for _ in range(1200):
        if os.path.exists(ready) or proc.poll() is not None:
            break
        subprocess.run(["sleep", "0.05"])
    return proc, read(ready) if os.path.exists(ready) else ""


def sock_facts(pid, *args):
    r = subprocess.run([os.path.join(BENCH, "sock-facts"), "-p", str(pid)] + list(args),
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return r.returncode, r.stdout.decode(), r.stderr.decode()


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
    proc, ready = start_target(workdir, N)
    try:
        words = ready.split()
        counts = dict(zip(words[0::2], (int(w) for w in words[1::2])))
        t.eq(counts.get("sockets"), N, "sock-target reports %d sockets" % N)
        t.eq(socket_kinds(proc.pid), (counts.get("tcp"), counts.get("udp"), counts.get("unix")),
             "procfs agrees with sock-target on TCP, UDP and UNIX sockets")
        rc, out, err = sock_facts(proc.pid, "--compare")
        t.check(rc == 0 and "compare sockets %d differences 0\n" % N in out,
                "sock-facts --compare: the CRIB program and the procfs way read the same facts",
                out + err)
        # Twice: the procfs way's repair-mode visits must leave the sockets as they were.
        rc, out, err = sock_facts(proc.pid, "--compare")
        t.check(rc == 0 and "differences 0\n" in out, "... and again, after that visit",
                out + err)
        rc, out, err = sock_facts(proc.pid, "--budget", "0", "--warmup", "1", "--min-reps", "2",
                                  "--max-reps", "2")
        lines = [line.split() for line in out.splitlines()]
        methods = {w[1]: w for w in lines if w[0] == "method"}
        t.check(rc == 0 and ["sockets", str(N), "tcp", str(counts.get("tcp")), "udp",
                             str(counts.get("udp")), "unix", str(counts.get("unix"))] in lines,
                "sock-facts timing: every run read the %d sockets" % N, out + err)
        t.check(sorted(methods) == ["crib-program", "procfs-diag"] and
                all(w[3] == "2" and float(w[5]) > 0 for w in methods.values()),
                "sock-facts timing: two runs of both ways", out)
    finally:
        proc.kill()
        proc.wait()
    rc, out, err = sock_facts(proc.pid, "--compare")
    t.check(rc == 1 and "pidfd_open(%d)" % proc.pid in err,
            "sock-facts on a process that is gone: exit 1, saying so", (rc, err))


def check_driver(workdir):
    out_path = os.path.join(workdir, "results.md")
    r = subprocess.run([os.path.join(BENCH, "sockets.py"), "--quick", "--output", out_path],
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    t.eq(r.returncode, 0, "sockets.py --quick runs through")
    if r.returncode:
        t.diag(r.stderr.decode(errors="replace")[-3000:])
    text = read(out_path) if os.path.exists(out_path) else ""
    t.check(any(line.startswith("| 60 |") for line in text.splitlines()),
            "... and writes its table", text)


with tempfile.TemporaryDirectory() as workdir:
    check_facts(workdir)
with tempfile.TemporaryDirectory() as workdir:
    check_driver(workdir)
sys.exit(t.done())
