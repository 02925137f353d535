#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""crib-restore on the workloads: dump (which kills), restore, and check
the restored process against what the original was: its PID and TIDs,
its state read from outside (procfs, its memory through /proc/PID/mem,
its pipe), the state audit (every attribute the kernel shows, against
spec/state.md), its own account of itself, and a second dump of it
compared with the first by crib-inspect --diff.  TAP.

  restore-workloads.py                      everything, in this boot
  restore-workloads.py --migrate dump DIR   start and dump the workloads into DIR
  restore-workloads.py --migrate restore DIR
                                            (a fresh boot) restore and check them"""
import ctypes
import fcntl
import hashlib
import os
import re
import signal
import struct
import subprocess
import sys
import time

sys.path.insert(0, "/usr/local/libexec/crib/tests/dump-lib")
from dumptest import (PAGE, Workload, alive, dump, fdinfo, not_traced,  # noqa: E402
                      proc_maps, proc_status, read, self_check)
from restoretest import (guarded, main_with_migration, pid_free, reap,  # noqa: E402
                         redump_diff, restore, restore_from_pipe, running_exe)
from tap import Tap  # noqa: E402
import stateaudit  # noqa: E402

t = Tap()


def maps_key(pid):
    return [(m["start"], m["end"], m["perms"], m["path"]) for m in proc_maps(pid)]


def differences_but_parent(snap, lines):
    """crib-inspect --diff's lines of difference, less the parent becoming
    this test: it adopts restored processes, and was the original's parent
    only when both ran in this boot (crib-restore restores no parent)."""
    lines = [x for x in lines if not re.fullmatch(r"    ppid: \d+ -> %d" % os.getpid(), x)]
    return [x for i, x in enumerate(lines) if x.startswith("    ") or
            not x.startswith("changed: process ") or
            (i + 1 < len(lines) and lines[i + 1].startswith("    "))]


def redump(name, pid, snap, differences=differences_but_parent):
    """The restored process dumped again has no differences with its snapshot."""
    redump_diff(t, name, pid, snap, differences)


def session_of(pid):
    """(pgrp, session, tty_nr != 0, tpgid) of /proc/PID/stat."""
    f = read("/proc/%d/stat" % pid).rsplit(")", 1)[1].split()
    return [int(f[2]), int(f[3]), f[4] != "0", int(f[5])]


# ---- The workloads, each as a case: how to start it, what to note of it
# before the dump, and how to check it once restored.  The same cases run in
# one boot (dump, then restore) and across two (--migrate dump, then
# --migrate restore in a fresh boot); what a check needs of the original
# is in its notes, which are JSON so they outlive the first boot.

class Case:
    workload = None     # program and arguments, "@DIR@" standing for its directory
    ready = "ready"
    user = None
    verify = False      # crib-restore --verify
    from_pipe = False   # the snapshot through a pipe
    dump_args = ()      # crib-dump's options
    moving = ()         # what the workload changes itself while it runs (stateaudit)
    checks_original = False     # its own check runs on the original too
    dumped_child = False        # notes["child"], killed by the dump with it

    def __init__(self, name):
        self.name = name

    def start(self, parent=None):
        # A workload that goes to another boot (parent: the migration's
        # directory) leads its own session: the test's session is not there
        # to be joined again, and its id depends on how that boot went.
        w = Workload(*self.workload, ready=self.ready, user=self.user, parent=parent,
                     session=parent is not None)
        if self.checks_original:
            t.eq(self_check(w.pid, w.path("check"), 90), "ok\n",
                 "%s: the original passes its own check" % self.name)
            os.unlink(w.path("check"))
        return w

    def notes(self, w):
        """What the checks need to know of the original, JSON-able."""
        return {}

    def check(self, pid, notes):
        """The restored process, running as pid: TAP checks."""

    def prepare(self, notes):
        """What the restore needs in this boot besides the snapshot: in
        the boot of the dump, a child it killed is this test's zombie
        (adopt_orphans), which holds the child's PID."""
        if self.dumped_child:
            try:
                os.waitpid(notes["child"], 0)
            except ChildProcessError:
                pass


def note_original(case, w):
    """What every case checks of the original, and the case's own notes."""
    notes = {"pid": w.pid, "dir": w.dir, "maps": maps_key(w.pid),
             "tids": sorted(int(x) for x in os.listdir("/proc/%d/task" % w.pid)),
             "audit": stateaudit.note(w.pid)}
    notes.update(case.notes(w))
    return notes


def dump_original(case, w, snap):
    """Dump (which kills w) and collect it; True when dumped."""
    rc, err = dump(w.pid, snap, *case.dump_args)
    if not t.eq(rc, 0, "%s: dumped" % case.name):
        t.diag(err)
        w.stop()
        return False
    w.proc.wait()
    return True


def restore_case(case, notes, snap):
    """Restore and check the process against its notes; it is reaped after."""
    pid = notes["pid"]
    case.prepare(notes)
    extra = ["--verify"] if case.verify else []
    rc, err = restore_from_pipe(snap, *extra) if case.from_pipe else restore(snap, *extra)
    how = (" --verify" if case.verify else "") + (" from a pipe" if case.from_pipe else "")
    if not t.eq(rc, 0, "%s: crib-restore%s exits 0" % (case.name, how)):
        t.diag(err)
    elif t.check(alive(pid), "%s: process %d is running again" % (case.name, pid)):
        t.check(not_traced(pid), "%s: not traced, not stopped" % case.name)
        t.eq(sorted(int(x) for x in os.listdir("/proc/%d/task" % pid)), notes["tids"],
             "%s: the same thread IDs" % case.name)
        t.eq([list(m) for m in maps_key(pid)], [list(m) for m in notes["maps"]],
             "%s: the same memory map (procfs)" % case.name)
        stateaudit.check(t, case.name, notes["audit"], pid, case.moving)
        case.check(pid, notes)
    reap(pid)


def run_case(case):
    """In one boot: start, dump, restore, check."""
    w = case.start()
    notes = note_original(case, w)
    snap = w.path("snap.crib")
    if dump_original(case, w, snap):
        restore_case(case, notes, snap)


def in_dir(notes, name):
    return os.path.join(notes["dir"], name)


