#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The socket benchmark, run in the guest (./crib-dev bench sockets boots it).

  sockets.py [--quick] [--output FILE]

Reads what a dump needs to know about every socket of a sock-target
process (family, type, state, addresses, TCP sequence numbers and window,
queue sizes, options) through the dump_sockets CRIB program and the way
CRIU gathers it (procfs, sock_diag, getsockopt() on pidfd_getfd() copies):
sock-facts first checks that both ways read the same facts, then times
them.  Prints the results as markdown and writes them to FILE.  --quick
runs one tiny case once (a functional check, not a measurement).  See
bench/README.md.
"""
import os
import shutil
import signal
import subprocess
import sys
import time

import benchlib

BENCH = "/usr/local/libexec/crib/bench"
WORK = "/tmp/crib-bench-sockets"
# (sockets, time budget in seconds)
CASES = [(100, 10), (1000, 20), (4000, 30)]
QUICK_CASES = [(60, 0)]
MSGS = benchlib.Messages("sockets.py")
fail = MSGS.fail
log = MSGS.log


class Target:
    """A sock-target with N sockets, ready."""

    def __init__(self, n, timeout=600):
        self.dir = os.path.join(WORK, "target")
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        ready = os.path.join(self.dir, "ready")
        with open(os.path.join(self.dir, "output"), "w") as out:
            self.proc = subprocess.Popen([os.path.join(BENCH, "sock-target"), "--sockets",
                                          str(n), ready], stdin=subprocess.DEVNULL,
                                         stdout=out, stderr=out)
        self.pid = self.proc.pid
        deadline = time.monotonic() + timeout
        while not os.path.exists(ready):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                fail("sock-target %d did not get ready: %s" % (n, self.output()))
            time.sleep(0.05)
        words = open(ready).read().split()
        self.counts = dict(zip(words[0::2], (int(w) for w in words[1::2])))
        if self.counts["sockets"] != n:
            self.stop()
            fail("sock-target made %d sockets, not %d" % (self.counts["sockets"], n))

    def output(self):
        return open(os.path.join(self.dir, "output")).read().strip()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def run(argv, what):
    return benchlib.run(MSGS, argv, what)


def measure(case, quick):
    n, budget = case
    log("%d sockets" % n)
    target = Target(n)
    try:
        facts = [os.path.join(BENCH, "sock-facts"), "-p", str(target.pid)]
        # Timing two ways of reading different facts would mean nothing.
        run(facts + ["--compare"], "sock-facts --compare (%d sockets)" % n)
        out = run(facts + ["--budget", str(budget), "--warmup", "0" if quick else "2",
                           "--min-reps", "1" if quick else "5", "--max-reps", "101"],
                  "sock-facts (%d sockets)" % n)
    finally:
        target.stop()
    row = {}
    for line in out.splitlines():
        w = line.split()
        if w[0] == "sockets":
            row.update(zip(w[0::2], (int(x) for x in w[1::2])))
        elif w[0] == "clock":
            row["tsc_mhz"] = float(w[2])
        elif w[0] == "method":
            row[w[1]] = {"reps": int(w[3]), "median": int(w[5]) / 1e6}
        elif w[0] == "stage":
            row.setdefault("stages", {})[w[2]] = int(w[4]) / 1e6
    if any(k not in row for k in ("sockets", "tsc_mhz", "crib-program", "procfs-diag", "stages")):
        fail("sock-facts said:\n" + out)
    for key in ("sockets", "tcp", "udp", "unix"):
        if row[key] != target.counts[key]:
            fail("sock-facts read %d %s sockets, sock-target has %d" %
                 (row[key], key, target.counts[key]))
    return row


def ms(v):
    return "%.3g" % v if v < 100 else "%.0f" % v


def report(rows, quick):
    lines = benchlib.context("one tiny case, one repetition" if quick else None,
                             ["Clock: the TSC (%.0f MHz, measured against the guest's clock)." %
                              rows[0]["tsc_mhz"]])
    out = ["# Socket benchmark results", ""] + [line + "  " for line in lines]
    out += ["", "Median milliseconds per read of every socket's facts (family, type, state, "
            "addresses, TCP sequence numbers and window, queue sizes, options); both ways "
            "were first checked to read the same facts, socket by socket.", "",
            "| sockets | TCP | UDP | UNIX | runs | CRIB program | procfs + sock_diag + "
            "getsockopt | CRIB / procfs | procfs / CRIB |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        c, p = r["crib-program"]["median"], r["procfs-diag"]["median"]
        out.append("| %d | %d | %d | %d | %d | %s ms | %s ms | %.1f%% | %.1fx |" % (
            r["sockets"], r["tcp"], r["udp"], r["unix"], r["crib-program"]["reps"], ms(c),
            ms(p), 100.0 * c / p, p / c))
    stages = ["fds", "proc-net", "sock-diag", "getsockopt"]
    out += ["", "Where the procfs way's time goes: the median of each stage (listing "
            "/proc/PID/fd and reading its links; parsing /proc/net/{tcp,tcp6,udp,udp6,unix}; "
            "the inet_diag and unix_diag dumps; pidfd_getfd(), getsockopt(), the queue "
            "ioctls and TCP_REPAIR on each socket).", "",
            "| sockets | " + " | ".join(stages) + " |",
            "|---:|" + "---:|" * len(stages)]
    for r in rows:
        out.append("| %d | %s |" % (r["sockets"], " | ".join(
            "%s ms" % ms(r["stages"][s]) for s in stages)))
    return "\n".join(out) + "\n"


def main():
    args = benchlib.parse_args(MSGS, "the socket benchmark (in the guest)", "one tiny case, once: a functional check")
    os.makedirs(WORK, exist_ok=True)
    rows = [measure(c, args.quick) for c in (QUICK_CASES if args.quick else CASES)]
    log("done")
    text = report(rows, args.quick)
    benchlib.publish(text, args.output)
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(main())
