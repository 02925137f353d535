#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The dump benchmark, run in the guest (./crib-dev bench dump boots it).

  dump.py [--quick | --large] [--tools BUILD] [--output FILE]

(a) Reading what a dump needs to know about a process (its task, VMAs and
    descriptors) through the CRIB programs and through procfs, on
    bench-target processes with many VMAs or many descriptors: dump-facts
    first checks that both ways read the same facts, then times them.
(b) crib-dump (default, compact; --fast; and --fast --pre-copy) against
    criu dump of one process with 64 MiB and 512 MiB of touched memory,
    all left running, all writing to tmpfs: wall time, snapshot size, and
    how long the process was stopped, as a heartbeat thread in it saw it;
    and of a process with no touched memory, for the fixed cost, crib-dump
    with its programs pinned (warm) and with no pins (cold).  A baseline
    for the compact mode: criu dump, then zstd -1 -T0 on its pages.

--large measures (b) alone for a process with 4 GiB of touched memory,
crib-dump --fast with and without --pre-copy and criu dump, in a guest
with the RAM for it (./crib-dev bench dump --large).

Prints the results as markdown and writes them to FILE.  --quick runs
tiny cases once each (a functional check, not a measurement).  See
bench/README.md for what is measured and how.
"""
import mmap
import os
import shutil
import struct
import signal
import statistics
import subprocess
import sys
import time

import benchlib

BENCH = "/usr/local/libexec/crib/bench"
WORK = "/tmp/crib-bench"		# tmpfs in the guest
MAX_MAP_COUNT = 131072			# 64k VMAs need more than the default 65530

# (a): (what, VMAs, descriptors), and the time budget of each case.
FACT_CASES = [("small process", 40, 10), ("1k VMAs", 1000, 10), ("10k VMAs", 10000, 10),
              ("64k VMAs", 65536, 10), ("1k fds", 40, 1000), ("10k fds", 40, 10000)]
QUICK_FACT_CASES = [("small process", 40, 10), ("200 VMAs, 100 fds", 200, 100)]
FACT_BUDGET, QUICK_FACT_BUDGET = 12, 0
# (b): (MiB of touched memory, measured rounds, whether a warm-up round
# comes first, the content: fill.h's default mix or its heap-like one).
# The 64 MiB round warms both tools up for 512 MiB.
MEM_CASES = [(0, 7, True, "default"), (64, 7, True, "default"), (512, 7, False, "default"),
             (64, 7, True, "heap"), (512, 7, False, "heap")]
QUICK_MEM_CASES = [(0, 1, True, "default"), (4, 1, True, "default"), (4, 1, True, "heap")]
# --large: the tools warmed up on an empty process, then 4 GiB, with no
# compact dump (a minute a round) and no zstd baseline.
LARGE_MEM_CASES = [(0, 1, True, "default"), (4096, 3, False, "default")]
LARGE_TOOLS = ("crib_fast", "crib_precopy", "criu")
PINS = "/sys/fs/bpf/crib"
MSGS = benchlib.Messages("dump.py")
MISSED_NOTE = ("A goal missed: where the time goes, step by step, and what would close it, "
               "in bench/README.md, \"Where `--fast` loses to `criu dump`\".")
fail = MSGS.fail
log = MSGS.log


class Target:
    """A bench-target in a session of its own (as CRIU wants it), ready."""

    def __init__(self, name, vmas=0, fds=0, mem=0, heartbeat=False, heap_mix=False,
                 timeout=900):
        self.dir = os.path.join(WORK, name)
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        ready = os.path.join(self.dir, "ready")
        argv = [os.path.join(BENCH, "bench-target"), "--vmas", str(vmas), "--fds", str(fds),
                "--mem", str(mem), ready]
        self.heartbeat = None
        if heap_mix:
            argv[-1:-1] = ["--heap-mix"]
        if heartbeat:
            argv[-1:-1] = ["--heartbeat", os.path.join(self.dir, "heartbeat")]
        with open(os.path.join(self.dir, "output"), "w") as out:
            self.proc = subprocess.Popen(argv, cwd=self.dir, stdin=subprocess.DEVNULL,
                                         stdout=out, stderr=out, start_new_session=True)
        self.pid = self.proc.pid
        deadline = time.monotonic() + timeout
        while not os.path.exists(ready):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                fail("bench-target %s did not get ready: %s" % (" ".join(argv[1:-1]),
                                                                self.output()))
            time.sleep(0.05)
        if heartbeat:
            with open(os.path.join(self.dir, "heartbeat"), "r+b") as f:
                self.heartbeat = mmap.mmap(f.fileno(), 4096)
        words = open(ready).read().split()
        self.facts = dict(zip(words[0::2], (int(w) for w in words[1::2])))
        want = {"vmas": vmas, "fds": fds, "mem": mem << 20}
        for key, value in want.items():
            if value and self.facts[key] != value:
                self.stop()
                fail("bench-target has %s %d, not %d" % (key, self.facts[key], value))

    def output(self):
        return open(os.path.join(self.dir, "output")).read().strip()

    def beats(self):
        """(beats, longest gap in seconds) of the heartbeat (struct heartbeat)."""
        beats, _, gap = struct.unpack_from("=QQQ", self.heartbeat)
        return beats, gap / 1e9

    def reset_gap(self):
        struct.pack_into("=Q", self.heartbeat, 16, 0)

    def longest_gap(self):
        """The longest stop since reset_gap(), once the heartbeat beat again
        after it (the process is let go when a dump returns)."""
        first = self.beats()[0]
        deadline = time.monotonic() + 10
        while self.beats()[0] < first + 2 and time.monotonic() < deadline:
            time.sleep(0.005)
        if self.beats()[0] < first + 2:
            fail("the heartbeat of bench-target stopped: %s" % self.output())
        return self.beats()[1]

    def check_running(self, after):
        """Alive, and neither stopped nor traced: let go as it was."""
        if self.proc.poll() is not None:
            fail("bench-target died after %s: %s" % (after, self.output()))
        status = dict(line.split(":", 1) for line in open("/proc/%d/status" % self.pid))
        if status["TracerPid"].strip() != "0" or status["State"].split()[0] in "tT":
            fail("bench-target not let go after %s: %s" % (after, status["State"].strip()))

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        if self.heartbeat:
            self.heartbeat.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def run(argv, what, timeout=1800, log=None):
    return benchlib.run(MSGS, argv, what, timeout, log)


# ---- (a) facts -------------------------------------------------------------

def measure_facts(case, budget):
    what, vmas, fds = case
    log("facts: %s (%d VMAs, %d fds)" % (what, vmas, fds))
    target = Target("facts", vmas=vmas, fds=fds)
    try:
        facts = [os.path.join(BENCH, "dump-facts"), "-p", str(target.pid)]
        # Timing two ways of reading different facts would mean nothing.
        run(facts + ["--compare"], "dump-facts --compare (%s)" % what)
        out = run(facts + ["--budget", str(budget), "--warmup", "2" if budget else "0",
                           "--min-reps", "5" if budget else "1", "--max-reps", "101"],
                  "dump-facts (%s)" % what)
    finally:
        target.stop()
    row = {"what": what}
    for line in out.splitlines():
        w = line.split()
        if w[0] == "facts":
            row["vmas"], row["fds"] = int(w[2]), int(w[4])
        elif w[0] == "clock":
            row["tsc_mhz"] = float(w[2])
        elif w[0] == "method":
            row[w[1]] = {"reps": int(w[3]), "median": int(w[5]) / 1e6}
    need = ("vmas", "tsc_mhz", "crib-programs", "crib-dump-read", "procfs-smaps", "procfs-maps")
    if any(k not in row for k in need):
        fail("dump-facts said:\n" + out)
    if (row["vmas"], row["fds"]) != (vmas, fds):
        fail("dump-facts read %d VMAs and %d fds, not %d and %d" %
             (row["vmas"], row["fds"], vmas, fds))
    return row


# ---- (b) crib-dump and criu dump --------------------------------------------

def crib_dump(target, *extra):
    """Whole-command time, frozen time (from its "stopped" line to the line
    that says the process is let go), size, user and system CPU time, the
    longest stop the process saw, path."""
    path = os.path.join(WORK, "out", "snapshot.crib")
    argv = ["crib-dump", "-p", str(target.pid), "--leave-running", "-v", "--force", "-o",
            path] + list(extra)
    target.reset_gap()
    elapsed, frozen, usage = benchlib.timed_crib_dump(MSGS, argv)
    target.check_running("crib-dump")
    return (elapsed, frozen, os.stat(path).st_size, usage.ru_utime, usage.ru_stime,
            target.longest_gap(), path)


def varints(data):
    """(field number, value) of a protobuf message of varints and nested messages."""
    i = 0
    while i < len(data):
        key, i = varint(data, i)
        if key & 7 == 0:
            value, i = varint(data, i)
        elif key & 7 == 2:
            n, i = varint(data, i)
            value, i = data[i:i + n], i + n
        else:
            raise ValueError("wire type %d" % (key & 7))
        yield key >> 3, value


def varint(data, i):
    value = shift = 0
    while True:
        b = data[i]
        i += 1
        value |= (b & 0x7f) << shift
        shift += 7
        if not b & 0x80:
            return value, i


def criu_frozen_seconds(work):
    """freezing_time + frozen_time (microseconds) of CRIU's stats-dump: from
    the start of freezing until the process is let go.  The image is two
    magic numbers, then a length-prefixed StatsEntry whose field 1 is the
    DumpStatsEntry (images/stats.proto)."""
    data = open(os.path.join(work, "stats-dump"), "rb").read()
    size = int.from_bytes(data[8:12], "little")
    stats = dict(varints(data[12:12 + size]))
    dump = dict(varints(stats[1]))
    return (dump[1] + dump[2]) / 1e6


def criu_dump(target):
    """Whole-command time, frozen time (CRIU's own account), image size,
    user and system CPU time (its children's included), the longest stop
    the process saw, path."""
    images = os.path.join(WORK, "out", "criu-images")
    work = os.path.join(WORK, "out", "criu-work")	# the log, out of the image size
    os.makedirs(images)
    os.makedirs(work)
    argv = [os.path.join(BENCH, "criu-compat"), "criu", "dump", "-t", str(target.pid),
            "-D", images, "-W", work, "-o", "dump.log", "--leave-running"]
    target.reset_gap()
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.monotonic() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        fail("criu dump failed (status %d):\n%s" % (
            proc.returncode, open(os.path.join(work, "dump.log")).read()[-3000:]))
    target.check_running("criu dump")
    size = pages = 0
    for entry in os.scandir(images):
        size += entry.stat().st_size
        if entry.name.startswith("pages-"):
            pages += entry.stat().st_size
    if pages < target.facts["mem"]:
        fail("criu wrote %d bytes of pages for %d bytes of touched memory" %
             (pages, target.facts["mem"]))
    frozen = criu_frozen_seconds(work)	# stats go to the work directory
    if not 0 < frozen < elapsed:
        fail("criu reports %.3f s frozen in a dump of %.3f s" % (frozen, elapsed))
    return elapsed, frozen, size, usage.ru_utime, usage.ru_stime, target.longest_gap(), images


def criu_zstd(target):
    """criu dump, then its pages compressed with zstd -1 on every CPU: the
    whole time and size count both; the stops are criu's."""
    elapsed, frozen, size, user, sys_, stop, images = criu_dump(target)
    pages = [e.path for e in os.scandir(images) if e.name.startswith("pages-")]
    t0 = time.monotonic()
    for path in pages:
        run(["zstd", "-1", "-T0", "-q", "--rm", path], "zstd -1 -T0")
    took = time.monotonic() - t0
    size = sum(e.stat().st_size for e in os.scandir(images))
    zstd_size = sum(os.stat(p + ".zst").st_size for p in pages)
    return (elapsed + took, frozen, size, user, sys_, stop, took, zstd_size, images)


def clean_out():
    shutil.rmtree(os.path.join(WORK, "out"), ignore_errors=True)
    os.makedirs(os.path.join(WORK, "out"))


def crib_fast(target):
    return crib_dump(target, "--fast")


def crib_precopy(target):
    return crib_dump(target, "--fast", "--pre-copy")


def crib_cold(target):
    """crib-dump with no pinned programs: it loads (and pins) them."""
    shutil.rmtree(PINS, ignore_errors=True)
    return crib_dump(target)


def measure_dumps(case, only=None):
    """One case of MEM_CASES, by every tool or those named in @only."""
    mib, rounds, warmup, mix = case
    log("dumps: %d MiB of touched memory, %s mix" % (mib, mix))
    target = Target("dump-%d" % mib, mem=mib, heartbeat=True, heap_mix=mix == "heap")
    tools = [("crib", crib_dump), ("crib_fast", crib_fast), ("crib_precopy", crib_precopy),
             ("criu", criu_dump)]
    if mib:
        tools.append(("criu_zstd", criu_zstd))
    if mib == 0:
        tools.append(("crib_cold", crib_cold))
    if only:
        tools = [t for t in tools if t[0] in only]
    results = {name: [] for name, _ in tools}
    try:
        if warmup:
            # Unmeasured; the snapshot is verified.
            clean_out()
            snap = crib_dump(target)[-1]
            run(["crib-inspect", "--verify", snap], "crib-inspect --verify")
            clean_out()
            snap = crib_fast(target)[-1]
            run(["crib-inspect", "--verify", snap], "crib-inspect --verify")
            clean_out()
            snap = crib_precopy(target)[-1]
            run(["crib-inspect", "--verify", snap], "crib-inspect --verify")
            clean_out()
            criu_dump(target)
        # How long the heartbeat stops with no dump: the guest's own noise.
        target.reset_gap()
        time.sleep(1)
        noise = target.longest_gap()
        for r in range(rounds):
            log("dumps: %d MiB, round %d of %d" % (mib, r + 1, rounds))
            # each tool first in turn; a cold dump leaves the pins for the next
            order = tools[r % len(tools):] + tools[:r % len(tools)]
            for name, dump in order:
                clean_out()
                results[name].append(dump(target)[:-1])
            if not os.path.isdir(PINS):
                crib_dump(target)
    finally:
        clean_out()
        target.stop()
    row = {"mib": mib, "rounds": rounds, "noise": noise, "mix": mix}
    for name, runs in results.items():
        for i, key in enumerate(("time", "frozen", "size", "user", "sys", "stop", "zstd_time",
                                 "zstd_size")):
            if i < len(runs[0]):
                row[name + "_" + key] = statistics.median(x[i] for x in runs)
        row[name + "_min"] = min(x[0] for x in runs)
        row[name + "_max"] = max(x[0] for x in runs)
    return row


# ---- the report ---------------------------------------------------------------

def pct(a, b):
    return "%.1f%%" % (100.0 * a / b) if b else "n/a"


def ms(v):
    return "%.2f" % v if v < 10 else "%.1f" % v if v < 100 else "%.0f" % v


def mib(size):
    return "%.1f MiB" % (size / 1048576.0)


def context(quick, fact_rows):
    tsc = statistics.median(r["tsc_mhz"] for r in fact_rows)
    return benchlib.context("tiny cases, one repetition each" if quick else None,
                            ["Clocks: (a) is timed with the TSC (%.0f MHz, measured against "
                             "the guest's clock), (b) with the guest's clock." % tsc])


def spread(r, name):
    """min / median / max of a tool's whole times."""
    return "%.2f / **%.2f** / %.2f s" % (r[name + "_min"], r[name + "_time"], r[name + "_max"])


def verdict(ok):
    return "met" if ok else "missed"


def memory(r):
    """A row's touched memory, and its mix unless the default."""
    return "%d MiB" % r["mib"] + (", heap mix" if r["mix"] == "heap" else "")


def dump_report(rows):
    out = ["", "## (b) crib-dump versus criu dump", "",
           "Each tool's wall time, whole command (start to exit, start-up included; "
           "min / **median** / max of the rounds); the median time the process was "
           "stopped, as a heartbeat thread in it saw it (the longest gap between two "
           "stamps of the clock it takes every 100 us), and as the tool accounts for it "
           "(crib-dump: from its \"stopped\" line to the line saying the process is let "
           "go; CRIU: freezing plus frozen time of its stats file); and the size of what "
           "it wrote (crib: the snapshot file; CRIU: its image directory). `crib` is the "
           "default (pages compressed, zstd -1 in worker threads), `crib --fast` stores the "
           "pages as they are, `crib --fast --pre-copy` copies the memory while the process "
           "runs and lets it go before the pages are written. crib-dump's programs are "
           "pinned (warm) unless the row says cold; CRIU is warm too (its first dump of the "
           "boot is the unmeasured warm-up). The heartbeat's longest gap over one second "
           "with no dump is the guest's own noise. Memory holds fill.h's default mix "
           "unless the row says heap mix (a quarter zero pages, a quarter log text, half "
           "heap objects).", "",
           "| touched memory | rounds | tool | whole | stopped (heartbeat) | stopped (tool) "
           "| output | criu whole / tool whole | criu stopped / tool stopped (heartbeat) |",
           "|---:|---:|---|---:|---:|---:|---:|---:|---:|"]
    names = [("crib", "crib"), ("crib_fast", "crib --fast"),
             ("crib_precopy", "crib --fast --pre-copy"), ("crib_cold", "crib, cold"),
             ("criu", "criu"), ("criu_zstd", "criu, then zstd -1 -T0")]
    for r in rows:
        for name, label in names:
            if name + "_time" not in r:
                continue
            out.append("| %s | %d | %s | %s | %.3f s | %.3f s | %s | %.2fx | %.2fx |" % (
                memory(r), r["rounds"], label, spread(r, name), r[name + "_stop"],
                r[name + "_frozen"], mib(r[name + "_size"]), r["criu_time"] / r[name + "_time"],
                r["criu_stop"] / r[name + "_stop"] if r[name + "_stop"] else 0))
    out += ["", "The heartbeat's longest gap with no dump: " +
            ", ".join("%.3f s (%s)" % (r["noise"], memory(r)) for r in rows) + ".",
            "", "Median CPU time of each tool (user / system).", "",
            "| touched memory | crib | crib --fast | crib --fast --pre-copy | criu |",
            "|---:|---:|---:|---:|---:|"]
    for r in rows:
        out.append("| %s | %s |" % (memory(r), " | ".join(
            "%.2f / %.2f s" % (r[n + "_user"], r[n + "_sys"])
            for n in ("crib", "crib_fast", "crib_precopy", "criu"))))
    by = {r["mib"]: r for r in rows if r["mix"] == "default"}
    sizes = sorted(m for m in by if m)
    if len(sizes) >= 2:
        lo, hi = by[sizes[0]], by[sizes[-1]]
        out += ["", "Scaling: each tool's median whole time per MiB between %d and %d MiB, "
                "and its fixed cost (the process with no touched memory)." % (
                    sizes[0], sizes[-1]), "",
                "| tool | ms per MiB | fixed cost |", "|---|---:|---:|"]
        for name, label in names[:3] + names[4:5]:
            slope = (hi[name + "_time"] - lo[name + "_time"]) / (sizes[-1] - sizes[0])
            fixed = by[0][name + "_time"] if 0 in by else float("nan")
            out.append("| %s | %.2f | %.2f s |" % (label, slope * 1000, fixed))
    if 0 in by and len(sizes) >= 2:
        z = by[0]
        sized = [r for r in rows if r["mib"] in (sizes[0], sizes[-1])]
        out += ["", "Speed goals, dump side (stopped: the heartbeat's account):", "",
                "| goal | measured | |", "|---|---|---|"]
        for r in sized:
            out.append("| fast mode faster than criu dump, %s | %.2f s vs %.2f s | %s |" % (
                memory(r), r["crib_fast_time"], r["criu_time"],
                verdict(r["crib_fast_time"] < r["criu_time"])))
        out.append("| fixed cost at most 1/3 of criu dump's (warm) | %.2f s vs %.2f s | %s |" % (
            z["crib_time"], z["criu_time"], verdict(3 * z["crib_time"] <= z["criu_time"])))
        for r in sized:
            out.append("| compact snapshot within 2%% of zstd -1 of the same pages, %s "
                       "| %s vs %s | %s |" % (
                           memory(r), mib(r["crib_size"]), mib(r["criu_zstd_zstd_size"]),
                           verdict(r["crib_size"] <= 1.02 * r["criu_zstd_zstd_size"])))
            out.append("| compact dump within 2x of zstd -1 -T0's time on the same pages, "
                       "%s | %.2f s vs %.2f s | %s |" % (
                           memory(r), r["crib_time"], r["criu_zstd_zstd_time"],
                           verdict(r["crib_time"] <= 2 * r["criu_zstd_zstd_time"])))
        for r in sized:
            out.append("| stopped 3x shorter than by criu dump, %s (--pre-copy) "
                       "| %.3f s vs %.3f s | %s |" % (
                           memory(r), r["crib_precopy_stop"], r["criu_stop"],
                           verdict(3 * r["crib_precopy_stop"] <= r["criu_stop"])))
        out += ["", MISSED_NOTE]
    return out


def large_report(row):
    """--large: the dumps of @row's process and the frozen-time goal at its size."""
    out = ["# Dump benchmark results, %s" % memory(row), ""]
    out += [line + "  " for line in benchlib.context(None, [])]
    out += ["", "As in dump.md, (b), for one process with %s of touched memory (fill.h's "
            "default mix), in a guest with the RAM for it, output on tmpfs; %d rounds, "
            "after a warm-up of both tools on a process with none." % (
                memory(row), row["rounds"]), "",
            "| touched memory | rounds | tool | whole | stopped (heartbeat) | stopped (tool) "
            "| output | criu whole / tool whole | criu stopped / tool stopped (heartbeat) |",
            "|---:|---:|---|---:|---:|---:|---:|---:|---:|"]
    for name, label in (("crib_fast", "crib --fast"), ("crib_precopy", "crib --fast --pre-copy"),
                        ("criu", "criu")):
        out.append("| %s | %d | %s | %s | %.3f s | %.3f s | %s | %.2fx | %.2fx |" % (
            memory(row), row["rounds"], label, spread(row, name), row[name + "_stop"],
            row[name + "_frozen"], mib(row[name + "_size"]),
            row["criu_time"] / row[name + "_time"], row["criu_stop"] / row[name + "_stop"]))
    out += ["", "The heartbeat's longest gap with no dump: %.3f s." % row["noise"], "",
            "| goal | measured | |", "|---|---|---|",
            "| stopped 3x shorter than by criu dump, %s (--pre-copy) | %.3f s vs %.3f s | %s |" % (
                memory(row), row["crib_precopy_stop"], row["criu_stop"],
                verdict(3 * row["crib_precopy_stop"] <= row["criu_stop"])),
            "| fast mode faster than criu dump, %s | %.2f s vs %.2f s | %s |" % (
                memory(row), row["crib_fast_time"], row["criu_time"],
                verdict(row["crib_fast_time"] < row["criu_time"]))]
    return "\n".join(out) + "\n"


def report(fact_rows, dump_rows, quick):
    out = ["# Dump benchmark results", ""]
    out += [line + "  " for line in context(quick, fact_rows)]
    out += ["", "## (a) Reading a process's facts: CRIB programs versus procfs", "",
            "Median milliseconds per read of the task, every VMA and every descriptor; "
            "the ratios are CRIB time as a share of procfs time (goal: 10% or less).", "",
            "| process | VMAs | fds | runs | CRIB programs | crib-dump read | procfs (smaps) "
            "| procfs (maps) | programs / smaps | programs / maps "
            "| crib-dump read / smaps | crib-dump read / maps |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in fact_rows:
        p, c = r["crib-programs"]["median"], r["crib-dump-read"]["median"]
        s, m = r["procfs-smaps"]["median"], r["procfs-maps"]["median"]
        out.append("| %s | %d | %d | %d | %s ms | %s ms | %s ms | %s ms | %s | %s | %s | %s |" % (
            r["what"], r["vmas"], r["fds"], r["crib-programs"]["reps"], ms(p), ms(c), ms(s),
            ms(m), pct(p, s), pct(p, m), pct(c, s), pct(c, m)))
    out += dump_report(dump_rows)
    return "\n".join(out) + "\n"


def main():
    args = benchlib.parse_args(MSGS, "the dump benchmark (in the guest)",
                               "tiny cases, once: a functional check",
                               "4 GiB alone, crib --fast (--pre-copy) and criu",
                               build_tools=True)
    if args.large:
        rows = [measure_dumps(c, LARGE_TOOLS if c[0] else None) for c in LARGE_MEM_CASES]
        log("done")
        benchlib.publish(large_report(rows[-1]), args.output)
        return 0
    os.makedirs(WORK, exist_ok=True)
    with open("/proc/sys/vm/max_map_count") as f:
        old_max = f.read().strip()
    with open("/proc/sys/vm/max_map_count", "w") as f:
        f.write(str(MAX_MAP_COUNT))
    try:
        fact_rows = [measure_facts(c, QUICK_FACT_BUDGET if args.quick else FACT_BUDGET)
                     for c in (QUICK_FACT_CASES if args.quick else FACT_CASES)]
        dump_rows = [measure_dumps(c) for c in (QUICK_MEM_CASES if args.quick else MEM_CASES)]
    finally:
        with open("/proc/sys/vm/max_map_count", "w") as f:
            f.write(old_max)
    log("done")
    text = report(fact_rows, dump_rows, args.quick)
    benchlib.publish(text, args.output)
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(main())
