#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The restore benchmark, run in the guest (./crib-dev bench restore boots it).

  restore.py [--quick] [--tools BUILD] [--output FILE]

crib-restore against criu restore of the process the dump benchmark's
part (b) dumps: a bench-target with 64 MiB and 512 MiB of touched memory.
Each tool dumps its own bench-target once (killing it), to tmpfs; then
rounds, alternating which tool goes first, restore each snapshot, check
that the restored process runs, untraced, with the memory it had, have it
write every page of that memory once (timed by the process itself: what
copy-on-write or lazy faults a restore leaves behind cost it), and kill it
again.

Prints the results as markdown and writes them to FILE.  --quick runs a
tiny case once (a functional check, not a measurement).  See
bench/README.md for what is measured and how.
"""
import ctypes
import hashlib
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time

import benchlib

BENCH = "/usr/local/libexec/crib/bench"
WORK = "/tmp/crib-bench-restore"	# tmpfs in the guest
PR_SET_CHILD_SUBREAPER = 36
# (MiB of touched memory, measured rounds, whether a warm-up round comes
# first).  The 64 MiB warm-up warms both tools up for 512 MiB too.
MEM_CASES = [(64, 7, True, "default"), (512, 7, False, "default"),
             (64, 7, True, "heap"), (512, 7, False, "heap")]
QUICK_MEM_CASES = [(4, 1, True, "default"), (4, 1, True, "heap")]
MSGS = benchlib.Messages("restore.py")
fail = MSGS.fail
log = MSGS.log


def proc_status(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            return dict(line.split(":", 1) for line in f)
    except FileNotFoundError:
        return None


def memory_area(pid, size):
    """(start, end) of the anonymous private writable VMA that holds the
    touched memory: the largest one, at least SIZE bytes."""
    best = None
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            w = line.split()
            if w[1] != "rw-p" or len(w) > 5:
                continue
            start, end = (int(x, 16) for x in w[0].split("-"))
            if end - start >= size and (not best or end - start > best[1] - best[0]):
                best = (start, end)
    if not best:
        fail("process %d has no anonymous VMA of %d bytes" % (pid, size))
    return best


def memory_digest(pid, area):
    h = hashlib.sha1()
    with open("/proc/%d/mem" % pid, "rb", buffering=0) as f:
        f.seek(area[0])
        left = area[1] - area[0]
        while left:
            chunk = f.read(min(left, 4 << 20))
            if not chunk:
                fail("short read of process %d's memory" % pid)
            h.update(chunk)
            left -= len(chunk)
    return h.hexdigest()


class Snapshot:
    """A bench-target, dumped (and so killed) by one tool; what it was."""

    def __init__(self, tool, mib, mix):
        self.tool = tool
        self.dir = os.path.join(WORK, "%s-%d" % (tool, mib))
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        ready = os.path.join(self.dir, "ready")
        argv = [os.path.join(BENCH, "bench-target"), "--mem", str(mib), "--touch", ready]
        if mix == "heap":
            argv[-1:-1] = ["--heap-mix"]
        # A session of its own and no terminal, as CRIU wants it (no --shell-job).
        with open(os.path.join(self.dir, "output"), "w") as out:
            proc = subprocess.Popen(argv, cwd=self.dir, stdin=subprocess.DEVNULL,
                                    stdout=out, stderr=out, start_new_session=True)
        self.pid = proc.pid
        deadline = time.monotonic() + 900
        while not os.path.exists(ready):
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                proc.wait()
                fail("bench-target --mem %d did not get ready: %s" % (mib, self.output()))
            time.sleep(0.05)
        self.area = memory_area(self.pid, mib << 20)
        self.digest = memory_digest(self.pid, self.area)
        log("%s dump of %d MiB (process %d)" % (tool, mib, self.pid))
        try:
            (self.criu_dump if tool == "criu" else self.crib_dump)()
        finally:
            if proc.poll() is None:
                proc.kill()
            status = proc.wait()
        if status != -signal.SIGKILL:
            fail("bench-target ended with %d, not killed by the %s dump" % (status, tool))

    def output(self):
        return open(os.path.join(self.dir, "output")).read().strip()

    def crib_dump(self):
        self.path = os.path.join(self.dir, "snapshot.crib")
        fast = ["--fast"] if self.tool == "crib_fast" else []
        run(["crib-dump", "-p", str(self.pid), "--force", "-o", self.path] + fast, "crib-dump")
        run(["crib-inspect", "--verify", self.path], "crib-inspect --verify")

    def criu_dump(self):
        self.path = os.path.join(self.dir, "criu-images")
        self.work = os.path.join(self.dir, "criu-work")	# logs, out of the images
        os.makedirs(self.path)
        os.makedirs(self.work)
        run([os.path.join(BENCH, "criu-compat"), "criu", "dump", "-t", str(self.pid),
             "-D", self.path, "-W", self.work, "-o", "dump.log"], "criu dump",
            log=os.path.join(self.work, "dump.log"))

    def restore_argv(self):
        if self.tool != "criu":
            return ["crib-restore", "-i", self.path]
        return [os.path.join(BENCH, "criu-compat"), "criu", "restore", "-D", self.path,
                "-W", self.work, "-o", "restore.log", "-d"]

    def restore(self):
        """Restore, check and kill the process again: wall time of the
        restoring command, its user and system CPU time, and the time the
        process then takes to write every page once."""
        if proc_status(self.pid):
            fail("PID %d is taken before the %s restore" % (self.pid, self.tool))
        argv = self.restore_argv()
        t0 = time.monotonic()
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.monotonic() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        try:
            if proc.returncode:
                extra = ""
                if self.tool == "criu":
                    extra = open(os.path.join(self.work, "restore.log")).read()[-3000:]
                fail("%s failed (status %d):\n%s%s" % (
                    " ".join(argv), proc.returncode, out.decode(errors="replace"), extra))
            self.check_restored()
            touched = self.touch()
        finally:
            self.kill_restored()
        return elapsed, usage.ru_utime, usage.ru_stime, touched

    def touch(self):
        """Seconds the restored process takes to write each page once (--touch)."""
        path = os.path.join(self.dir, "touched")
        if os.path.exists(path):
            os.unlink(path)
        os.kill(self.pid, signal.SIGUSR1)
        deadline = time.monotonic() + 600
        while not os.path.exists(path):
            if time.monotonic() > deadline or not proc_status(self.pid):
                fail("process %d did not write its pages after the %s restore" %
                     (self.pid, self.tool))
            time.sleep(0.01)
        return int(open(path).read()) / 1e9

    def check_restored(self):
        """Running on as our child (adopted), neither stopped nor traced,
        its memory as it was at the dump."""
        status = proc_status(self.pid)
        if not status:
            fail("no process %d after the %s restore" % (self.pid, self.tool))
        state = status["State"].split()[0]
        if state in "tTZX" or status["TracerPid"].strip() != "0":
            fail("process %d after the %s restore: state %s, tracer %s" % (
                self.pid, self.tool, status["State"].strip(), status["TracerPid"].strip()))
        if int(status["PPid"]) != os.getpid():
            fail("process %d after the %s restore has parent %s, not this driver" % (
                self.pid, self.tool, status["PPid"].strip()))
        if memory_digest(self.pid, self.area) != self.digest:
            fail("process %d's memory differs after the %s restore" % (self.pid, self.tool))

    def kill_restored(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass

    def remove(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def run(argv, what, timeout=1800, log=None):
    return benchlib.run(MSGS, argv, what, timeout, log)


def measure(case):
    mib, rounds, warmup, mix = case
    snaps = []
    results = {"crib": [], "crib_fast": [], "criu": []}
    try:
        snaps = [Snapshot("crib", mib, mix)]
        snaps.append(Snapshot("crib_fast", mib, mix))
        snaps.append(Snapshot("criu", mib, mix))
        if warmup:
            log("restores: %d MiB, %s mix, warm-up" % (mib, mix))
            for snap in snaps:
                snap.restore()
        for r in range(rounds):
            log("restores: %d MiB, %s mix, round %d of %d" % (mib, mix, r + 1, rounds))
            for snap in snaps[r % len(snaps):] + snaps[:r % len(snaps)]:
                results[snap.tool].append(snap.restore())
    finally:
        for snap in snaps:
            snap.remove()
    row = {"mib": mib, "rounds": rounds, "mix": mix}
    for name, runs in results.items():
        for i, key in enumerate(("time", "user", "sys", "touch")):
            row[name + "_" + key] = statistics.median(x[i] for x in runs)
        row[name + "_min"] = min(x[0] for x in runs)
        row[name + "_max"] = max(x[0] for x in runs)
    return row


# ---- the report ---------------------------------------------------------------

def context(quick):
    return benchlib.context("a tiny case, one repetition" if quick else None)


def memory(r):
    """A row's touched memory, and its mix unless the default."""
    return "%d MiB" % r["mib"] + (", heap mix" if r["mix"] == "heap" else "")


