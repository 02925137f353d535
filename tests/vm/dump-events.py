#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""crib-dump on event files: the events workload (eventfds, a signalfd,
timerfds, two epoll instances, one item under a closed descriptor, one
whose file only a child holds, an inotify with two watches and unread
events) dumped with --leave-running, every value checked against
/proc/PID/fdinfo; then an epoll watching a file no process of the tree
holds, which the dump refuses.  TAP."""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, "/usr/local/libexec/crib/tests/dump-lib")
from dumptest import (Workload, dump, fdinfo, inspect_json, not_traced, read,  # noqa: E402
                      records, self_check)
from tap import Tap  # noqa: E402

O_CLOEXEC = 0o2000000
TYPES = {"eventfd": 7, "eventpoll": 8, "signalfd": 9, "timerfd": 10, "inotify": 11}

t = Tap()


def workload_fds(w):
    return {name: int(fd) for name, fd in (line.split() for line in read(w.path("fds")).splitlines())}


def epoll_items(pid, fd):
    """The items of an epoll as fdinfo lists them: (tfd, events, data) -> watched inode."""
    items = {}
    for line in read("/proc/%d/fdinfo/%d" % (pid, fd)).splitlines():
        m = re.match(r"tfd:\s+(\d+) events:\s+([0-9a-f]+) data:\s+([0-9a-f]+)\s+pos:\S+ ino:([0-9a-f]+)",
                     line)
        if m:
            items[(int(m.group(1)), int(m.group(2), 16), int(m.group(3), 16))] = int(m.group(4), 16)
    return items


def timer_ns(text):
    sec, nsec = re.match(r"\((\d+), (\d+)\)", text).groups()
    return int(sec) * 10**9 + int(nsec)


def anon_kind(pid, fd):
    m = re.fullmatch(r"anon_inode:\[?(\w+)\]?", os.readlink("/proc/%d/fd/%d" % (pid, fd)))
    return m.group(1) if m else None


def check_files(pid, files, before):
    """Every event file's type, flags and FD_CLOEXEC, and its state, against fdinfo."""
    for fd, info in sorted(before.items()):
        kind = anon_kind(pid, fd)
        f = files.get(fd)
        if not t.check(f is not None, "fd %d (%s): a file record" % (fd, kind)):
            continue
        flags = int(info["flags"], 8)
        t.eq((f["type"], f.get("flags", 0), f.get("cloexec", False), f.get("path", "")),
             (TYPES[kind], flags & ~O_CLOEXEC, bool(flags & O_CLOEXEC), ""),
             "fd %d (%s): type, status flags, cloexec, no path" % (fd, kind))
        if kind == "eventfd":
            t.eq((f.get("eventfd_count", 0), f.get("eventfd_semaphore", False)),
                 (int(info["eventfd-count"], 16), info["eventfd-semaphore"] == "1"),
                 "fd %d (eventfd): count and EFD_SEMAPHORE as fdinfo" % fd)
        elif kind == "signalfd":
            t.eq(f.get("sigmask", 0), int(info["sigmask"], 16),
                 "fd %d (signalfd): mask as fdinfo" % fd)


def check_timers(pid, timers, before, after):
    """Clock, flags, ticks and interval as fdinfo; time left between fdinfo before and after."""
    for fd, info in sorted(before.items()):
        if anon_kind(pid, fd) != "timerfd":
            continue
        tr = timers.get(fd)
        if not t.check(tr is not None, "fd %d (timerfd): a timerfd record" % fd):
            continue
        t.eq((tr.get("clockid", 0), tr.get("settime_flags", 0), tr.get("ticks", 0),
              tr.get("interval_ns", 0)),
             (int(info["clockid"]), int(info["settime flags"], 8), int(info["ticks"]),
              timer_ns(info["it_interval"])),
             "fd %d (timerfd): clockid, settime flags, ticks, it_interval as fdinfo" % fd)
        hi, lo = timer_ns(info["it_value"]), timer_ns(after[fd]["it_value"])
        t.check(lo <= tr.get("value_ns", 0) <= hi,
                "fd %d (timerfd): it_value between fdinfo before and after the dump" % fd,
                "%d <= %d <= %d" % (lo, tr.get("value_ns", 0), hi))


def check_epolls(pid, fds, items):
    """Each epoll's items as fdinfo lists them, each naming a descriptor that holds its file."""
    for name in ("epoll", "inner"):
        fd = fds[name]
        want = epoll_items(pid, fd)
        got = {(i["tfd"], i.get("events", 0), i.get("data", 0)): i for i in items
               if i["pid"] == pid and i["fd"] == fd}
        t.eq(sorted(got), sorted(want), "epoll fd %d: tfd, events and data of %d items as fdinfo"
             % (fd, len(want)))
        ok = all(os.stat("/proc/%d/fd/%d" % (i["target_pid"], i["target_fd"])).st_ino ==
                 want.get(k) for k, i in got.items())
        t.check(ok, "epoll fd %d: each item names a descriptor holding the watched file" % fd)
    closed = [i for i in items if i["pid"] == pid and i["tfd"] == fds["closed"]]
    t.check(len(closed) == 1 and closed[0]["target_fd"] == fds["big"],
            "epoll: the item under a closed descriptor names the file's other descriptor")
    child = [i for i in items if i["pid"] == pid and i["tfd"] == fds["child_efd"]]
    t.check(len(child) == 1 and child[0]["target_pid"] != pid,
            "epoll: the item whose file only the child holds names the child's descriptor")


