#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The dump benchmark's programs on tiny cases, so that they keep working:
bench-target sets up what it is asked for, dump-facts reads the same facts
through the CRIB programs and through procfs and times every way, and the
whole driver runs through once (--quick).  No timing is checked.  TAP."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, "/usr/local/libexec/crib/tests/dump-lib")
from benchtest import check_timing, quick_run, run_facts, start_target  # noqa: E402
from dumptest import proc_maps, read  # noqa: E402
from tap import Tap  # noqa: E402

VMAS, FDS = 300, 200

t = Tap()


def check_facts(workdir):
    proc, ready = start_target(workdir, "bench-target", "--vmas", str(VMAS), "--fds", str(FDS))
    try:
        t.eq(ready.split(), ["vmas", str(VMAS), "fds", str(FDS), "mem", "0"],
             "bench-target reports %d VMAs and %d fds" % (VMAS, FDS))
        t.eq((len([m for m in proc_maps(proc.pid) if m["path"] != "[vsyscall]"]),
              len(os.listdir("/proc/%d/fd" % proc.pid))), (VMAS, FDS),
             "procfs agrees with bench-target")
        rc, out, err = run_facts("dump-facts", proc.pid, "--compare")
        t.check(rc == 0 and "compare vmas %d fds %d differences 0\n" % (VMAS, FDS) in out,
                "dump-facts --compare: CRIB programs and procfs read the same facts",
                out + err)
        check_timing(t, "dump-facts", proc.pid, ["facts", "vmas", str(VMAS), "fds", str(FDS)],
                     "%d VMAs and %d fds" % (VMAS, FDS),
                     ["crib-programs", "crib-dump-read", "procfs-smaps", "procfs-maps"])
    finally:
        proc.kill()
        proc.wait()
    rc, out, err = run_facts("dump-facts", proc.pid, "--compare")
    t.check(rc == 1 and "no process with pid %d" % proc.pid in err,
            "dump-facts on a process that is gone: exit 1, saying so", (rc, err))


def check_driver(workdir):
    max_map_count = read("/proc/sys/vm/max_map_count")
    text = quick_run(t, "dump.py", workdir)
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    t.check(any(row.startswith("| small process | 40 | 10 |") for row in rows) and
            any(row.startswith("| 200 VMAs, 100 fds | 200 | 100 |") for row in rows),
            "the results have a row per process of (a)", text)
    t.check(any(row.startswith("| 4 MiB | 1 |") and row.count("x |") == 2 for row in rows),
            "the results have crib-dump and criu dump of 4 MiB in (b)", text)
    t.check(any(row.startswith("| 4 MiB | 1 | crib --fast --pre-copy |") for row in rows) and
            "The heartbeat's longest gap with no dump" in text,
            "... with --pre-copy, and the heartbeat's account of the stops", text)
    left = subprocess.run(["pgrep", "-x", "bench-target"], stdout=subprocess.PIPE).stdout
    t.eq(left, b"", "no bench-target left running")
    t.eq(read("/proc/sys/vm/max_map_count"), max_map_count, "vm.max_map_count restored")


def main():
    with tempfile.TemporaryDirectory(prefix="crib-bench-") as workdir:
        check_facts(workdir)
        check_driver(workdir)
    return t.done()


sys.exit(main())
