#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""crib-dump's pinned programs (/sys/fs/bpf/crib): the first dump loads
and pins them, later dumps take them; what a dump left in their maps does
not reach the next snapshot; root alone can reach them; pins of another
build, or missing a program, are replaced; a dump that finds them in use
loads its own; --preload pins them without a dump.  TAP."""
import fcntl
import os
import shutil
import stat
import subprocess
import sys

sys.path.insert(0, "/usr/local/libexec/crib/tests/dump-lib")
from dumptest import Workload, dump, inspect_json, records  # noqa: E402
from tap import Tap  # noqa: E402

ROOT = "/sys/fs/bpf/crib"
t = Tap()


def clear_pins():
    if os.path.isdir(ROOT):
        shutil.rmtree(ROOT)


def pin_dirs():
    return sorted(os.listdir(ROOT)) if os.path.isdir(ROOT) else []


def programs_line(err):
    """What crib-dump -v says of where its programs came from."""
    for line in err.splitlines():
        if line.startswith("crib-dump: programs "):
            return line[len("crib-dump: programs "):]
    return None


def dump_v(pid, out):
    rc, err = dump(pid, out, "-v", "--leave-running")
    t.eq(rc, 0, "%s: crib-dump succeeds" % os.path.basename(out))
    if rc:
        t.diag(err)
    return programs_line(err)


def files_of(path):
    return [(f["fd"], f.get("desc", 0), f.get("type")) for f in records(inspect_json(path), "file")]


def main():
    w = Workload("pipe", "4096", "@DIR@/ready")
    try:
        clear_pins()
        cold = dump_v(w.pid, w.path("cold.crib"))
        t.check(cold is not None and cold.startswith("loaded and pinned"),
                "first dump: programs loaded and pinned", cold)
        dirs = pin_dirs()
        t.eq(len(dirs), 1, "one directory of pins, named by the build")
        key = os.path.join(ROOT, dirs[0]) if dirs else ROOT
        st = os.stat(ROOT)
        t.check(st.st_uid == 0 and stat.S_IMODE(st.st_mode) == 0o700,
                "%s is root's, closed to others" % ROOT, oct(st.st_mode))
        modes = {n: stat.S_IMODE(os.stat(os.path.join(key, n)).st_mode)
                 for n in os.listdir(key)} if dirs else {}
        t.check(modes and all(m == 0o600 for m in modes.values()),
                "every pin is root's alone", modes)
        t.check(any(n.startswith("prog-dump_") for n in modes) and
                any(n.startswith("map-") for n in modes), "programs and maps are pinned",
                sorted(modes))

        warm = dump_v(w.pid, w.path("warm.crib"))
        t.eq(warm, "pinned", "second dump: programs taken from the pins")
        first = files_of(w.path("cold.crib"))
        t.check(first and first == files_of(w.path("warm.crib")),
                "file records (and their description numbers) alike from loaded and pinned "
                "programs: the maps were emptied", (first, files_of(w.path("warm.crib"))))
        # Another process: its numbers start at 1, whatever the last dump numbered.
        w2 = Workload("pipe", "4096", "@DIR@/ready")
        try:
            dump_v(w2.pid, w2.path("other.crib"))
            other = files_of(w2.path("other.crib"))
        finally:
            w2.stop()
        t.check(other and min(d for _, d, _ in other) == 1,
                "another process: description numbers start at 1 again", other)

        # In use: a dump that finds the lock taken loads its own.
        fd = os.open(key, os.O_RDONLY | os.O_DIRECTORY)
        fcntl.flock(fd, fcntl.LOCK_EX)
        busy = dump_v(w.pid, w.path("busy.crib"))
        t.check(busy is not None and busy.startswith("loaded (") and
                "another dump uses the pins" in busy,
                "pins in use: the dump loads its own programs", busy)
        t.eq(files_of(w.path("busy.crib")), first, "and dumps the same")
        os.close(fd)

        # Incomplete pins are replaced.
        if dirs:
            os.unlink(os.path.join(key, "prog-dump_vmas"))
        broken = dump_v(w.pid, w.path("broken.crib"))
        t.check(broken is not None and broken.startswith("loaded and pinned") and
                "incomplete" in broken, "a missing program: loaded and pinned again", broken)
        t.check(dirs and os.path.exists(os.path.join(key, "prog-dump_vmas")),
                "the missing program is pinned again")

        # Pins of another build go when this build pins its own.
        clear_pins()
        os.mkdir(ROOT, 0o700)
        os.mkdir(os.path.join(ROOT, "0123456789abcdef"), 0o700)
        dump_v(w.pid, w.path("stale.crib"))
        t.eq(pin_dirs(), dirs, "the pins of another build are removed")

        # A root directory others could write is not trusted.
        os.chmod(ROOT, 0o777)
        loose = dump_v(w.pid, w.path("loose.crib"))
        t.check(loose is not None and loose.startswith("loaded") and "closed to others" in loose,
                "a %s others may write is not used" % ROOT, loose)
        os.chmod(ROOT, 0o700)

        clear_pins()
        r = subprocess.run(["crib-dump", "--preload", "-v"], stderr=subprocess.PIPE, text=True)
        t.eq(r.returncode, 0, "crib-dump --preload succeeds")
        t.check("loaded and pinned" in r.stderr, "--preload loads and pins", r.stderr)
        t.eq(pin_dirs(), dirs, "--preload pins this build's programs")
        r = subprocess.run(["crib-dump", "--preload", "-p", str(w.pid)],
                           stderr=subprocess.PIPE, text=True)
        t.eq(r.returncode, 2, "--preload with a pid is bad usage")
        t.check(w.alive(), "the workload ran on through every dump")
    finally:
        w.stop()
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
