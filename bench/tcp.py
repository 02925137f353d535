#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The TCP benchmark, run in the guest (./crib-dev bench tcp boots it).

  tcp.py [--quick] [--output FILE]

crib-dump and crib-restore against criu dump --tcp-established and criu
restore --tcp-established on a process with N established TCP
connections (the tcpstream workload, N = 1 and 100) to a peer process
that keeps running and sending, with data queued both ways.  Each round
starts a fresh pair for each tool (alternating which goes first), dumps
the server (which kills it), restores it, then lets both sides finish
their streams and checks every byte each side received, on every
connection.  Times are the wall times of the dump and restore commands.

Prints the results as markdown and writes them to FILE.  --quick runs a
small case once (a functional check, not a measurement).  See
bench/README.md for what is measured and how.
"""
import argparse
import ctypes
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time

import benchlib
from dump import criu_frozen_seconds

BENCH = "/usr/local/libexec/crib/bench"
TCPSTREAM = "/usr/local/libexec/crib/workloads/tcpstream"
WORK = "/tmp/crib-bench-tcp"		# tmpfs in the guest
PR_SET_CHILD_SUBREAPER = 36
TCP_ESTABLISHED = 1
# (connections, measured rounds); one warm-up round of each tool first.
CASES = [(1, 5), (100, 3)]
QUICK_CASES = [(2, 1)]
MSGS = benchlib.Messages("tcp.py")
fail = MSGS.fail
log = MSGS.log


def read(path):
    with open(path) as f:
        return f.read()


def wait_file(path, proc, what, timeout=300):
    deadline = time.monotonic() + timeout
    while not os.path.exists(path):
        if proc.poll() is not None or time.monotonic() > deadline:
            fail("%s did not get ready" % what)
        time.sleep(0.05)
    return read(path)


def alive(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            status = dict(line.split(":", 1) for line in f)
    except FileNotFoundError:
        return False
    return status["State"].split()[0] not in "tTZX" and status["TracerPid"].strip() == "0"


def kill_reap(pid):
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass


def locked_elements():
    """Elements left in the sets of the CRIB network lock."""
    r = subprocess.run(["nft", "-j", "list", "table", "inet", "crib"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode:
        return 0
    return sum(len(o["set"].get("elem", [])) for o in json.loads(r.stdout)["nftables"]
               if "set" in o)


def parse_result(words):
    return {words[i]: int(words[i + 1]) for i in range(0, len(words) - 1, 2)}


class Pair:
    """tcpstream serve, the process a tool dumps and restores, and its
    peer with N connections to it, which keeps running."""

    def __init__(self, tool, n, tag):
        self.tool, self.n = tool, n
        self.dir = os.path.join(WORK, "%s-%d-%s" % (tool, n, tag))
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        # A session of its own and no terminal, as CRIU wants it (no --shell-job).
        with open(os.path.join(self.dir, "output"), "w") as out:
            self.serve = subprocess.Popen([TCPSTREAM, "serve", self.dir], cwd=self.dir,
                                          stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                          start_new_session=True)
        self.pid = self.serve.pid
        ports = wait_file(os.path.join(self.dir, "ready"), self.serve, "tcpstream serve").split()
        with open(os.path.join(self.dir, "peer-output"), "w") as out:
            self.peer = subprocess.Popen([TCPSTREAM, "peer", self.dir] + ports + [str(n)],
                                         stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                         start_new_session=True)
        wait_file(os.path.join(self.dir, "peer-status"), self.peer, "tcpstream peer")
        # Every connection carries data both ways before the dump.
        deadline = time.monotonic() + 300
        while min(self.status()[:-1]) == 0:
            if time.monotonic() > deadline:
                fail("%d connections did not all carry data: %s" % (n, self.status()))
            time.sleep(0.2)
        time.sleep(1)

    def status(self):
        return [int(x) for x in read(os.path.join(self.dir, "peer-status")).split()]

    def timed(self, argv, what, logfile=None):
        t0 = time.monotonic()
        r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=1800)
        elapsed = time.monotonic() - t0
        if r.returncode:
            extra = read(logfile)[-3000:] if logfile and os.path.exists(logfile) else ""
            fail("%s failed (status %d):\n%s%s" % (what, r.returncode,
                                                    r.stdout.decode(errors="replace"), extra))
        return elapsed

    def crib_dump(self):
        """Whole time, and frozen time: from its "stopped" line to its
        "done" line (the process killed)."""
        self.path = os.path.join(self.dir, "snapshot.crib")
        argv = ["crib-dump", "-p", str(self.pid), "-v", "--force", "-o", self.path]
        elapsed, frozen, _ = benchlib.timed_crib_dump(MSGS, argv)
        return elapsed, frozen

    def dump(self):
        if self.tool == "crib":
            elapsed, self.frozen = self.crib_dump()
        else:
            self.path = os.path.join(self.dir, "criu-images")
            self.work = os.path.join(self.dir, "criu-work")
            os.makedirs(self.path)
            os.makedirs(self.work)
            elapsed = self.timed([os.path.join(BENCH, "criu-compat"), "criu", "dump",
                                  "-t", str(self.pid), "-D", self.path, "-W", self.work,
                                  "-o", "dump.log", "--tcp-established"], "criu dump",
                                 os.path.join(self.work, "dump.log"))
            self.frozen = criu_frozen_seconds(self.work)
        if self.serve.wait(timeout=60) != -signal.SIGKILL:
            fail("tcpstream serve was not killed by the %s dump" % self.tool)
        return elapsed

    def queued(self):
        """Bytes in the snapshot's TCP receive and send queues (crib only)."""
        doc = json.loads(subprocess.run(["crib-inspect", "--json", self.path],
                                        stdout=subprocess.PIPE, check=True).stdout)
        recv = send = 0
        for r in doc["records"]:
            if r["type"] == "socket_queue":
                size = sum(c["data"]["len"] for c in r["fields"]["chunks"])
                if r["fields"]["queue"] == 0:
                    recv += size
                else:
                    send += size
        return recv, send

    def restore(self):
        if self.tool == "crib":
            argv = ["crib-restore", "-i", self.path]
            logfile = None
        else:
            argv = [os.path.join(BENCH, "criu-compat"), "criu", "restore", "-D", self.path,
                    "-W", self.work, "-o", "restore.log", "-d", "--tcp-established"]
            logfile = os.path.join(self.work, "restore.log")
        elapsed = self.timed(argv, "%s restore" % self.tool, logfile)
        if not alive(self.pid):
            fail("process %d is not running after the %s restore" % (self.pid, self.tool))
        if self.tool == "crib" and locked_elements():
            fail("the network lock still holds connections after crib-restore")
        return elapsed

    def check(self):
        """Both sides finish their streams; every byte, both ways, on
        every connection, once and right."""
        os.kill(self.pid, signal.SIGUSR1)
        self.peer.send_signal(signal.SIGUSR1)
        try:
            status = self.peer.wait(timeout=900)
        except subprocess.TimeoutExpired:
            fail("%s, %d connections: the peer never saw its streams end" % (self.tool, self.n))
        lines = read(os.path.join(self.dir, "peer-result")).splitlines()
        if status or len(lines) != self.n:
            fail("%s: the peer ended with %d: %s" % (self.tool, status, lines))
        total = 0
        for line in lines:
            w = line.split()
            p = parse_result(w[2:])
            path = os.path.join(self.dir, "serve-" + w[0])
            s = parse_result(read(path).split()) if os.path.exists(path) else {}
            if p["bad"] or p["error"] or not p["eof"] or s.get("bad") != 0 or \
                    s.get("error") != 0 or p["received"] != s.get("sent") or \
                    s.get("received") != p["sent"]:
                fail("%s: connection from port %s lost or damaged bytes: peer %r, "
                     "server %r" % (self.tool, w[0], p, s))
            total += p["received"] + p["sent"]
        return total

    def close(self):
        kill_reap(self.pid)
        if self.peer.poll() is None:
            self.peer.kill()
        self.peer.wait()
        if self.serve.poll() is None:
            self.serve.kill()
            self.serve.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def one_round(tool, n, tag):
    pair = Pair(tool, n, tag)
    try:
        dump = pair.dump()
        queued = pair.queued() if tool == "crib" else None
        restore = pair.restore()
        checked = pair.check()
    finally:
        pair.close()
    log("%s, %d connections: dump %.2f s (frozen %.2f s), restore %.2f s, %d bytes checked"
        % (tool, n, dump, pair.frozen, restore, checked))
    return dump, restore, queued, checked, pair.frozen


