#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""crib-dump refuses a tree with a process or thread in another namespace
than its own (pid, mnt, net, uts, ipc, cgroup, user), and one that has
unshared a time namespace for its children: none is carried yet, and a
restore would put the tree in crib-restore's namespaces without a word.
Each refusal names the process (or thread), the namespace and its inode;
no snapshot is left behind and the processes run on, untraced.  TAP."""
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, "/usr/local/libexec/crib/tests/dump-lib")
from dumptest import dump, not_traced  # noqa: E402
from restoretest import wait_for  # noqa: E402
from tap import Tap  # noqa: E402

t = Tap()
tmp = os.environ.get("TMPDIR", "/tmp")


def ns_inode(pid, kind):
    """The inode /proc/PID/ns/KIND links to."""
    return int(re.search(r"\[(\d+)\]", os.readlink("/proc/%d/ns/%s" % (pid, kind))).group(1))


def children(pid):
    with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
        return [int(c) for c in f.read().split()]


def comm(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return None


def in_other_ns(pid, kind):
    """pid runs sleep (unshare has exec'd it) in another namespace of kind."""
    return comm(pid) == "sleep" and ns_inode(pid, kind) != ns_inode(os.getpid(), kind)


def start(argv):
    return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def stop(p):
    """Kill p and everything under it (a new pid namespace's init takes its
    children with it)."""
    for c in children(p.pid) if p.poll() is None else []:
        try:
            os.kill(c, 9)
        except ProcessLookupError:
            pass
    p.kill()
    p.wait()


def check_refused(name, pid, target, message, out):
    """Dump pid: refused with message naming target's namespace.  Another
    test of the same boot may have left a snapshot of that name."""
    if os.path.exists(out):
        os.unlink(out)
    rc, err = dump(pid, out)
    t.eq(rc, 1, "%s: exit 1" % name)
    t.check(message in err, "%s: the message names the process and namespace" % name,
            "wanted %r in %r" % (message, err))
    t.check(not os.path.exists(out), "%s: no snapshot file left" % name)
    t.check(os.path.exists("/proc/%d" % target) and not_traced(target) and not_traced(pid),
            "%s: the processes run on, untraced" % name)


# unshare(1) options and the namespace they make, one process each.
ONE_PROCESS = [("--uts", "uts"), ("--ipc", "ipc"), ("--net", "net"), ("--mount", "mnt"),
               ("--cgroup", "cgroup"), ("--user", "user")]


def test_one_process(option, kind):
    p = start(["unshare", option, "sleep", "600"])
    try:
        if not t.check(wait_for(lambda: in_other_ns(p.pid, kind), 10),
                       "%s: sleep runs in a new %s namespace" % (option, kind)):
            return
        ino = ns_inode(p.pid, kind)
        check_refused("unshare %s" % option, p.pid, p.pid,
                      "process %d (sleep) is in another %s namespace than crib-dump "
                      "(%s:[%d]" % (p.pid, kind, kind, ino), os.path.join(tmp, "ns.crib"))
    finally:
        stop(p)


def test_pid_namespace():
    """unshare --pid --fork: the child is PID 1 of a new pid namespace."""
    p = start(["unshare", "--pid", "--fork", "sleep", "600"])
    try:
        if not t.check(wait_for(lambda: children(p.pid) and comm(children(p.pid)[0]) == "sleep",
                                10), "unshare --pid: a child"):
            return
        child = children(p.pid)[0]
        ino = ns_inode(child, "pid")
        out = os.path.join(tmp, "pidns.crib")
        check_refused("pid namespace, its parent dumped", p.pid, child,
                      "process %d (unshare) is in another pid namespace than crib-dump "
                      "(pid:[%d]" % (p.pid, ino), out)
        check_refused("pid namespace, its init dumped", child, child,
                      "process %d (sleep) is in another pid namespace than crib-dump "
                      "(pid:[%d]" % (child, ino), out)
    finally:
        stop(p)


def test_tree_spans_namespaces():
    """The root in crib-dump's namespaces, a child in another."""
    p = start(["sh", "-c", "unshare --uts sleep 600 & wait"])
    try:
        if not t.check(wait_for(lambda: children(p.pid) and
                                in_other_ns(children(p.pid)[0], "uts"), 10),
                       "a tree: sh, and a child in a new uts namespace"):
            return
        child = children(p.pid)[0]
        check_refused("a child in another namespace", p.pid, child,
                      "process %d (sleep) is in another uts namespace than crib-dump"
                      % child, os.path.join(tmp, "tree-ns.crib"))
    finally:
        stop(p)


THREAD = """
import ctypes, os, threading, time
libc = ctypes.CDLL(None, use_errno=True)
def odd():
    assert libc.unshare(0x04000000) == 0        # CLONE_NEWUTS, this thread only
    open(%r, 'w').write(str(threading.get_native_id()))
    time.sleep(600)
threading.Thread(target=odd, daemon=True).start()
time.sleep(600)
"""


def test_thread():
    ready = os.path.join(tmp, "ns-thread")
    if os.path.exists(ready):
        os.unlink(ready)
    p = start([sys.executable, "-c", THREAD % ready])
    try:
        if not t.check(wait_for(lambda: os.path.exists(ready) and open(ready).read(), 10),
                       "a thread in a new uts namespace"):
            return
        tid = int(open(ready).read())
        check_refused("a thread in another namespace", p.pid, p.pid,
                      "thread %d of process %d (python3) is in another uts namespace than "
                      "its leader" % (tid, p.pid), os.path.join(tmp, "thread-ns.crib"))
    finally:
        stop(p)


def test_time_for_children():
    """unshare --time --fork: unshare's children go into a time namespace
    that is not its own."""
    p = start(["unshare", "--time", "--fork", "--monotonic", "1000", "sleep", "600"])
    try:
        if not t.check(wait_for(lambda: children(p.pid) and comm(children(p.pid)[0]) == "sleep",
                                10), "unshare --time: a child"):
            return
        ino = ns_inode(p.pid, "time_for_children")
        check_refused("a time namespace for the children", p.pid, p.pid,
                      "process %d (unshare) has unshared a time namespace for its children "
                      "(time:[%d]" % (p.pid, ino), os.path.join(tmp, "timens.crib"))
    finally:
        stop(p)


for test in [lambda o=o, k=k: test_one_process(o, k) for o, k in ONE_PROCESS] + \
        [test_pid_namespace, test_tree_spans_namespaces, test_thread, test_time_for_children]:
    try:
        test()
    except Exception as e:
        t.check(False, "raised %r" % (e,))
sys.exit(t.done())
