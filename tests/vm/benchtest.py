# SPDX-License-Identifier: GPL-2.0
"""Shared by the guest tests of the benchmarks' programs (bench-*.py): a
target started until it is ready, a facts program run on it, a short
timing run checked, and a driver's quick run through."""
import os
import subprocess
import time

from dumptest import read

BENCH = "/usr/local/libexec/crib/bench"


def start_target(workdir, program, *args):
    """BENCH/PROGRAM ARGS... WORKDIR/ready, until it wrote that file, exited,
    or a minute passed; (the process, what it wrote there)."""
    ready = os.path.join(workdir, "ready")
    proc = subprocess.Popen([os.path.join(BENCH, program)] + list(args) + [ready],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    for _ in range(1200):
        if os.path.exists(ready) or proc.poll() is not None:
            break
        time.sleep(0.05)
    return proc, read(ready) if os.path.exists(ready) else ""


def run_facts(program, pid, *args):
    """BENCH/PROGRAM -p PID ARGS...; (exit status, standard output, standard error)."""
    r = subprocess.run([os.path.join(BENCH, program), "-p", str(pid)] + list(args),
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return r.returncode, r.stdout.decode(), r.stderr.decode()


def check_timing(t, program, pid, facts, what, methods):
    """TAP checks of a short timing run of BENCH/PROGRAM on PID: every run
    read FACTS (the words of its "facts" line; WHAT says them), and each of
    METHODS ran twice and took some time."""
    rc, out, err = run_facts(program, pid, "--budget", "0", "--warmup", "1",
                             "--min-reps", "2", "--max-reps", "2")
    lines = [line.split() for line in out.splitlines()]
    timed = {w[1]: w for w in lines if w and w[0] == "method"}
    t.check(rc == 0 and facts in lines, "%s timing: every run read %s" % (program, what),
            out + err)
    t.check(sorted(timed) == sorted(methods) and
            all(w[3] == "2" and float(w[5]) > 0 for w in timed.values()),
            "%s timing: two runs of each way (%s)" % (program, ", ".join(methods)), out)


def quick_run(t, driver, workdir):
    """A TAP check that BENCH/DRIVER --quick runs through; the results it wrote."""
    out_path = os.path.join(workdir, "results.md")
    r = subprocess.run([os.path.join(BENCH, driver), "--quick", "--output", out_path],
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    t.eq(r.returncode, 0, "%s --quick runs through" % driver)
    if r.returncode:
        t.diag(r.stderr.decode(errors="replace")[-3000:])
    return read(out_path) if os.path.exists(out_path) else ""
