#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""crib-restore on event files: the events workload (eventfds, a signalfd,
timerfds, two epoll instances, one item under a closed descriptor, one
whose file only its child holds, an inotify) dumped, killed and restored; the event
files checked from outside against what they were (/proc/PID/fdinfo, the
snapshot), a second dump compared with the first, and the workload's own
check: the epoll wakes for the pipe, the socket and the inner epoll, the
counts, the signal and the expiration read back, the timer fires when it
says, the inotify reports changes under its watch descriptors.  Then restores made to fail once the event files exist
(CRIB_RESTORE_FAULT) leave nothing behind, and the snapshot still
restores.  TAP."""
import os
import re
import sys

sys.path.insert(0, "/usr/local/libexec/crib/tests/dump-lib")
from dumptest import (Workload, alive, dump, fdinfo, inspect_json, not_traced,  # noqa: E402
                      read, records, self_check)
from restoretest import adopt_orphans, pid_free, reap, redump_diff, restore  # noqa: E402
from tap import Tap  # noqa: E402

t = Tap()
# The steps that fail with the event files made: before any process, in
# the child once it has its descriptors, in the restorer, in the tracer.
FAULT_STEPS = ("descriptions", "files", "done", "registers", "detach")


def workload_fds(w):
    return {name: int(fd) for name, fd in (line.split() for line in read(w.path("fds")).splitlines())}


def epoll_items(pid, fd):
    """(tfd, events, data) of each item, as fdinfo lists them."""
    return sorted((int(m.group(1)), int(m.group(2), 16), int(m.group(3), 16)) for m in
                  re.finditer(r"tfd:\s+(\d+) events:\s+([0-9a-f]+) data:\s+([0-9a-f]+)",
                              read("/proc/%d/fdinfo/%d" % (pid, fd))))


def event_state(pid, fds):
    """What fdinfo says of the event files, less what runs on (time left, ids)."""
    state = {}
    for name, fd in fds.items():
        if name in ("closed", "child_efd"):
            continue
        info = fdinfo(pid, fd)
        info.pop("ino", None)
        info.pop("eventfd-id", None)
        info.pop("it_value", None)
        info.pop("pos", None)
        info.pop("mnt_id", None)
        for key in list(info):
            if key.startswith("tfd") or key.startswith("inotify wd"):
                info.pop(key)
        state[name] = info
    state["inotify watches"] = sorted(
        line for line in read("/proc/%d/fdinfo/%d" % (pid, fds["inotify"])).splitlines()
        if line.startswith("inotify wd:"))
    state["epoll items"] = epoll_items(pid, fds["epoll"])
    state["inner items"] = epoll_items(pid, fds["inner"])
    return state


def child_of(pid):
    return int(read("/proc/%d/task/%d/children" % (pid, pid)).split()[0])


def reap_tree(pids):
    for pid in pids:
        reap(pid)


def differences_but_parent(snap, lines):
    """crib-inspect --diff's lines, less the root's parent: this test, which adopts it."""
    lines = [x for x in lines if not re.fullmatch(r"    ppid: \d+ -> %d" % os.getpid(), x)]
    return [x for i, x in enumerate(lines) if x.startswith("    ") or
            not x.startswith("changed: process ") or
            (i + 1 < len(lines) and lines[i + 1].startswith("    "))]


def check_timers_from_outside(pid, fds, snap):
    """Each timerfd armed for at most the time it had left at the dump."""
    left = {r["fd"]: r["value_ns"] for r in records(inspect_json(snap), "timerfd")
            if r["pid"] == pid}
    ok, why = True, []
    for name in ("timer", "periodic", "absolute"):
        m = re.match(r"\((\d+), (\d+)\)", fdinfo(pid, fds[name])["it_value"])
        now = int(m.group(1)) * 10**9 + int(m.group(2))
        if not 0 < now <= left[fds[name]]:
            ok = False
            why.append("%s: %d ns left, %d at the dump" % (name, now, left[fds[name]]))
    t.check(ok, "events: each timer armed with at most the time it had left", "; ".join(why))


def test_restore():
    w = Workload("events", "@DIR@")
    fds = workload_fds(w)
    child = child_of(w.pid)
    before = event_state(w.pid, fds)
    snap = w.path("snap.crib")
    rc, err = dump(w.pid, snap)
    if not t.eq(rc, 0, "events: dumped"):
        t.diag(err)
        w.stop()
        reap(child)
        return
    w.proc.wait()
    reap(child)
    rc, err = restore(snap)
    if not t.eq(rc, 0, "events: crib-restore exits 0"):
        t.diag(err)
        return
    try:
        if not t.check(alive(w.pid) and alive(child), "events: both processes run again"):
            return
        t.check(not_traced(w.pid), "events: not traced, not stopped")
        t.eq(event_state(w.pid, fds), before,
             "events: every event file as fdinfo showed it, every epoll item as it was")
        check_timers_from_outside(w.pid, fds, snap)
        redump_diff(t, "events", w.pid, snap, differences_but_parent)
        t.eq(self_check(w.pid, w.path("check"), 60), "ok\n",
             "events: its own check passes (epoll wakes, counts, signal, timer on time)")
    finally:
        reap_tree((w.pid, child))
    return snap, w.pid, child


def test_faults(snap, pid, child):
    for step in FAULT_STEPS:
        rc, err = restore(snap, env=dict(os.environ, CRIB_RESTORE_FAULT=step))
        t.check(rc == 1 and "CRIB_RESTORE_FAULT=%s" % step in err,
                "fault at %s: exit 1, naming the step" % step, err)
        t.check(pid_free(pid) and pid_free(child),
                "fault at %s: no process left, both PIDs free" % step)
        reap_tree((pid, child))
    rc, err = restore(snap)
    if not t.eq(rc, 0, "faults: the snapshot still restores after every failure"):
        t.diag(err)
        return
    check = os.path.join(os.path.dirname(snap), "check")
    if os.path.exists(check):
        os.unlink(check)
    t.eq(self_check(pid, check, 60), "ok\n",
         "faults: restored after them, its own check passes")
    reap_tree((pid, child))


def main():
    adopt_orphans()
    done = test_restore()
    if done:
        test_faults(*done)
    t.done()


if __name__ == "__main__":
    main()