class Idle(Case):
    workload = ("idle", "@DIR@/ready", "@DIR@/file")
    verify = True

    def check(self, pid, notes):
        status = proc_status(pid)
        t.eq(status["Umask"], "0027", "idle: umask")
        t.eq(os.readlink("/proc/%d/cwd" % pid), "/tmp", "idle: cwd")
        t.eq(int(read("/proc/%d/stat" % pid).rsplit(")", 1)[1].split()[16]), 7, "idle: nice")
        nofile = [line.split()[3] for line in read("/proc/%d/limits" % pid).splitlines()
                  if line.startswith("Max open files")]
        t.eq(nofile, ["300"], "idle: RLIMIT_NOFILE 300")
        t.eq((os.readlink("/proc/%d/fd/3" % pid), fdinfo(pid, 3)["pos"]),
             (in_dir(notes, "file"), "5"), "idle: fd 3 is FILE at offset 5")
        flags = int(fdinfo(pid, 4)["flags"], 8)
        t.eq((os.readlink("/proc/%d/fd/4" % pid), bool(flags & 0o2000), bool(flags & 0o2000000)),
             ("/dev/null", True, True), "idle: fd 4 is /dev/null, O_APPEND and close-on-exec")
        redump("idle", pid, in_dir(notes, "snap.crib"))