def report(rows, quick):
    out = ["# Restore benchmark results", ""]
    out += [line + "  " for line in context(quick)]
    out += ["", "## crib-restore versus criu restore", "",
            "Each tool's wall time, from its start to its exit with the process restored "
            "and running on, detached (`crib-restore -i FILE`, `criu restore -d`): min / "
            "**median** / max of the rounds, each tool first in turn. `crib` restores the "
            "default snapshot (pages compressed), `crib --fast` one dumped with --fast "
            "(pages stored). Memory holds the dump benchmark's default mix unless the row "
            "says heap mix. Goal: crib-restore at least 2x faster.", "",
            "| touched memory | rounds | tool | restore | criu / tool | goal |",
            "|---:|---:|---|---:|---:|---|"]
    for r in rows:
        for name, label in (("crib", "crib"), ("crib_fast", "crib --fast"), ("criu", "criu")):
            ratio = r["criu_time"] / r[name + "_time"]
            out.append("| %s | %d | %s | %.2f / **%.2f** / %.2f s | %.2fx | %s |" % (
                memory(r), r["rounds"], label, r[name + "_min"], r[name + "_time"],
                r[name + "_max"], ratio,
                "" if name == "criu" else "met" if ratio >= 2 else "missed"))
    out += ["", "Then the restored process writes every page of its touched memory once, "
            "and times that itself: what the restore left to its first writes (faults, "
            "copies on write). Medians; goal: crib no slower than criu to the last page "
            "written.", "",
            "| touched memory | tool | first writes | restore + first writes "
            "| criu / tool | goal |", "|---:|---|---:|---:|---:|---|"]
    for r in rows:
        criu_total = r["criu_time"] + r["criu_touch"]
        for name, label in (("crib", "crib"), ("crib_fast", "crib --fast"), ("criu", "criu")):
            total = r[name + "_time"] + r[name + "_touch"]
            out.append("| %s | %s | %.3f s | %.2f s | %.2fx | %s |" % (
                memory(r), label, r[name + "_touch"], total, criu_total / total,
                "" if name == "criu" else "met" if total <= criu_total else "missed"))
    out += ["", "Median CPU time of each command and the children it waited for (user / "
            "system). The restored process's own time counts in neither, and CRIU's "
            "restored process does much of its restoring itself (it reads its pages in): "
            "these are not comparable between the tools.", "",
            "| touched memory | crib | crib --fast | criu |", "|---:|---:|---:|---:|"]
    for r in rows:
        out.append("| %s | %.2f / %.2f s | %.2f / %.2f s | %.2f / %.2f s |" % (
            memory(r), r["crib_user"], r["crib_sys"], r["crib_fast_user"], r["crib_fast_sys"],
            r["criu_user"], r["criu_sys"]))
    out += ["", "A goal missed: where the time goes, step by step, and what would close it, in "
            "bench/README.md, \"Where crib-restore loses to `criu restore`\"."]
    return "\n".join(out) + "\n"


def main():
    args = benchlib.parse_args(MSGS, "the restore benchmark (in the guest)",
                               "a tiny case, once: a functional check", build_tools=True)
    # Restored processes run on detached: this driver adopts them, to check
    # and reap them.
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0):
        fail("PR_SET_CHILD_SUBREAPER: %s" % os.strerror(ctypes.get_errno()))
    os.makedirs(WORK, exist_ok=True)
    rows = [measure(c) for c in (QUICK_MEM_CASES if args.quick else MEM_CASES)]
    log("done")
    text = report(rows, args.quick)
    benchlib.publish(text, args.output)
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(main())
