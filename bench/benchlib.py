"""What the benchmark drivers share: progress and failure messages, running
a tool that must succeed, and the lines that say where a run was made."""

import argparse
import os
import subprocess
import sys
import time


class Messages:
    """Progress on stderr, stamped with the seconds since the start."""

    def __init__(self, prog):
        self.prog = prog
        self.start = time.monotonic()

    def fail(self, msg):
        sys.stderr.write("%s: %s\n" % (self.prog, msg))
        sys.exit(1)

    def log(self, msg):
        sys.stderr.write("%s: [%4.0f s] %s\n" % (self.prog, time.monotonic() - self.start, msg))
        sys.stderr.flush()


def run(msgs, argv, what, timeout=1800, log=None):
    """Run argv and return its stdout; fail with its output (and the tail of
    the file log, if given) when it does not exit 0."""
    r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=timeout)
    if r.returncode:
        extra = open(log).read()[-3000:] if log and os.path.exists(log) else ""
        msgs.fail("%s failed (status %d):\n%s%s%s" % (
            what, r.returncode, r.stdout.decode(errors="replace"),
            r.stderr.decode(errors="replace"), extra))
    return r.stdout.decode()


def context(quick_note, clock_lines=()):
    """The report's opening lines: when, which commit, the guest, the host."""
    uname = os.uname()
    clock = open("/sys/devices/system/clocksource/clocksource0/current_clocksource").read()
    clock = clock.strip()
    mem = [line.split()[1] for line in open("/proc/meminfo") if line.startswith("MemTotal")][0]
    criu = subprocess.run(["criu", "--version"], stdout=subprocess.PIPE).stdout.decode()
    criu = criu.split()[1] if criu.split() else "?"
    when = os.environ.get("CRIB_BENCH_WHEN", time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    commit = os.environ.get("CRIB_BENCH_COMMIT")
    flags = [line.split(":", 1)[1].split() for line in open("/proc/cpuinfo")
             if line.startswith("flags")][0]
    rep = [f for f in ("erms", "fsrm") if f in flags]
    lines = [
        "Run %s%s." % (when, ", commit " + commit if commit else ""),
        "Guest: Linux %s with the CRIB series under QEMU TCG (emulated, no KVM), "
        "given %s vCPUs, of which the guest kernel brings up %d; %d MiB RAM; "
        "CRIU %s; clocksource %s; CPU flags %s." % (
            uname.release, os.environ.get("CRIB_VM_CPUS", "?"), os.cpu_count(),
            int(mem) // 1024, criu, clock,
            " and ".join(rep) + " (the kernel copies a byte per emulated step)" if rep
            else "without erms and fsrm (the kernel copies eight bytes per step)"),
    ]
    lines += clock_lines
    if clock != "tsc":
        lines.append("**Warning: the guest clock is not the TSC; it loses time under load, "
                     "and times taken with it are not to be trusted.**")
    if os.environ.get("CRIB_BENCH_HOST"):
        lines.append("Host: %s." % os.environ["CRIB_BENCH_HOST"])
    if os.environ.get("CRIB_BENCH_TOOLS"):
        lines.append("Tools: crib-dump, crib-restore and crib-inspect of the build in %s, "
                     "not the installed ones." % os.environ["CRIB_BENCH_TOOLS"])
    if quick_note:
        lines.append("**Quick run: %s; a functional check, not a measurement.**" % quick_note)
    lines.append("Times are medians under emulation: only the ratios within this run mean "
                 "something. How it is measured: bench/README.md.")
    return lines


TOOLS = ("crib-dump", "crib-restore", "crib-inspect")


def use_build_tools(msgs, build):
    """Run the tools of the meson build directory @build instead of the
    installed ones: two builds' tools, each in a run of its own, compare in
    one boot (the guest sees a build under /work at the same path)."""
    build = os.path.abspath(build)
    dirs = [os.path.join(build, "tools", name) for name in TOOLS]
    for d, name in zip(dirs, TOOLS):
        if not os.access(os.path.join(d, name), os.X_OK):
            msgs.fail("--tools %s: no %s in %s" % (build, name, d))
    os.environ["PATH"] = os.pathsep.join(dirs + [os.environ.get("PATH", "")])
    os.environ["CRIB_BENCH_TOOLS"] = build


def parse_args(msgs, description, quick_help, large_help=None, build_tools=False):
    """The drivers' command line (--quick, --large if @large_help, --tools
    BUILD if @build_tools, --output FILE); they run as root."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--quick", action="store_true", help=quick_help)
    if large_help:
        ap.add_argument("--large", action="store_true", help=large_help)
    if build_tools:
        ap.add_argument("--tools", metavar="BUILD",
                        help="run crib-dump, crib-restore and crib-inspect of this meson "
                        "build directory, not the installed ones")
    ap.add_argument("--output", help="write the markdown results here too")
    args = ap.parse_args()
    if os.geteuid():
        msgs.fail("run me as root in the CRIB guest")
    if build_tools and args.tools:
        use_build_tools(msgs, args.tools)
    return args


def publish(text, output):
    """The report to stdout and, whole or not at all, to the file output."""
    sys.stdout.write(text)
    if output:
        with open(output + ".tmp", "w") as f:
            f.write(text)
        os.rename(output + ".tmp", output)


def timed_crib_dump(msgs, argv):
    """Run crib-dump (argv has -v) and time it: (whole time, frozen time, from
    its "stopped" line to its "let go" line (--pre-copy) or else its "done"
    line, resource usage)."""
    stopped = done = let_go = None
    lines = []
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    for line in proc.stderr:
        now = time.monotonic()
        lines.append(line.decode(errors="replace"))
        if line.startswith(b"crib-dump: stopped "):
            stopped = now
        elif line.startswith(b"crib-dump: done"):
            done = now
        elif line.startswith(b"crib-dump: let go") and let_go is None:
            let_go = now
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.monotonic() - t0
    code = os.waitstatus_to_exitcode(status)
    if code or stopped is None or done is None:
        msgs.fail("crib-dump failed (status %d):\n%s" % (code, "".join(lines)))
    return elapsed, (let_go or done) - stopped, usage