class Unprivileged(Case):
    """A process of an ordinary user comes back with its credentials, not root's."""
    workload = ("idle", "@DIR@/ready", "@DIR@/file")
    user = (1234, 2345)
    keys = ("Uid", "Gid", "Groups", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")

    def notes(self, w):
        # /proc/PID belongs to the process's user only while it is dumpable.
        return {"creds": {k: proc_status(w.pid)[k] for k in self.keys},
                "owner": os.stat("/proc/%d/status" % w.pid).st_uid}

    def check(self, pid, notes):
        got = {k: proc_status(pid)[k] for k in self.keys}
        t.eq(got, notes["creds"], "unprivileged: uids, gids, groups and capabilities")
        t.eq((notes["owner"], os.stat("/proc/%d/status" % pid).st_uid), (1234, 1234),
             "unprivileged: still dumpable (its /proc entries are its user's)")
        redump("unprivileged", pid, in_dir(notes, "snap.crib"))


def counter_value(path):
    text = read(path).strip()
    return int(text) if text else 0


def log_is_a_count(path):
    """LOG of the counter: "1\n2\n...\nN\n", nothing missing, nothing twice."""
    text = read(path)
    lines = text.split("\n")
    return text.endswith("\n") and lines[:-1] == [str(i) for i in range(1, len(lines))]


class Counter(Case):
    workload = ("counter", "@DIR@/count", "@DIR@/log")
    ready = "count"
    # it appends to its log while it runs, before the dump and after the restore
    moving = (r"fd \d+ of \d+\|(fdinfo:pos|fstat:size|fstat:mtime)",)

    def start(self, parent=None):
        w = Case.start(self, parent)
        while counter_value(w.path("count")) < 20:
            time.sleep(0.1)
        return w

    def check(self, pid, notes):
        at_dump = counter_value(in_dir(notes, "count"))
        time.sleep(1.5)
        now = counter_value(in_dir(notes, "count"))
        # Restarted from scratch it would be far below; skipping, far above.
        t.check(at_dump < now <= at_dump + 40, "counter: carries on from %d (now %d)" %
                (at_dump, now))
        t.check(log_is_a_count(in_dir(notes, "log")),
                "counter: its log, written at its own file offset, goes on where it was")


class Heap(Case):
    workload = ("heap", "16", "@DIR@/ready")

    def check(self, pid, notes):
        time.sleep(2.5)
        t.check(alive(pid) and not os.path.exists(in_dir(notes, "ready.bad")),
                "%s: the workload's own checksum of 16 MiB still matches after restore" %
                self.name)


def check_maps_memory(pid, base, n):
    """Page i of the run holds i; odd pages are read-only; shared and copied pages kept."""
    perms = {m["start"]: m["perms"] for m in proc_maps(pid)}
    bad = []
    with open("/proc/%d/mem" % pid, "rb") as mem:
        for i in range(n):
            mem.seek(base + i * PAGE)
            if int.from_bytes(mem.read(8), "little") != i:
                bad.append("page %d content" % i)
            if perms.get(base + i * PAGE, "")[:3] != ("r--" if i % 2 else "rw-"):
                bad.append("page %d protection %s" % (i, perms.get(base + i * PAGE)))
    return bad


class Maps(Case):
    n = 300
    workload = ("maps", str(n), "@DIR@/ready")
    verify = True

    def notes(self, w):
        return {"base": int(w.ready, 16)}

    def check(self, pid, notes):
        bad = check_maps_memory(pid, notes["base"], self.n)
        t.check(not bad, "maps: %d one-page VMAs keep contents and protections" % self.n,
                "\n".join(bad[:10]))
        shared = [m for m in proc_maps(pid) if m["perms"] == "rw-s"]
        text = b""
        if shared:
            with open("/proc/%d/mem" % pid, "rb") as mem:
                mem.seek(shared[0]["start"])
                text = mem.read(21)
        t.eq(text, b"shared anonymous page", "maps: the shared anonymous page")
        redump("maps", pid, in_dir(notes, "snap.crib"))


class Pipe(Case):
    nbytes = 3000
    workload = ("pipe", str(nbytes), "@DIR@/ready")
    verify = True

    def notes(self, w):
        rfd, wfd = (int(x) for x in w.ready.split())
        return {"rfd": rfd, "wfd": wfd}

    def check(self, pid, notes):
        rfd, wfd = notes["rfd"], notes["wfd"]
        t.eq(os.readlink("/proc/%d/fd/%d" % (pid, rfd))[:5], "pipe:", "pipe: read end back")
        t.eq(os.readlink("/proc/%d/fd/%d" % (pid, rfd)), os.readlink("/proc/%d/fd/%d" % (pid, wfd)),
             "pipe: both ends are one pipe")
        redump("pipe", pid, in_dir(notes, "snap.crib"))
        fd = os.open("/proc/%d/fd/%d" % (pid, rfd), os.O_RDONLY | os.O_NONBLOCK)
        data = os.read(fd, 65536)
        os.close(fd)
        t.eq(data, bytes((i * 7 + 3) & 0xff for i in range(self.nbytes)),
             "pipe: the %d queued bytes, in order" % self.nbytes)


def thread_names_masks(pid):
    return {str(tid): [read("/proc/%d/task/%s/comm" % (pid, tid)).strip(),
                       proc_status(pid, int(tid))["SigBlk"]]
            for tid in os.listdir("/proc/%d/task" % pid)}


class Threads(Case):
    workload = ("threads", "4", "@DIR@/ready")
    verify = True
    from_pipe = True

    def notes(self, w):
        return {"threads": thread_names_masks(w.pid)}

    def check(self, pid, notes):
        t.eq(thread_names_masks(pid), notes["threads"],
             "threads: every thread's name and signal mask")
        redump("threads", pid, in_dir(notes, "snap.crib"))


def vma_flags(pid):
    """{start address: VmFlags} from /proc/PID/smaps."""
    flags, start = {}, None
    for line in read("/proc/%d/smaps" % pid).splitlines():
        if re.match(r"[0-9a-f]+-[0-9a-f]+ ", line):
            start = int(line.split("-")[0], 16)
        elif line.startswith("VmFlags:"):
            flags[start] = line.split()[1:]
    return flags


def sigio_owner(pid, fd):
    """F_GETOWN_EX's type and id, and F_GETSIG, on a duplicate of the descriptor."""
    pidfd = os.pidfd_open(pid)
    try:
        dup = ctypes.CDLL(None, use_errno=True).syscall(438, pidfd, fd, 0)  # pidfd_getfd
        owner = struct.unpack("ii", fcntl.fcntl(dup, 16, bytes(8)))  # F_GETOWN_EX
        sig = fcntl.fcntl(dup, 11)  # F_GETSIG
        os.close(dup)
    finally:
        os.close(pidfd)
    return [owner[0], owner[1], sig]


def scheduling(pid):
    """What attrs sets before it starts its threads, seen for every thread."""
    return {"oom_score_adj": read("/proc/%d/oom_score_adj" % pid).strip(),
            "timerslack_ns": read("/proc/%d/timerslack_ns" % pid).strip(),
            "cpus": {tid: sorted(os.sched_getaffinity(int(tid)))
                     for tid in os.listdir("/proc/%d/task" % pid)}}


class Attrs(Case):
    """oom_score_adj, timer slack, CPU affinity and madvise() advice."""
    workload = ("attrs", "2", "@DIR@/ready")
    advice = {0: "rr", 2: "sr", 4: "dd", 6: "dc", 8: "wf"}

    def notes(self, w):
        base, sock = w.ready.split()
        return {"base": int(base, 16), "sock": int(sock), "sched": scheduling(w.pid)}

    def check(self, pid, notes):
        sched = scheduling(pid)
        t.eq(sched["oom_score_adj"], "321", "attrs: oom_score_adj")
        t.eq(sched["timerslack_ns"], "123456", "attrs: timer slack")
        t.eq(sched, notes["sched"], "attrs: every thread's CPU affinity")
        flags = vma_flags(pid)
        for i, flag in self.advice.items():
            t.check(flag in flags.get(notes["base"] + i * PAGE, []),
                    "attrs: page %d of the mapping has its advice (%s)" % (i, flag),
                    flags.get(notes["base"] + i * PAGE))
        t.check(int(fdinfo(pid, notes["sock"])["flags"], 8) & 0o20000,
                "attrs: the socket has O_ASYNC")
        t.eq(sigio_owner(pid, notes["sock"]), [1, pid, 35],
             "attrs: its SIGIO goes to the process, as SIGRTMIN + 1")
        redump("attrs", pid, in_dir(notes, "snap.crib"))


def signal_state(pid):
    keys = ("SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt")
    state = {k: proc_status(pid)[k] for k in keys}
    for tid in sorted(int(x) for x in os.listdir("/proc/%d/task" % pid)):
        state[str(tid)] = [proc_status(pid, tid)["SigPnd"], proc_status(pid, tid)["SigBlk"]]
    return state


def posix_timer_ids(pid):
    return [line.split()[1] for line in read("/proc/%d/timers" % pid).splitlines()
            if line.startswith("ID:")]


def await_verdict(pid, notes, desc):
    """Ask the workload to check itself (the file "check" in its directory)
    and wait up to a minute for its verdict, check.ok or check.bad."""
    open(in_dir(notes, "check"), "w").close()
    deadline = time.time() + 60
    while alive(pid) and time.time() < deadline:
        time.sleep(0.1)
    verdict = [f for f in ("check.ok", "check.bad") if os.path.exists(in_dir(notes, f))]
    t.check(verdict == ["check.ok"], desc,
            read(in_dir(notes, verdict[0])) if verdict else "no verdict: " +
            read(in_dir(notes, "output")))


class Signals(Case):
    """Handlers, pending signals with their siginfo, itimers and POSIX timers."""
    workload = ("signals", "@DIR@")

    def notes(self, w):
        return {"signals": signal_state(w.pid), "timers": posix_timer_ids(w.pid)}

    def check(self, pid, notes):
        t.eq(signal_state(pid), notes["signals"], "%s: pending, blocked, ignored and "
             "caught sets, per thread too" % self.name)
        t.eq(posix_timer_ids(pid), notes["timers"], "%s: the same POSIX timer ids" % self.name)
        # The workload takes every signal off its queue and checks its siginfo
        # and order, and that its timers are armed.
        await_verdict(pid, notes, "%s: after restore every signal is pending with "
                      "its siginfo, in order, and the timers are armed" % self.name)


class SignalsTrap(Signals):
    """SIGTRAP caught, blocked and pending, for the process and per thread:
    the signal the restorers' breakpoints raise as they finish."""
    workload = ("signals", "@DIR@", "trap")


class ResetConnection(Case):
    """A server holding a connection its client reset: closed, it gave
    back the port its listener has (fd 19 of a Node.js server that had
    served one request could not be bound again)."""
    workload = ("resetconn.py", "@DIR@", "8097")
    # Made unbound and unconnected, the closed socket no longer reports
    # the MSS of its dead connection, nor its pending error (spec/state.md
    # has no entry for a closed connection yet).
    moving = (r"fd 5 of \d+\|sockopt:TCP_MAXSEG",)

    def check(self, pid, notes):
        await_verdict(pid, notes, "%s: the listener takes a new client, the reset "
                      "connection reads as ended" % self.name)


def epoll_items(pid, fd):
    """(tfd, events, data) of each item of an epoll, as fdinfo lists them."""
    return sorted([int(m.group(1)), int(m.group(2), 16), int(m.group(3), 16)] for m in
                  re.finditer(r"tfd:\s+(\d+) events:\s+([0-9a-f]+) data:\s+([0-9a-f]+)",
                              read("/proc/%d/fdinfo/%d" % (pid, fd))))


class Events(Case):
    """Event files in epoll, and a child: migrated only (restore-events.py
    checks them in one boot, more closely).  Its inotify watches a local
    directory (9p keeps no names of its files in the dentry cache, where a
    dump finds the watched file's), which the next boot makes again: the
    watches go to the new directory and file."""
    watched = "/tmp/crib-events-watched"
    workload = ("events", "@DIR@", watched)

    def prepare(self, notes):
        os.makedirs(self.watched, exist_ok=True)
        open(os.path.join(self.watched, "file"), "a").close()

    def notes(self, w):
        fds = {name: int(fd) for name, fd in
               (line.split() for line in read(w.path("fds")).splitlines())}
        return {"fds": fds, "items": epoll_items(w.pid, fds["epoll"]),
                "child": int(read("/proc/%d/task/%d/children" % (w.pid, w.pid)).split()[0])}

    def check(self, pid, notes):
        t.check(alive(notes["child"]), "events: its child runs again")
        t.eq(epoll_items(pid, notes["fds"]["epoll"]), notes["items"],
             "events: every epoll item as it was (fdinfo)")
        t.eq(self_check(pid, in_dir(notes, "check"), 90), "ok\n",
             "events: its own check passes (epoll wakes, counts, signal, timer on time)")
        reap(notes["child"])


class Seccomp(Case):
    """Seccomp filters, shared by the threads as they were and a thread's
    own, and a child in strict mode: the workload checks them itself."""
    workload = ("seccomp", "@DIR@")
    checks_original = True
    dumped_child = True

    def notes(self, w):
        child, shared, own = (int(x) for x in read(w.path("ready")).split())
        return {"child": child, "filters": {str(tid): thread_filters(w.pid, tid)
                                            for tid in (w.pid, shared, own)}}

    def check(self, pid, notes):
        t.check(alive(notes["child"]), "seccomp: the strict child runs again")
        t.eq({tid: thread_filters(pid, int(tid)) for tid in notes["filters"]},
             notes["filters"], "seccomp: every thread's mode and filter count (procfs)")
        # Before the check, which changes its memory and registers.
        redump("seccomp", pid, in_dir(notes, "snap.crib"))
        t.eq(self_check(pid, in_dir(notes, "check"), 90), "ok\n",
             "seccomp: its own check passes (each filter fails its call in the threads "
             "it ran in, TSYNC fails on the thread with a filter of its own only, the "
             "strict child echoes)")
        reap(notes["child"])


class SocketFilter(Case):
    """A UDP socket with a classic BPF filter, locked, and a datagram
    queued before the filter was attached: the workload checks them."""
    workload = ("sockfilter", "@DIR@")

    def check(self, pid, notes):
        # Before the check, which reads the queue.
        redump("socket filter", pid, in_dir(notes, "snap.crib"))
        t.eq(self_check(pid, in_dir(notes, "check"), 90), "ok\n",
             "socket filter: its own check passes (the datagram queued before the filter "
             "kept, the filter read back and locked, judging what arrives)")


def thread_filters(pid, tid):
    status = read("/proc/%d/task/%d/status" % (pid, tid))
    return [line.split()[1] for line in status.splitlines()
            if line.startswith(("Seccomp:", "Seccomp_filters:"))]


class ThreadAttrs(Case):
    """membarrier registrations, SCHED_RESET_ON_FORK in every thread, and
    securebits, I/O priority and speculation controls of a thread's own:
    the workload checks them itself, as only it can read most of them."""
    workload = ("threadattrs", "@DIR@")
    checks_original = True

    def notes(self, w):
        locked, ioprio, spec = read(w.path("ready")).split()
        if ioprio == "-":
            t.diag("threadattrs: this kernel has no I/O priority to carry")
        if spec == "-":
            t.diag("threadattrs: this CPU offers no speculation control to carry")
        return {"locked": int(locked)}

    def check(self, pid, notes):
        t.check(os.path.exists("/proc/%d/task/%d" % (pid, notes["locked"])),
                "threadattrs: the second thread runs again")
        redump("threadattrs", pid, in_dir(notes, "snap.crib"))
        t.eq(self_check(pid, in_dir(notes, "check"), 90), "ok\n",
             "threadattrs: its own check passes (membarrier registrations, "
             "SCHED_RESET_ON_FORK, securebits, I/O priority, speculation controls)")


def lock_lines(pid, fds):
    """The "lock:" lines of each descriptor's fdinfo, and the /proc/locks
    lines (without their position) that name the process."""
    lines = {fd: [line for line in read("/proc/%d/fdinfo/%d" % (pid, fd)).splitlines()
                  if line.startswith("lock:")] for fd in fds}
    lines["proc"] = sorted(" ".join(f[1:]) for f in (line.split() for line in
                                                     read("/proc/locks").splitlines())
                           if len(f) > 4 and f[1] != "->" and f[4] == str(pid))
    return {str(k): v for k, v in lines.items()}


class Locks(Case):
    """POSIX, OFD and flock() locks and a lease, the flock() the child's:
    in one boot only (a 9p directory, where a migration keeps the
    workloads, takes no lease)."""
    workload = ("locks", "@DIR@")
    dumped_child = True

    def notes(self, w):
        fds = [int(x) for x in w.ready.split()[:4]]
        child = int(w.ready.split()[4])
        return {"fds": fds, "child": child, "locks": lock_lines(w.pid, fds),
                "child_locks": lock_lines(child, fds)}

    def check(self, pid, notes):
        child = notes["child"]
        if t.check(alive(child), "locks: its child runs again"):
            t.eq(lock_lines(pid, notes["fds"]), notes["locks"],
                 "locks: every lock in fdinfo and /proc/locks as it was, the process's PID")
            t.eq(lock_lines(child, notes["fds"]), notes["child_locks"],
                 "locks: the child's flock() in fdinfo and /proc/locks, with the child's PID")
        # before its own check, which runs it on: the same locks, and nothing else moved
        redump("locks", pid, in_dir(notes, "snap.crib"))
        t.eq(self_check(pid, in_dir(notes, "check"), 90), "ok\n",
             "locks: its own check passes (F_GETLK, F_OFD_GETLK, flock(), F_GETLEASE)")
        reap(child)


def pidfd_facts(pid, fds):
    """What each pidfd's fdinfo says (Pid and flags), by descriptor, JSON-able."""
    return {str(fd): [fdinfo(pid, fd)["Pid"], fdinfo(pid, fd)["flags"]] for fd in fds}


class Pidfds(Case):
    """Pidfds of a child (and a dup(), which a sibling inherited with
    them), of the process itself, of its thread (PIDFD_THREAD), of a
    reaped child, and a pipe taken from the child with pidfd_getfd()."""
    workload = ("pidfds", "@DIR@")

    def notes(self, w):
        v = [int(x) for x in w.ready.split()]
        fds = v[3:8]
        return {"child": v[0], "sibling": v[1], "fds": fds,
                "pidfds": pidfd_facts(w.pid, fds),
                "sibling_pidfds": pidfd_facts(v[1], fds[:3])}

    def prepare(self, notes):
        for p in (notes["child"], notes["sibling"]):
            try:
                os.waitpid(p, 0)
            except ChildProcessError:
                pass

    def check(self, pid, notes):
        child, sibling = notes["child"], notes["sibling"]
        if t.check(alive(child) and alive(sibling), "pidfds: the child and the sibling run "
                   "again"):
            t.eq(pidfd_facts(pid, notes["fds"]), notes["pidfds"],
                 "pidfds: each pidfd's Pid and flags in fdinfo as they were")
            t.eq(pidfd_facts(sibling, notes["fds"][:3]), notes["sibling_pidfds"],
                 "pidfds: the sibling's inherited pidfds as they were")
        # before its own check, which ends the child: nothing moved
        redump("pidfds", pid, in_dir(notes, "snap.crib"))
        t.eq(self_check(pid, in_dir(notes, "check"), 90), "ok\n",
             "pidfds: its own check passes (fdinfo, poll, pidfd_send_signal(), "
             "waitid(P_PIDFD), the pipe taken with pidfd_getfd())")
        t.check(not alive(child), "pidfds: the child ended through its pidfd and was reaped")
        reap(sibling)


def pty_differences(snap, lines):
    """crib-inspect --diff's lines, less the root's parent and the path of
    a slave whose number the kernel gave anew (spec: tty.index)."""
    lines = [x for x in lines if not re.fullmatch(r"    path: /dev/pts/\d+ -> /dev/pts/\d+", x)]
    return differences_but_parent(snap, lines)


class Pty(Case):
    """A pseudo-terminal pair as script(1) holds one: the master in the
    root, in packet mode; the slave the controlling terminal and streams of
    a child that leads its session, with a job of its own group in front.
    In one boot only: a migration's workloads lead their own session."""
    workload = ("pty", "@DIR@")

    def notes(self, w):
        master, shell, job = (int(x) for x in w.ready.split())
        return {"master": master, "shell": shell, "job": job,
                "sessions": [session_of(p) for p in (w.pid, shell, job)]}

    def prepare(self, notes):
        for child in (notes["shell"], notes["job"]):
            try:
                os.waitpid(child, 0)
            except ChildProcessError:
                pass

    def check(self, pid, notes):
        shell, job = notes["shell"], notes["job"]
        if not t.check(alive(shell) and alive(job), "pty: the shell and its job run again"):
            return
        t.eq([session_of(p) for p in (pid, shell, job)], notes["sessions"],
             "pty: sessions and groups as they were")
        t.eq(os.readlink("/proc/%d/fd/%d" % (pid, notes["master"])), "/dev/ptmx",
             "pty: the root holds a master")
        t.check(re.fullmatch(r"/dev/pts/\d+", os.readlink("/proc/%d/fd/0" % job)),
                "pty: the job's standard input is a slave")
        redump("pty", pid, in_dir(notes, "snap.crib"), pty_differences)
        t.eq(self_check(pid, in_dir(notes, "check"), 90), "ok\n",
             "pty: its own check passes (termios, window size, packet mode, session, "
             "foreground group, /dev/tty, ttyname, bytes through the pair)")
        for child in (job, shell):
            reap(child)


def allow_ping():
    """ICMP echo sockets for every group: the workload's, and
    crib-restore's, which makes the socket again."""
    with open("/proc/sys/net/ipv4/ping_group_range", "w") as f:
        f.write("0 2147483647")


class SockFamilies(Case):
    """Netlink sockets: a route socket bound to a chosen port id in three
    groups (one past 32) with flags on, a uevent socket whose port id the
    kernel chose, a route socket connected to the first; an ICMP echo
    socket and a UDP-Lite one with its checksum coverage; a raw ICMP socket
    with its filter; a packet socket bound to lo."""
    workload = ("sockfamilies", "@DIR@")
    checks_original = True

    def start(self, parent=None):
        allow_ping()
        return super().start(parent)

    def prepare(self, notes):
        allow_ping()

    def notes(self, w):
        fds = [int(x) for x in w.ready.split()[:3]]
        return {"fds": fds, "netlink": netlink_lines(w.pid, fds)}

    def check(self, pid, notes):
        t.eq(netlink_lines(pid, notes["fds"]), notes["netlink"],
             "sockfamilies: each netlink socket in /proc/net/netlink as it was "
             "(protocol, port id, first groups)")
        redump("sockfamilies", pid, in_dir(notes, "snap.crib"))
        t.eq(self_check(pid, in_dir(notes, "check"), 90), "ok\n",
             "sockfamilies: its own check passes (type, protocol, port ids, groups, "
             "flags, peer, an RTM_GETLINK dump; the ping socket's identifier and an "
             "echo reply; UDP-Lite's coverage and a datagram to itself; the raw socket's "
             "filter, seeing the echo reply only; the packet socket's binding, options and "
             "a frame over lo)")


def netlink_lines(pid, fds):
    """The /proc/net/netlink fields (protocol, port id, groups) of each
    descriptor's socket, by descriptor, JSON-able."""
    rows = {}
    for line in read("/proc/net/netlink").splitlines()[1:]:
        f = line.split()
        rows[f[9]] = f[1:4]
    out = {}
    for fd in fds:
        ino = re.fullmatch(r"socket:\[(\d+)\]", os.readlink("/proc/%d/fd/%d" % (pid, fd)))
        out[str(fd)] = rows.get(ino.group(1)) if ino else None
    return out


class HeapFast(Heap):
    """Pages stored, not compressed, and read back through a pipe."""
    dump_args = ("--fast",)
    from_pipe = True


class ChurnPreCopy(Case):
    """Memory rewritten all the time, copied while it runs (--pre-copy)."""
    workload = ("churn", "16", "@DIR@/ready")
    dump_args = ("--pre-copy",)

    def check(self, pid, notes):
        time.sleep(2.5)
        t.check(alive(pid) and not os.path.exists(in_dir(notes, "ready.bad")),
                "%s: every page of the 16 MiB it rewrites holds its last write" % self.name,
                read(in_dir(notes, "ready.bad")) if os.path.exists(in_dir(notes, "ready.bad"))
                else None)


# The workloads a migration carries from one boot to the next.
MIGRATED = (Idle("idle"), Counter("counter"), Heap("heap"), HeapFast("heap --fast"),
            ChurnPreCopy("churn --pre-copy"),
            Maps("maps"), Pipe("pipe"), Threads("threads"), Attrs("attrs"), Signals("signals"),
            Seccomp("seccomp"), SocketFilter("socket filter"), ThreadAttrs("threadattrs"),
            Pidfds("pidfds"), SockFamilies("sockfamilies"), Events("events"))
# In one boot, also a process of an ordinary user, one with SIGTRAP pending and
# a server holding a reset connection; events has a test of its own.
CASES = MIGRATED[:1] + (Unprivileged("unprivileged"),) + MIGRATED[1:-1] + \
    (SignalsTrap("signals trap"), ResetConnection("reset connection"), Locks("locks"),
     Pty("pty"))


def test_wait():
    """--wait stays with the process and returns its exit status; the snapshot
    is given as an operand, without -i."""
    w = Workload("idle", "@DIR@/ready", "@DIR@/file")
    pid = w.pid
    snap = w.path("snap.crib")
    rc, err = dump(pid, snap)
    w.proc.wait()
    if not t.eq(rc, 0, "wait: dumped"):
        return
    r = subprocess.Popen(["crib-restore", "--wait", snap], stdin=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    deadline = time.time() + 120
    while not alive(pid) and time.time() < deadline and r.poll() is None:
        time.sleep(0.05)
    time.sleep(0.2)
    t.check(r.poll() is None, "wait: crib-restore --wait still runs with the process")
    os.kill(pid, signal.SIGTERM)
    try:
        rc = r.wait(timeout=60)
    except subprocess.TimeoutExpired:
        r.kill()
        rc = None
    t.eq(rc, 128 + signal.SIGTERM, "wait: exit status 128 + SIGTERM")
    reap(pid)


def test_verify_difference():
    """--verify on a process that changes itself once restored: the counter's
    sleep is cut short (EINTR) and it counts at once, so its memory differs
    from the snapshot; crib-restore must say so, kill it and free its PID,
    and the snapshot must still restore."""
    w = Workload("counter", "@DIR@/count", ready="count")
    pid = w.pid
    snap = w.path("snap.crib")
    while counter_value(w.path("count")) < 5:
        time.sleep(0.1)
    rc, err = dump(pid, snap)
    w.proc.wait()
    if not t.eq(rc, 0, "verify difference: counter dumped"):
        t.diag(err)
        return
    at_dump = counter_value(w.path("count"))
    at_dump_bytes = read(w.path("count"))
    rc, err = restore(snap, "--verify")
    t.check(rc == 1 and "differs from its snapshot" in err and "changed: pages" in err and
            "was killed" in err, "verify difference: exit 1, the changed memory named", err)
    t.check(pid_free(pid), "verify difference: process %d is gone and its PID free" % pid)
    after = counter_value(w.path("count"))
    time.sleep(0.5)
    t.eq(counter_value(w.path("count")), after, "verify difference: nothing counts on")
    # The restored counter wrote to its file before it was killed: put the
    # file back as it was at the dump, or a count that gained a digit makes
    # the restore refuse a file whose size changed.
    with open(w.path("count"), "w") as f:
        f.write(at_dump_bytes)
    rc, err = restore(snap)
    if t.eq(rc, 0, "verify difference: the snapshot still restores without --verify"):
        time.sleep(1)
        t.check(alive(pid) and counter_value(w.path("count")) > at_dump,
                "verify difference: restored, it counts on from %d" % at_dump)
    else:
        t.diag(err)
    reap(pid)


# Where CRIB_RESTORE_FAULT can make a restore fail, in the order a restore
# passes them: crib-restore before any process (the unlinked files made
# again), the new process before the restorer, the restorer, the tracer.
FAULT_STEPS = ("ghosts", "sockets", "descriptions", "fork", "session", "terminal", "files", "locks", "attributes",
               "start", "rseq", "unmap", "vdso", "map", "fill", "protect", "mm", "sigaction", "itimer",
               "seccomp", "thread", "posix-timer", "sigqueue", "rlimit", "membarrier",
               "thread-state", "sched", "ioprio", "spec-ctrl", "creds", "securebits", "done",
               "pidfds", "registers",
               "seals", "resume", "unlock", "detach")


def test_faults():
    """A restore made to fail at each step (fault injection) says where,
    leaves no process and frees the PID and every TID; the snapshot
    restores afterwards."""
    w = Workload("threads", "3", "@DIR@/ready")
    pid = w.pid
    exe = os.readlink("/proc/%d/exe" % pid)
    tids = sorted(int(x) for x in os.listdir("/proc/%d/task" % pid))
    snap = w.path("snap.crib")
    rc, err = dump(pid, snap)
    w.proc.wait()
    if not t.eq(rc, 0, "faults: dumped the threads workload"):
        t.diag(err)
        return
    for step in FAULT_STEPS + ("7",):
        env = dict(os.environ, CRIB_RESTORE_FAULT=step)
        name = FAULT_STEPS[int(step) - 1] if step.isdigit() else step
        rc, err = restore(snap, env=env)
        t.check(rc == 1 and "injected fault" in err and "CRIB_RESTORE_FAULT=%s)" % name in err,
                "fault at %s: exit 1, naming the step" % step, err)
        taken = [x for x in tids if os.path.exists("/proc/%d" % x)]
        t.check(not taken and not running_exe(exe),
                "fault at %s: no process left, the PID and TIDs %s free" % (step, tids),
                "taken: %s, running %s: %s" % (taken, exe, running_exe(exe)))
    rc, err = restore(snap, env=dict(os.environ, CRIB_RESTORE_FAULT="nowhere"))
    t.check(rc == 2 and "no such step" in err and not os.path.exists("/proc/%d" % pid),
            "faults: an unknown step is refused before anything is created", err)
    rc, err = restore(snap)
    if t.eq(rc, 0, "faults: the snapshot still restores after every failure"):
        t.eq(sorted(int(x) for x in os.listdir("/proc/%d/task" % pid)), tids,
             "faults: restored with every thread")
    else:
        t.diag(err)
    reap(pid)


def test_pidfd_fault():
    """A restore made to fail once the pidfds are made leaves no process
    (the stand-in of the reaped child included) and frees every PID; the
    snapshot restores afterwards."""
    w = Workload("pidfds", "@DIR@")
    child, sibling, tid = (int(x) for x in w.ready.split()[:3])
    pid = w.pid
    snap = w.path("snap.crib")
    rc, err = dump(pid, snap)
    w.proc.wait()
    Pidfds("pidfds").prepare({"child": child, "sibling": sibling})
    if not t.eq(rc, 0, "pidfd fault: dumped the pidfds workload"):
        t.diag(err)
        return
    rc, err = restore(snap, env=dict(os.environ, CRIB_RESTORE_FAULT="pidfds"))
    t.check(rc == 1 and "CRIB_RESTORE_FAULT=pidfds)" in err, "fault at pidfds: exit 1", err)
    t.check(all(pid_free(p) for p in (pid, child, sibling, tid)),
            "fault at pidfds: no process left, the PIDs and TID free")
    rc, err = restore(snap)
    if t.eq(rc, 0, "pidfd fault: the snapshot restores afterwards"):
        t.check(alive(pid) and alive(child) and alive(sibling),
                "pidfd fault: the process, its child and its sibling run")
    else:
        t.diag(err)
    for p in (child, sibling, pid):
        reap(p)


def test_sockets_fault():
    """A restore made to fail once every socket is made (netlink ones
    among them) leaves no process and no socket bound to their port ids;
    the snapshot restores afterwards."""
    allow_ping()
    w = Workload("sockfamilies", "@DIR@")
    pid = w.pid
    route_id = int(w.ready.split()[3])
    snap = w.path("snap.crib")
    rc, err = dump(pid, snap)
    w.proc.wait()
    if not t.eq(rc, 0, "sockets fault: dumped the sockfamilies workload"):
        t.diag(err)
        return
    rc, err = restore(snap, env=dict(os.environ, CRIB_RESTORE_FAULT="sockets"))
    t.check(rc == 1 and "CRIB_RESTORE_FAULT=sockets)" in err, "fault at sockets: exit 1", err)
    ports = [line.split()[2] for line in read("/proc/net/netlink").splitlines()[1:]]
    t.check(pid_free(pid) and str(route_id) not in ports,
            "fault at sockets: no process left, the chosen port id free")
    rc, err = restore(snap)
    if t.eq(rc, 0, "sockets fault: the snapshot restores afterwards"):
        t.eq(self_check(pid, w.path("check"), 90), "ok\n",
             "sockets fault: its own check passes")
    else:
        t.diag(err)
    reap(pid)


def locks_free(directory):
    """Whether another description and process takes every lock the locks
    workload held: nothing of a failed restore holds them."""
    with open(os.path.join(directory, "posix"), "r+") as p, \
            open(os.path.join(directory, "ofd"), "r+") as o, \
            open(os.path.join(directory, "flock"), "r+") as f:
        try:
            fcntl.lockf(p, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.fcntl(o, fcntl.F_OFD_SETLK, struct.pack("hhqqixxxx", fcntl.F_WRLCK, 0, 0, 0, 0))
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
    return True


def test_pty_fault():
    """A restore made to fail in the job once it put its group in front of
    the pseudo-terminal its session leader took leaves no process of the
    tree; the snapshot restores afterwards, the pair working.  (Failing
    the leader instead lets the job fail too, with its own error, when the
    leader's exit takes the terminal from the session first.)"""
    w = Workload("pty", "@DIR@")
    pid = w.pid
    shell, job = (int(x) for x in w.ready.split()[1:])
    snap = w.path("snap.crib")
    rc, err = dump(pid, snap)
    w.proc.wait()
    reap(shell)
    reap(job)
    if not t.eq(rc, 0, "pty fault: dumped the pty workload"):
        t.diag(err)
        return
    env = dict(os.environ, CRIB_RESTORE_FAULT="terminal@%d" % job)
    rc, err = restore(snap, env=env)
    t.check(rc == 1 and "CRIB_RESTORE_FAULT=terminal)" in err, "fault at terminal: exit 1", err)
    t.check(pid_free(pid) and pid_free(shell) and pid_free(job),
            "fault at terminal: no process of the tree left")
    rc, err = restore(snap)
    if t.eq(rc, 0, "pty fault: the snapshot restores afterwards"):
        t.eq(self_check(pid, w.path("check"), 90), "ok\n", "pty fault: its own check passes")
    else:
        t.diag(err)
    for p in (job, shell, pid):
        reap(p)


def test_lock_failures():
    """A restore whose lock is held by another fails naming the process,
    descriptor and range, and so does one made to fail once the locks are
    taken; neither leaves a process or a lock, and the snapshot restores
    afterwards."""
    w = Workload("locks", "@DIR@")
    posix, child = int(w.ready.split()[0]), int(w.ready.split()[4])
    pid = w.pid
    snap = w.path("snap.crib")
    rc, err = dump(pid, snap)
    w.proc.wait()
    reap(child)
    if not t.eq(rc, 0, "lock failures: dumped the locks workload"):
        t.diag(err)
        return
    rc, err = restore(snap, env=dict(os.environ, CRIB_RESTORE_FAULT="locks"))
    t.check(rc == 1 and "CRIB_RESTORE_FAULT=locks)" in err, "fault at locks: exit 1", err)
    t.check(pid_free(pid) and pid_free(child) and locks_free(w.dir),
            "fault at locks: no process left, every lock free again")
    with open(w.path("posix"), "r+") as held:
        fcntl.lockf(held, fcntl.LOCK_EX | fcntl.LOCK_NB, 100, 100)
        rc, err = restore(snap)
    want = "process %d, fd %d (%s): cannot take its POSIX write lock on bytes 100-199" % (
        pid, posix, w.path("posix"))
    t.check(rc == 1 and want in err, "lock held elsewhere: refused, saying %r" % want, err)
    t.check(pid_free(pid) and pid_free(child) and locks_free(w.dir),
            "lock held elsewhere: no process left, every lock free again")
    rc, err = restore(snap)
    if t.eq(rc, 0, "lock failures: the snapshot restores once the lock is free"):
        t.eq(self_check(pid, w.path("check"), 90), "ok\n", "lock failures: its own check passes")
    else:
        t.diag(err)
    reap(child)
    reap(pid)


TARGET = "/usr/local/libexec/crib/bench/bench-target"


def private_anon(pid):
    """The writable private anonymous mappings of @pid but its stack."""
    return [m for m in proc_maps(pid)
            if m["perms"] == "rw-p" and m["path"] in ("", "[heap]")]


def large_anon(pid):
    """The address ranges of the large private anonymous mappings of @pid
    (the small ones have words the kernel writes, rseq's CPU number)."""
    return [(m["start"], m["end"]) for m in private_anon(pid) if m["end"] - m["start"] >= 4 << 20]


def anon_digest(pid, ranges):
    """A digest of what @ranges of @pid's memory hold.  The ranges, not the
    mappings of the moment: the kernel may merge a restored mapping with
    an adjacent one it had kept apart."""
    h = hashlib.sha256()
    with open("/proc/%d/mem" % pid, "rb") as mem:
        for start, end in ranges:
            mem.seek(start)
            h.update(b"%x-%x" % (start, end))
            h.update(mem.read(end - start))
    return h.hexdigest()


def restore_direct(name, pid, ranges, digest, run):
    """One restore by run(): (bytes copied in, bytes in shadows), or None."""
    rc, err = run()
    if not t.eq(rc, 0, "direct, %s: restored" % name):
        t.diag(err)
        reap(pid)
        return None
    m = re.search(r"process %d \(bench-target\): .* (\d+) bytes to copy in, (\d+) in "
                  r"shadows" % pid, err)
    t.check(m, "direct, %s: crib-restore -v says where the pages went" % name, err)
    if not t.eq(anon_digest(pid, ranges), digest, "direct, %s: the 16 MiB are as dumped" % name):
        t.diag("ranges %s; restored %s" % (["%x-%x" % r for r in ranges],
                                          ["%x-%x" % r for r in large_anon(pid)]))
    reap(pid)
    return (int(m.group(1)), int(m.group(2))) if m else None


def test_direct():
    """The pages of a --fast snapshot read from a file are copied straight
    into the new process; when that copy fails part way (the copy fault)
    they are written through /proc/PID/mem; read from a pipe, they go
    through shadows.  Every way, the memory is as dumped."""
    w = Workload(TARGET, "--mem", "16", "@DIR@/ready")
    pid, ranges = w.pid, large_anon(w.pid)
    digest = anon_digest(pid, ranges)
    snap = w.path("snap.crib")
    rc, err = dump(pid, snap, "--fast")
    w.proc.wait()
    if not t.eq(rc, 0, "direct: dumped a target with 16 MiB with --fast"):
        t.diag(err)
        return
    fault = dict(os.environ, CRIB_RESTORE_FAULT="copy")
    ways = (("from a file", lambda: restore(snap, "-v")),
            ("after a failed copy", lambda: restore(snap, "-v", env=fault)),
            ("from a pipe", lambda: restore_from_pipe(snap, "-v")))
    for name, run in ways:
        where = restore_direct(name, pid, ranges, digest, run)
        if where is None:
            continue
        if name == "from a pipe":
            t.check(where[0] == 0 and where[1] >= 16 << 20,
                    "direct, %s: nothing copied in, all in shadows" % name, str(where))
        else:
            t.check(where[0] >= 16 << 20 and where[1] < 1 << 20,
                    "direct, %s: the pages copied in, not in shadows" % name, str(where))


def expect_refusal(name, snap, pid, words, status=1):
    """Refused with @status: 1 for a restore refused, 4 or 5 for a snapshot
    the format cannot be read in (the exit statuses every tool shares)."""
    rc, err = restore(snap)
    t.check(rc == status and words in err, "%s: refused (exit %d), saying %r" %
            (name, status, words), "exit %d: %s" % (rc, err))
    t.check(not alive(pid), "%s: nothing of process %d left" % (name, pid))


def test_refusals():
    w = Workload("idle", "@DIR@/ready", "@DIR@/file")
    snap = w.path("snap.crib")
    rc, err = dump(w.pid, snap, "--leave-running")
    t.eq(rc, 0, "refusals: dumped with --leave-running")
    rc, err = restore(snap)
    t.check(rc == 1 and "in use" in err, "refusals: PID in use is refused", err)
    t.check(alive(w.pid) and not_traced(w.pid), "refusals: the running original is untouched")
    r = subprocess.run(["crib-restore", "--check", snap], stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    t.check(r.returncode == 1 and "in use" in r.stderr and not r.stdout,
            "refusals: --check says the PID is in use", r.stdout + r.stderr)
    w.stop()
    r = subprocess.run(["crib-restore", "--check", snap], stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    t.check(r.returncode == 0 and "can be restored here: 1 process," in r.stdout,
            "refusals: --check, once the PID is free, says it can be restored",
            r.stdout + r.stderr)
    t.check(pid_free(w.pid), "refusals: --check made no process")
    data = read(snap, "rb")
    pid = w.pid

    def variant(suffix, content):
        path = snap + suffix
        with open(path, "wb") as f:
            f.write(content)
        return path

    expect_refusal("truncated", variant(".short", data[:len(data) * 2 // 3]), pid, "snapshot", 5)
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0x40
    expect_refusal("corrupt", variant(".flip", bytes(flipped)), pid, "snapshot", 5)
    newer = bytearray(data)
    newer[8:10] = (2).to_bytes(2, "little")
    expect_refusal("newer major version", variant(".v2", bytes(newer)), pid, "newer", 4)
    with open(w.path("file"), "a") as f:
        f.write("more")
    expect_refusal("file grown", snap, pid, "changed size")
    os.unlink(w.path("file"))
    expect_refusal("file missing", snap, pid, "No such file")


def migrate_dump_one(case, base):
    w = case.start(parent=base)
    note = note_original(case, w)
    return note if dump_original(case, w, w.path("snap.crib")) else None


def migrate_restore_one(case, note):
    restore_case(case, note, in_dir(note, "snap.crib"))


def run_all():
    for case in CASES:
        guarded(t, run_case, case)
    for test in (test_wait, test_verify_difference, test_faults, test_lock_failures,
                 test_pidfd_fault, test_sockets_fault, test_pty_fault, test_direct,
                 test_refusals):
        guarded(t, test)


def main():
    return main_with_migration(t, __doc__, run_all, migrate_dump_one, migrate_restore_one,
                               MIGRATED, (30200, 160))


if __name__ == "__main__":
    sys.exit(main())
