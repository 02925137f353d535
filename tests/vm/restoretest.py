# SPDX-License-Identifier: GPL-2.0
"""Shared by the guest tests of crib-restore: running it, the restored
process's end (the test adopts it, to reap it), and a second dump of the
restored process compared with its snapshot."""
import ctypes
import os
import signal
import subprocess
import time

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
        lines = out.splitlines()
        real = real_differences(snap, lines) if real_differences else lines
    else:
        real = [out]
    t.check(not real, "%s: re-dump has no differences%s" % (name, but), out)