def measure(case):
    n, rounds = case
    res = {"crib": [], "criu": []}
    log("%d connections: warm-up" % n)
    for tool in ("crib", "criu"):
        one_round(tool, n, "warm")
    for r in range(rounds):
        log("%d connections: round %d of %d" % (n, r + 1, rounds))
        for tool in ("crib", "criu") if r % 2 == 0 else ("criu", "crib"):
            res[tool].append(one_round(tool, n, str(r)))
    row = {"n": n, "rounds": rounds}
    for tool, runs in res.items():
        row[tool + "_dump"] = statistics.median(x[0] for x in runs)
        row[tool + "_restore"] = statistics.median(x[1] for x in runs)
        row[tool + "_checked"] = statistics.median(x[3] for x in runs)
        row[tool + "_frozen"] = statistics.median(x[4] for x in runs)
    row["recv"] = statistics.median(x[2][0] for x in res["crib"])
    row["send"] = statistics.median(x[2][1] for x in res["crib"])
    return row


def report(rows, quick):
    out = ["# TCP benchmark results", ""]
    out += [line + "  " for line in benchlib.context(
        "a small case, one repetition" if quick else None)]
    out += ["", "## crib-dump and crib-restore versus CRIU with --tcp-established", "",
            "Medians of each command's wall time. The dumped process is `tcpstream serve` "
            "with N established connections (IPv4 and IPv6 in turn) to a `tcpstream peer` "
            "process that keeps running and sending throughout; the dump kills it, the "
            "restore brings it back in the same boot, and every byte of every connection "
            "is then checked on both sides.", "",
            "| connections | rounds | crib-dump | criu dump | criu / crib "
            "| crib-restore | criu restore | criu / crib |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        out.append("| %d | %d | %.2f s | %.2f s | %.2fx | %.2f s | %.2f s | %.2fx |" % (
            r["n"], r["rounds"], r["crib_dump"], r["criu_dump"],
            r["criu_dump"] / r["crib_dump"], r["crib_restore"], r["criu_restore"],
            r["criu_restore"] / r["crib_restore"]))
    out += ["", "Frozen part of the dump, medians: crib-dump from its \"stopped\" line to its "
            "\"done\" line (the process killed); criu dump's freezing_time plus "
            "frozen_time (its stats-dump). The rest of crib-dump's time is mostly loading "
            "and verifying its BPF programs, before the process is touched.", "",
            "| connections | crib-dump frozen | criu dump frozen | criu / crib |",
            "|---:|---:|---:|---:|"]
    for r in rows:
        out.append("| %d | %.2f s | %.2f s | %.2fx |" % (
            r["n"], r["crib_frozen"], r["criu_frozen"], r["criu_frozen"] / r["crib_frozen"]))
    out += ["", "Queued data in crib-dump's snapshots (median over its rounds, all "
            "connections together), and the bytes checked after each restore (both "
            "directions, everything the streams carried before, during and after the "
            "dump), medians:", "",
            "| connections | receive queues | send queues (unsent) | bytes checked, crib "
            "| bytes checked, criu |",
            "|---:|---:|---:|---:|---:|"]
    for r in rows:
        out.append("| %d | %d | %d | %d | %d |" % (
            r["n"], r["recv"], r["send"], r["crib_checked"], r["criu_checked"]))
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description="the TCP benchmark (in the guest)")
    ap.add_argument("--quick", action="store_true", help="a small case, once: a functional check")
    ap.add_argument("--output", help="write the markdown results here too")
    args = ap.parse_args()
    if os.geteuid():
        fail("run me as root in the CRIB guest")
    # Restored processes run on detached: this driver adopts them.
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0):
        fail("PR_SET_CHILD_SUBREAPER: %s" % os.strerror(ctypes.get_errno()))
    os.makedirs(WORK, exist_ok=True)
    rows = [measure(c) for c in (QUICK_CASES if args.quick else CASES)]
    log("done")
    text = report(rows, args.quick)
    sys.stdout.write(text)
    if args.output:
        with open(args.output + ".tmp", "w") as f:
            f.write(text)
        os.rename(args.output + ".tmp", args.output)
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(main())