def inotify_watches(pid, fd):
    """wd -> (inode, mask) of each watch, as fdinfo lists them."""
    return {int(m.group(1), 16): (int(m.group(2), 16), int(m.group(3), 16)) for m in
            re.finditer(r"inotify wd:([0-9a-f]+) ino:([0-9a-f]+) sdev:[0-9a-f]+ mask:([0-9a-f]+)",
                        read("/proc/%d/fdinfo/%d" % (pid, fd)))}


def check_inotify(pid, fd, doc):
    """Each watch as fdinfo lists it, with a path that reaches its inode; a note for the
    events left unread."""
    want = inotify_watches(pid, fd)
    got = {r["wd"]: r for r in records(doc, "inotify_watch") if r["pid"] == pid and r["fd"] == fd}
    t.eq({wd: (r.get("inode"), r.get("mask", 0)) for wd, r in got.items()}, want,
         "inotify fd %d: watch descriptor, inode and mask of %d watches as fdinfo" % (fd, len(want)))
    ok = all(os.lstat(r["path"]).st_ino == r.get("inode") and
             os.lstat(r["path"]).st_dev == r.get("dev") for r in got.values())
    t.check(ok, "inotify fd %d: each watch's path reaches the watched inode" % fd,
            [r["path"] for r in got.values()])
    notes = [r["value"] for r in records(doc, "note") if r["name"] == "crib-dump.inotify"]
    t.check(any(("process %d, fd %d: " % (pid, fd)) in n and "queued events not carried" in n
                for n in notes), "inotify fd %d: a note says its unread events are not carried"
            % fd, notes)


def check_stats(snap):
    """The dump_stats record (1.8): the phases timed, the tree frozen for a while."""
    r = subprocess.run(["crib-inspect", "--stats", "--json", snap], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    stats = json.loads(r.stdout)["dump_stats"] if r.returncode == 0 else []
    if not t.check(len(stats) == 1, "stats: crib-inspect --stats finds the dump's statistics",
                   r.stdout + r.stderr):
        return
    s = stats[0]
    phases = [p["name"] for p in s["phases"]]
    t.eq(phases, ["load", "freeze", "read", "write"], "stats: the phases in order")
    t.check(0 < s["frozen_ns"] <= s["total_ns"],
            "stats: a frozen time, within the whole (%d of %d ns)" % (s["frozen_ns"],
                                                                      s["total_ns"]), s)
    t.check(s["processes"] >= 1 and s["threads"] >= 1, "stats: processes and threads counted",
            s)


def test_events():
    w = Workload("events", "@DIR@")
    try:
        fds = workload_fds(w)
        event_fds = [fd for fd in map(int, os.listdir("/proc/%d/fd" % w.pid))
                     if anon_kind(w.pid, fd)]
        before = {fd: fdinfo(w.pid, fd) for fd in event_fds}
        snap = w.path("snap.crib")
        rc, err = dump(w.pid, snap, "--leave-running")
        after = {fd: fdinfo(w.pid, fd) for fd in event_fds}
        if not t.eq(rc, 0, "events: dumped with --leave-running"):
            t.diag(err)
            return
        doc = inspect_json(snap)
        t.eq(doc["records"][0]["version"], [1, 10], "events: format 1.10")
        files = {f["fd"]: f for f in records(doc, "file") if f["pid"] == w.pid}
        timers = {r["fd"]: r for r in records(doc, "timerfd") if r["pid"] == w.pid}
        check_files(w.pid, files, before)
        check_timers(w.pid, timers, before, after)
        check_epolls(w.pid, fds, records(doc, "epoll_item"))
        check_inotify(w.pid, fds["inotify"], doc)
        check_stats(snap)
        t.check(not_traced(w.pid), "events: runs on untraced after the dump")
        t.eq(self_check(w.pid, w.path("check"), 60), "ok\n",
             "events: its own check passes after the dump")
    finally:
        w.stop()


def test_outside_file(tmp):
    """An epoll watching a file only a process outside the tree holds."""
    efd = os.eventfd(0)
    ready = os.path.join(tmp, "outside-ready")
    code = ("import os, select, time\n"
            "ep = select.epoll()\n"
            "ep.register(%d, select.EPOLLIN)\n"
            "os.close(%d)\n"
            "open(%r, 'w').close()\n"
            "time.sleep(600)\n") % (efd, efd, ready)
    p = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, pass_fds=[efd])
    try:
        while not os.path.exists(ready) and p.poll() is None:
            time.sleep(0.05)
        out = os.path.join(tmp, "outside.crib")
        rc, err = dump(p.pid, out)
        t.eq(rc, 1, "an epoll watching a file outside the tree: exit 1")
        t.check("process %d" % p.pid in err and "(eventpoll)" in err and
                "added as fd %d, that no process of the tree holds" % efd in err,
                "... naming the process, the epoll and the descriptor", err)
        t.check(not os.path.exists(out), "... no snapshot file left")
        t.check(p.poll() is None and not_traced(p.pid), "... the process released, running")
    finally:
        p.kill()
        p.wait()
        os.close(efd)


def main():
    test_events()
    tmp = tempfile.mkdtemp(prefix="crib-events-")
    test_outside_file(tmp)
    t.done()


if __name__ == "__main__":
    main()
