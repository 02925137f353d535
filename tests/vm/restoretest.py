# SPDX-License-Identifier: GPL-2.0
"""Shared by the guest tests of crib-restore: running it, the restored
process's end (the test adopts it, to reap it), a second dump of the
restored process compared with its snapshot, and the shape every restore
test has: cases that crash fail one check and let the rest run, and a
migration (dumped in one boot, restored in the next)."""
import ctypes
import json
import os
import signal
import subprocess
import sys
import time
import traceback

from dumptest import dump

PR_SET_CHILD_SUBREAPER = 36


def adopt_orphans():
    """Make this test the subreaper of what it starts: a restored process,
    orphaned when crib-restore exits, becomes its child, to be reaped."""
    ctypes.CDLL(None).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def restore(snap, *extra, timeout=600, env=None):
    """crib-restore -i SNAP EXTRA...; (exit status, standard error)."""
    r = subprocess.run(["crib-restore", "-i", snap] + list(extra), stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout, env=env)
    return r.returncode, r.stderr.decode(errors="replace")


def restore_from_pipe(snap, *extra, timeout=600):
    """crib-restore reading the snapshot from a pipe, as from crib-dump | crib-restore."""
    cat = subprocess.Popen(["cat", snap], stdout=subprocess.PIPE)
    r = subprocess.run(["crib-restore"] + list(extra), stdin=cat.stdout,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    cat.stdout.close()
    cat.wait()
    return r.returncode, r.stderr.decode(errors="replace")


def reap(pid):
    """Kill a restored process, adopted by adopt_orphans(), and collect it."""
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass


def pid_free(pid):
    """Neither a process nor a zombie holds pid."""
    return not os.path.exists("/proc/%d" % pid)


def running_exe(path):
    """PIDs of the processes running the program at path."""
    pids = []
    for d in os.listdir("/proc"):
        try:
            if d.isdigit() and os.readlink("/proc/%s/exe" % d) == path:
                pids.append(int(d))
        except OSError:
            pass
    return pids


def wait_for(cond, timeout, interval=0.2):
    """Whether cond() holds within timeout seconds."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if cond():
            return True
        time.sleep(interval)
    return cond()


def redump_diff(t, name, pid, snap, real_differences=None, but=""):
    """Dump the restored process again, leaving it running, and compare the
    dump with its snapshot, volatile fields aside: TAP checks on t.
    real_differences(snap, lines) keeps, of crib-inspect --diff's lines,
    those a restore must not make (default: all); but says in the check's
    description what it lets through."""
    again = snap + ".again"
    rc, err = dump(pid, again, "--leave-running")
    if not t.eq(rc, 0, "%s: the restored process dumps again" % name):
        t.diag(err)
        return
    r = subprocess.run(["crib-inspect", "--diff", "--ignore-volatile", snap, again],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = r.stdout.decode(errors="replace")
    if r.returncode == 0:
        real = []
    elif r.returncode == 1:
        # the last line totals the others: no difference of its own
        lines = [ln for ln in out.splitlines() if not ln.startswith("total: ")]
        real = real_differences(snap, lines) if real_differences else lines
    else:
        real = [out]
    t.check(not real, "%s: re-dump has no differences%s" % (name, but), out)


def guarded(t, test, *args):
    """test(*args), or None when it raised: then one failed check on t,
    with the traceback, and the tests after it still run."""
    try:
        return test(*args)
    except Exception as e:  # a crashed test is a failed one, and the rest still run
        what = getattr(args[0], "name", "") if args else ""
        t.check(False, "%s %s raised %r" % (test.__name__, what, e), traceback.format_exc())
        return None


def migrate_dump(t, base, cases, pids, dump_one):
    """The first boot of a migration: for each case, dump_one(case, base)
    starts it in base (in the checkout, which outlives the boot) and dumps
    it, returning the notes its checks need, or None.  pids is (first, step):
    case i gets PIDs from first + step * i on, above what a fresh boot uses,
    so free there.  The notes go to base/notes.json."""
    notes = {}
    os.makedirs(base, exist_ok=True)
    for i, case in enumerate(cases):
        with open("/proc/sys/kernel/ns_last_pid", "w") as f:
            f.write("%d" % (pids[0] + pids[1] * i))
        note = guarded(t, dump_one, case, base)
        if note is not None:
            notes[case.name] = note
    with open(os.path.join(base, "notes.json"), "w") as f:
        json.dump(notes, f)


def migrate_restore(t, base, cases, restore_one):
    """The second boot: restore_one(case, note) for every case dumped in
    the first one."""
    with open(os.path.join(base, "notes.json")) as f:
        notes = json.load(f)
    for case in cases:
        if t.check(case.name in notes, "%s: dumped in the first boot" % case.name):
            guarded(t, restore_one, case, notes[case.name])


def main_with_migration(t, usage, run_all, dump_one, restore_one, migrated, pids):
    """The main() of a restore test: run_all() in this boot, or with
    --migrate dump|restore DIR one boot of a migration of the cases in
    migrated (see migrate_dump(), migrate_restore()).  TAP on t; the exit
    status."""
    # Restored roots outlive crib-restore; we adopt them, and orphans, to reap them.
    adopt_orphans()
    argv = sys.argv[1:]
    if len(argv) == 3 and argv[0] == "--migrate" and argv[1] == "dump":
        guarded(t, migrate_dump, t, argv[2], migrated, pids, dump_one)
    elif len(argv) == 3 and argv[0] == "--migrate" and argv[1] == "restore":
        guarded(t, migrate_restore, t, argv[2], migrated, restore_one)
    elif not argv:
        run_all()
    else:
        print(usage, file=sys.stderr)
        return 2
    return t.done()
