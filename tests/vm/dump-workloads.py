#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""crib-dump against the workloads, each dumped with --leave-running and
every dumped fact checked against procfs or the workload's own account;
then the default mode, which kills the process once dumped.  TAP."""
import ctypes
import os
import resource
import socket
import signal
import stat
import sys
import time

sys.path.insert(0, "/usr/local/libexec/crib/tests/dump-lib")
from dumptest import (PAGE, Workload, dump, extract, fdinfo, inspect_json,  # noqa: E402
                      not_traced, path_text, proc_maps, proc_stat, proc_status, read,
                      records)
from tap import Tap  # noqa: E402

O_CLOEXEC = 0o2000000
PROT_READ, PROT_WRITE, PROT_EXEC = 1, 2, 4
MAP_SHARED = 1
FILE_TYPES = {stat.S_IFREG: 1, stat.S_IFDIR: 2, stat.S_IFCHR: 3, stat.S_IFBLK: 4,
              stat.S_IFIFO: 5, stat.S_IFSOCK: 6, stat.S_IFLNK: 15}

t = Tap()


def ulimit(v):
    return (1 << 64) - 1 if v == resource.RLIM_INFINITY else v


def check_process(name, pid, doc):
    procs = records(doc, "process")
    if not t.eq(len(procs), 1, "%s: one process record" % name):
        return
    p = procs[0]
    st, status = proc_stat(pid), proc_status(pid)
    ids = lambda key: [int(x) for x in status[key].split()]  # noqa: E731
    caps = lambda key: int(status[key], 16)  # noqa: E731
    t.eq((p["pid"], p["tgid"], p["ppid"], p["pgid"], p["sid"]),
         (pid, pid, int(status["PPid"]), int(st[5]), int(st[6])),
         "%s: pid, tgid, ppid, pgid, sid" % name)
    t.eq(path_text(p["comm"]), read("/proc/%d/comm" % pid).rstrip("\n"), "%s: comm" % name)
    t.eq([p["uid"], p["euid"], p["suid"], p["fsuid"]], ids("Uid"), "%s: uids" % name)
    t.eq([p["gid"], p["egid"], p["sgid"], p["fsgid"]], ids("Gid"), "%s: gids" % name)
    t.eq(sorted(p["groups"]), sorted(ids("Groups")), "%s: supplementary groups" % name)
    t.eq([p["cap_inh"], p["cap_prm"], p["cap_eff"], p["cap_bnd"], p["cap_amb"]],
         [caps(k) for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")],
         "%s: capabilities" % name)
    t.eq((p["sched_policy"], p["sched_priority"], p["nice"]),
         (int(st[41]), int(st[40]), int(st[19])), "%s: policy, rt priority, nice" % name)
    t.eq(p["personality"], int(read("/proc/%d/personality" % pid), 16), "%s: personality" % name)
    t.eq(p["umask"], int(status["Umask"], 8), "%s: umask" % name)
    t.eq(p["no_new_privs"], status["NoNewPrivs"] == "1", "%s: no_new_privs" % name)
    want = [{"resource": i, "cur": ulimit(resource.prlimit(pid, i)[0]),
             "max": ulimit(resource.prlimit(pid, i)[1])} for i in range(16)]
    t.eq(p["rlimits"], want, "%s: all 16 rlimits" % name)
    t.eq((path_text(p["cwd"]), path_text(p["root"]), path_text(p["exe"])),
         tuple(os.readlink("/proc/%d/%s" % (pid, w)) for w in ("cwd", "root", "exe")),
         "%s: cwd, root, exe" % name)
    tick = 1e9 / os.sysconf("SC_CLK_TCK")
    t.check(abs(p["start_time"] / tick - int(st[22])) <= 1,
            "%s: start time (ticks since boot)" % name, (p["start_time"], st[22]))
    t.eq(p["dumpable"], 1, "%s: dumpable" % name)


def check_mm(name, pid, doc):
    mms = records(doc, "mm")
    if not t.eq(len(mms), 1, "%s: one mm record" % name):
        return
    mm, st = mms[0], proc_stat(pid)
    keys = [("start_code", 26), ("end_code", 27), ("start_stack", 28), ("start_data", 45),
            ("end_data", 46), ("start_brk", 47), ("arg_start", 48), ("arg_end", 49),
            ("env_start", 50), ("env_end", 51)]
    t.eq([mm[k] for k, _ in keys], [int(st[i]) for _, i in keys],
         "%s: mm layout (code, data, brk, stack, args, env)" % name)
    auxv = read("/proc/%d/auxv" % pid, "rb")
    t.eq(mm["auxv"], auxv[:len(bytes.fromhex(mm["auxv"]))].hex(), "%s: auxv" % name)
    t.check(len(mm["auxv"]) // 2 >= 16 * 10, "%s: auxv has its entries" % name)
    t.eq(path_text(mm["exe"]), os.readlink("/proc/%d/exe" % pid), "%s: mm exe" % name)
    heap = [m for m in proc_maps(pid) if m["path"] == "[heap]"]
    if heap:
        t.check(heap[0]["end"] - PAGE < mm["brk"] <= heap[0]["end"], "%s: brk inside [heap]" % name)


def check_vmas(name, pid, doc):
    vmas = records(doc, "vma")
    maps = [m for m in proc_maps(pid) if m["path"] != "[vsyscall]"]
    t.eq(records(doc, "mm")[0]["nr_vmas"], len(vmas), "%s: nr_vmas matches the vma records" % name)
    if not t.eq(len(vmas), len(maps), "%s: one vma record per VMA of procfs" % name):
        return
    bad = []
    for v, m in zip(vmas, maps):
        perms = ("r" if v["prot"] & PROT_READ else "-") + ("w" if v["prot"] & PROT_WRITE else "-") + \
                ("x" if v["prot"] & PROT_EXEC else "-") + ("s" if v["flags"] & MAP_SHARED else "p")
        got = (v["start"], v["end"], perms, path_text(v["path"]), v["dev"], v["inode"])
        want = (m["start"], m["end"], m["perms"], m["path"], m["dev"], m["inode"])
        if got != want or (m["inode"] and v["pgoff"] * PAGE != m["offset"]):
            bad.append("%r != %r" % (got, want))
    t.check(not bad, "%s: every VMA: range, protection, sharing, path, dev, inode, offset" % name,
            "\n".join(bad[:5]))
    kinds = {"[heap]": 2, "[stack]": 3, "[vdso]": 4, "[vvar]": 5}
    wrong = [v for v in vmas if kinds.get(path_text(v["path"]), v["kind"]) != v["kind"]]
    t.check(not wrong, "%s: heap, stack, vdso, vvar kinds" % name, wrong[:3])


def check_pages(name, doc):
    vmas = records(doc, "vma")
    pages = records(doc, "pages")
    last, bad = 0, []
    for p in pages:
        end = p["addr"] + p["npages"] * PAGE
        inside = [v for v in vmas if v["start"] <= p["addr"] and end <= v["end"]]
        if p["addr"] < last or not inside or p["data"]["len"] not in (0, p["npages"] * PAGE):
            bad.append(p)
        last = end
    zero = sum(p["npages"] for p in pages if not p["data"]["len"])
    t.check(pages and not bad, "%s: %d pages records (%d zero pages), ascending, each inside a VMA"
            % (name, len(pages), zero), bad[:3])
    vdso = [v for v in vmas if v["kind"] in (4, 5)]
    t.check(not any(v["start"] <= p["addr"] < v["end"] for v in vdso for p in pages),
            "%s: no vdso or vvar contents" % name)


def check_threads(name, pid, doc):
    threads = records(doc, "thread")
    tids = sorted(int(x) for x in os.listdir("/proc/%d/task" % pid))
    t.eq(sorted(th["tid"] for th in threads), tids, "%s: one thread record per thread" % name)
    t.eq(threads[0]["tid"] if threads else None, pid, "%s: the leader's record first" % name)
    vmas = records(doc, "vma")
    bad = []
    for th in threads:
        tid, r = th["tid"], th["regs_x86_64"]
        status = proc_status(pid, tid)
        exec_vma = any(v["start"] <= r["rip"] < v["end"] and v["prot"] & PROT_EXEC for v in vmas)
        stack_vma = any(v["start"] <= r["rsp"] < v["end"] for v in vmas)
        if path_text(th["comm"]) != read("/proc/%d/task/%d/comm" % (pid, tid)).rstrip("\n"):
            bad.append("%d: comm %r" % (tid, th["comm"]))
        if th["sigmask"] != int(status["SigBlk"], 16):
            bad.append("%d: sigmask %x, SigBlk %s" % (tid, th["sigmask"], status["SigBlk"]))
        pending = sum(1 << (e["signo"] - 1) for e in th["pending"])
        if pending != int(status["SigPnd"], 16):
            bad.append("%d: pending %x, SigPnd %s" % (tid, pending, status["SigPnd"]))
        if not exec_vma or not stack_vma or r["cs"] != 0x33 or not r["fs_base"]:
            bad.append("%d: registers rip %x rsp %x cs %x fs_base %x" %
                       (tid, r["rip"], r["rsp"], r["cs"], r["fs_base"]))
        if len(th["xstate"]) // 2 < 576:	# legacy area + XSAVE header
            bad.append("%d: xstate of %d bytes" % (tid, len(th["xstate"]) // 2))
        if (th["sigaltstack"]["flags"], th["sigaltstack"]["size"]) != (2, 0):
            bad.append("%d: sigaltstack %r" % (tid, th["sigaltstack"]))
    t.check(not bad, "%s: every thread: comm, signal mask, pending signals, registers, xstate, "
            "altstack" % name,
            "\n".join(bad))
    t.eq(len({th["regs_x86_64"]["fs_base"] for th in threads}), len(threads),
         "%s: each thread has its own fs_base (TLS)" % name)


def check_files(name, pid, doc, changing=()):
    """@changing: fields the running workload changes after the dump."""
    files = records(doc, "file")
    fds = sorted(int(x) for x in os.listdir("/proc/%d/fd" % pid))
    if not t.eq([f["fd"] for f in files], fds, "%s: one file record per descriptor" % name):
        return
    bad = []
    for f in files:
        fd = f["fd"]
        info, st = fdinfo(pid, fd), os.stat("/proc/%d/fd/%d" % (pid, fd))
        flags = int(info["flags"], 8)
        want = {"pos": int(info["pos"]), "flags": flags & ~O_CLOEXEC,
                "cloexec": bool(flags & O_CLOEXEC), "inode": st.st_ino, "dev": st.st_dev,
                "mode": st.st_mode, "type": FILE_TYPES.get(stat.S_IFMT(st.st_mode), 0)}
        if stat.S_ISREG(st.st_mode):
            want["size"] = st.st_size
        if not stat.S_ISFIFO(st.st_mode):
            want["path"] = os.readlink("/proc/%d/fd/%d" % (pid, fd))
        for k in changing:
            want.pop(k, None)
        got = {k: (path_text(f[k]) if k == "path" else f[k]) for k in want}
        if got != want:
            bad.append("fd %d: %r != %r" % (fd, got, want))
    t.check(not bad, "%s: every descriptor: type, flags, cloexec, pos, path, dev, inode, mode" % name,
            "\n".join(bad))


def check_signals(name, pid, doc):
    """The process-wide signal records; dump-signals checks them in depth."""
    kinds = [len(records(doc, k)) for k in ("sighand", "sigpending", "timers")]
    if not t.eq(kinds, [1, 1, 1], "%s: one sighand, sigpending and timers record each" % name):
        return
    status = proc_status(pid)
    actions = records(doc, "sighand")[0]["actions"]
    ign = sum(1 << (a["signo"] - 1) for a in actions if a["handler"] == 1)
    cgt = sum(1 << (a["signo"] - 1) for a in actions if a["handler"] > 1)
    shared = sum(1 << (e["signo"] - 1) for e in records(doc, "sigpending")[0]["signals"])
    t.eq((ign, cgt, shared),
         tuple(int(status[k], 16) for k in ("SigIgn", "SigCgt", "ShdPnd")),
         "%s: handlers and process-wide pending signals match SigIgn, SigCgt, ShdPnd" % name)


def dump_and_check(name, w, snap, changing=()):
    rc, err = dump(w.pid, snap, "--leave-running")
    if not t.eq(rc, 0, "%s: crib-dump --leave-running exits 0" % name):
        t.diag(err)
        return None
    doc = inspect_json(snap)
    t.eq(doc["status"], {"ok": True}, "%s: the snapshot verifies" % name)
    t.check(w.alive() and not_traced(w.pid), "%s: left running, not traced, not stopped" % name)
    check_process(name, w.pid, doc)
    check_mm(name, w.pid, doc)
    check_vmas(name, w.pid, doc)
    check_pages(name, doc)
    check_threads(name, w.pid, doc)
    check_files(name, w.pid, doc, changing)
    check_signals(name, w.pid, doc)
    return doc


def test_idle():
    w = Workload("idle", "@DIR@/ready", "@DIR@/file")
    try:
        doc = dump_and_check("idle", w, w.path("snap"))
        if not doc:
            return
        p = records(doc, "process")[0]
        t.eq((p["umask"], p["nice"], p["rlimits"][resource.RLIMIT_NOFILE]["cur"]), (0o27, 7, 300),
             "idle: the umask, nice and RLIMIT_NOFILE it set")
        files = {f["fd"]: f for f in records(doc, "file")}
        t.eq((files[3]["pos"], path_text(files[3]["path"]), files[3]["flags"] & 3),
             (5, w.path("file"), os.O_RDWR), "idle: its file, read-write at offset 5")
        t.eq((files[4]["flags"] & os.O_APPEND, files[4]["cloexec"], files[4]["type"]),
             (os.O_APPEND, True, 3), "idle: /dev/null, O_APPEND and FD_CLOEXEC, a chardev")
    finally:
        w.stop()


def test_counter():
    w = Workload("counter", "@DIR@/count", ready="count")
    try:
        # it rewrites its file, whose size grows with the count
        if not dump_and_check("counter", w, w.path("snap"), changing=("size",)):
            return
        before = int(read(w.path("count")))
        time.sleep(0.5)
        t.check(int(read(w.path("count"))) > before, "counter: counts on after the dump")

        rc, err = dump(w.pid, w.path("snap2"))
        t.check(rc == 0, "counter: crib-dump without --leave-running exits 0", err)
        t.eq(w.proc.wait(timeout=10), -9, "counter: ... and the process was killed")
        t.eq(inspect_json(w.path("snap2"))["status"], {"ok": True},
             "counter: that snapshot verifies")
    finally:
        w.stop()


def test_heap():
    w = Workload("heap", "16", "@DIR@/ready")
    try:
        addr, length, want = w.ready.split()
        addr, length = int(addr, 16), int(length)
        doc = dump_and_check("heap", w, w.path("snap"))
        if not doc:
            return
        got = extract("memsum", w.path("snap"), "%x" % addr, length).decode().strip()
        t.eq(got, want, "heap: the dumped 16 MiB have the workload's checksum")
        # Runs may go on past the heap into a neighbour the kernel merged it with.
        npages = sum(max(0, min(addr + length, p["addr"] + p["npages"] * PAGE) -
                         max(addr, p["addr"])) // PAGE for p in records(doc, "pages"))
        touched = sum(1 for i in range(length // PAGE) if i % 3 != 2)
        t.eq(npages, touched, "heap: only the populated pages were dumped")
        time.sleep(1.5)
        t.check(w.alive() and not os.path.exists(w.path("ready.bad")),
                "heap: still running with its memory unchanged")
    finally:
        w.stop()


def test_maps():
    # more VMAs than dump_vmas's ring buffer holds at once (4096 records):
    # the walk has to resume
    n = 5000
    w = Workload("maps", str(n), "@DIR@/ready")
    try:
        doc = dump_and_check("maps", w, w.path("snap"))
        if not doc:
            return
        vmas = records(doc, "vma")
        pages = records(doc, "pages")
        dumped = {p["addr"] + i * PAGE for p in pages for i in range(p["npages"])}
        covered = dumped.__contains__
        t.check(len(vmas) > n, "maps: %d VMAs dumped" % len(vmas))
        base = int(w.ready, 16)
        area = [v for v in vmas if base <= v["start"] < base + n * PAGE]
        t.check(len(area) == n and all(v["end"] - v["start"] == PAGE and covered(v["start"])
                                       for v in area),
                "maps: each of the %d one-page VMAs, with its page" % n)
        shared = [v for v in vmas if v["kind"] == 7]
        t.check(len(shared) == 1 and covered(shared[0]["start"]),
                "maps: the shared anonymous page, kind shared-anon, dumped")
        exe = os.readlink("/proc/%d/exe" % w.pid)
        cow = [v for v in vmas if path_text(v["path"]) == exe and v["prot"] == PROT_READ | PROT_WRITE
               and v["end"] - v["start"] == PAGE and v["pgoff"] == 0]
        t.check(len(cow) == 1 and covered(cow[0]["start"]),
                "maps: the copied page of the private file mapping, dumped")
        clean = [v for v in vmas if v["kind"] == 1 and v["prot"] & PROT_EXEC]
        t.check(clean and not any(covered(a) for v in clean for a in range(v["start"], v["end"], PAGE)),
                "maps: clean file pages (code) not dumped")
    finally:
        w.stop()


def test_pipe():
    nbytes = 5000
    w = Workload("pipe", str(nbytes), "@DIR@/ready")
    try:
        rfd, wfd = (int(x) for x in w.ready.split())
        doc = dump_and_check("pipe", w, w.path("snap"))
        if not doc:
            return
        ours = [p for p in records(doc, "pipe") if p["fd"] in (rfd, wfd)]
        pipe_id = ours[0]["pipe_id"] if ours else None
        others = {p["pipe_id"] for p in records(doc, "pipe") if p["fd"] not in (rfd, wfd)}
        pipes = sorted((p["fd"], p["pipe_id"], p["end"], p["queued"]) for p in ours)
        t.check(pipes == [(rfd, pipe_id, 0, nbytes), (wfd, pipe_id, 1, nbytes)] and
                pipe_id not in others,
                "pipe: both ends, one pipe id no other pipe has, %d bytes queued" % nbytes,
                pipes)
        data = extract("pipe", w.path("snap"), pipe_id)
        t.eq(data, bytes((i * 7 + 3) & 0xff for i in range(nbytes)), "pipe: the queued bytes")
        t.eq(len(records(doc, "pipe_data")), 1, "pipe: the data written once")
        import fcntl
        import termios
        import array
        fd = os.open("/proc/%d/fd/%d" % (w.pid, rfd), os.O_RDONLY | os.O_NONBLOCK)
        n = array.array("i", [0])
        fcntl.ioctl(fd, termios.FIONREAD, n)
        os.close(fd)
        t.eq(n[0], nbytes, "pipe: still queued in the running process after the dump")
    finally:
        w.stop()


def test_threads():
    w = Workload("threads", "4", "@DIR@/ready")
    try:
        doc = dump_and_check("threads", w, w.path("snap"))
        if not doc:
            return
        threads = records(doc, "thread")
        t.eq(sorted(path_text(th["comm"]) for th in threads),
             ["worker-%d" % i for i in range(4)], "threads: four named threads")
        t.eq(len({th["sigmask"] for th in threads}), 4, "threads: four different signal masks")
    finally:
        w.stop()


def test_seccomp():
    """Every thread's seccomp mode and filter count as procfs has them; the
    filter the threads share is one record, named by all three."""
    w = Workload("seccomp", "@DIR@")
    try:
        child, shared, own = (int(x) for x in read(w.path("ready")).split())
        rc, err = dump(w.pid, w.path("snap"), "--leave-running")
        if not t.eq(rc, 0, "seccomp: crib-dump --leave-running exits 0"):
            t.diag(err)
            return
        doc = inspect_json(w.path("snap"))
        modes = {s["tid"]: s for s in records(doc, "seccomp")}
        filters = {f["filter_id"]: f for f in records(doc, "seccomp_filter")}
        bad = []
        for pid, tid in ((w.pid, w.pid), (w.pid, shared), (w.pid, own), (child, child)):
            status = proc_status(pid, tid)
            got = modes.get(tid, {"mode": 0, "filters": []})
            if (got["mode"], len(got["filters"])) != (int(status["Seccomp"]),
                                                      int(status["Seccomp_filters"])):
                bad.append("%d: mode %d with %d filters, Seccomp %s Seccomp_filters %s" %
                           (tid, got["mode"], len(got["filters"]), status["Seccomp"],
                            status["Seccomp_filters"]))
        t.check(not bad, "seccomp: every thread's mode and filter count match procfs",
                "\n".join(bad))
        first = {modes[tid]["filters"][0] for tid in (w.pid, shared, own) if tid in modes}
        t.check(len(first) == 1 and len(filters) == 2,
                "seccomp: one record for the filter the three threads share, one for the "
                "thread's own", repr(modes))
        shared_filter = filters.get(first.pop()) if len(first) == 1 else None
        t.check(shared_filter is not None and shared_filter["log"] and
                len(shared_filter["insns"]) // 2 == 6 * 8,
                "seccomp: the shared filter: 6 instructions, logged", repr(shared_filter))
        t.check(w.alive() and not_traced(w.pid), "seccomp: left running, not traced")
    finally:
        w.stop()


# What /proc/PID/task/TID/status says of a thread's PR_SET_SPECULATION_CTRL.
SPEC_SHOWN = {"thread mitigated": (4, 16), "thread force mitigated": (8,)}
SYS_ioprio_get = 252


def test_threadattrs():
    """What threadattrs sets, as the dump read it from the kernel: against
    procfs and ioprio_get(2) where they show it, against the workload's own
    account for membarrier and securebits, which nothing outside shows."""
    w = Workload("threadattrs", "@DIR@")
    try:
        doc = dump_and_check("threadattrs", w, w.path("snap"))
        if not doc:
            return
        locked = int(w.ready.split()[0])
        p = records(doc, "process")[0]
        reset = bool(os.sched_getscheduler(w.pid) & os.SCHED_RESET_ON_FORK)
        t.eq((p.get("sched_reset_on_fork", False), p.get("membarrier", 0)), (reset, 4 | 16 | 64),
             "threadattrs: SCHED_RESET_ON_FORK (sched_getscheduler) and the membarrier "
             "registrations (global, private, sync-core)")
        threads = {th["tid"]: th for th in records(doc, "thread")}
        t.eq({tid: threads[tid].get("securebits", 0) for tid in (w.pid, locked)},
             {w.pid: 0x01, locked: 0xf0}, "threadattrs: each thread's securebits")
        bad = []
        libc = ctypes.CDLL(None, use_errno=True)
        for tid, th in threads.items():
            status = proc_status(w.pid, tid)
            for key, row in (("spec_store_bypass", "Speculation_Store_Bypass"),
                             ("spec_indirect_branch", "SpeculationIndirectBranch")):
                if th.get(key, 0) not in SPEC_SHOWN.get(status.get(row), (0,)):
                    bad.append("%d: %s %d, status %r" % (tid, key, th.get(key, 0),
                                                         status.get(row)))
            ioprio = libc.syscall(SYS_ioprio_get, 1, tid)
            if th.get("ioprio", 0) != max(ioprio, 0):
                bad.append("%d: ioprio %d, ioprio_get %d" % (tid, th.get("ioprio", 0), ioprio))
        t.check(not bad, "threadattrs: every thread's speculation controls (procfs) and I/O "
                "priority (ioprio_get)", "\n".join(bad))
    finally:
        w.stop()


LOCK_KINDS = {"POSIX": 0, "OFDLCK": 1, "FLOCK": 2, "LEASE": 3}


def fdinfo_locks(pid, fd):
    """(kind, type, start, len, pid) of each "lock:" line of the descriptor."""
    out = []
    for line in read("/proc/%d/fdinfo/%d" % (pid, fd)).splitlines():
        if not line.startswith("lock:"):
            continue
        f = line.split()
        start = int(f[-2])
        length = 0 if f[-1] == "EOF" else int(f[-1]) - start + 1
        out.append((LOCK_KINDS[f[2]], int(f[4] == "WRITE"), start, length, int(f[5])))
    return out


def test_locks():
    """Every lock the locks workload holds, as its descriptors' fdinfo shows
    them: a POSIX lock under its process's descriptor, a lock of a
    description once, under the descriptor of the process that took it."""
    w = Workload("locks", "@DIR@")
    posix, ofd, flk, lease, child = (int(x) for x in w.ready.split())
    try:
        pid = w.pid
        rc, err = dump(pid, w.path("snap"), "--leave-running")
        if not t.eq(rc, 0, "locks: crib-dump --leave-running exits 0"):
            t.diag(err)
            return
        doc = inspect_json(w.path("snap"))
        got = sorted((r["pid"], r["fd"], r["kind"], r["type"], r["start"], r.get("len", 0))
                     for r in records(doc, "file_lock"))
        want = sorted([(pid, posix, 0, 0, 0, 10), (pid, posix, 0, 1, 100, 100),
                       (pid, posix, 0, 1, 1000, 0), (pid, ofd, 1, 1, 0, 50),
                       (child, flk, 2, 1, 0, 0), (pid, lease, 3, 0, 0, 0)])
        t.eq(got, want, "locks: the POSIX, OFD, flock() and lease records, each once")
        shown = sorted((p, fd) + lk[:4] for p in (pid, child) for fd in (posix, ofd, flk, lease)
                       for lk in fdinfo_locks(p, fd)
                       if lk[0] == 0 or lk[4] == p or (lk[4] == -1 and p == pid))
        t.eq(got, shown, "locks: as the descriptors' fdinfo shows them, under their owners")
        t.eq(sorted(set(lk[4] for lk in fdinfo_locks(pid, flk) + fdinfo_locks(child, flk))),
             [child], "locks: the flock() is the child's in fdinfo, under both processes")
        t.check(w.alive() and not_traced(pid), "locks: left running, not traced")
    finally:
        w.stop()
        os.kill(child, signal.SIGKILL)


def fdinfo_pidfd(pid, fd):
    """What a pidfd's fdinfo says: (target, dead, thread, status flags)."""
    info = fdinfo(pid, fd)
    target = int(info["Pid"])
    flags = int(info["flags"], 8) & ~O_CLOEXEC
    return (max(target, 0), target == -1, bool(flags & 0o200), flags)


def test_pidfds():
    """The pidfds workload's pidfds, of its child (and a dup()), of itself,
    of its thread, of a reaped child, as their fdinfo shows them, under
    the process and under its sibling, which inherited four of them; the
    pipe it took with pidfd_getfd() as the child's."""
    w = Workload("pidfds", "@DIR@")
    child, sibling, tid, childfd, dupfd, selffd, threadfd, deadfd, taken = \
        (int(x) for x in w.ready.split())
    try:
        pid = w.pid
        rc, err = dump(pid, w.path("snap"), "--leave-running")
        if not t.eq(rc, 0, "pidfds: crib-dump --leave-running exits 0"):
            t.diag(err)
            return
        doc = inspect_json(w.path("snap"))
        files = {(f["pid"], f["fd"]): f for f in records(doc, "file")}
        got = {(r["pid"], r["fd"]): (r.get("target", 0), r.get("dead", False),
                                     r.get("thread", False), files[(r["pid"], r["fd"])]["flags"])
               for r in records(doc, "pidfd")}
        held = [(pid, fd) for fd in (childfd, dupfd, selffd, threadfd, deadfd)] + \
            [(sibling, fd) for fd in (childfd, dupfd, selffd)]
        t.eq(got, {k: fdinfo_pidfd(*k) for k in held},
             "pidfds: target, dead, PIDFD_THREAD and flags as each fdinfo shows them")
        t.eq(sorted(v[:3] for v in got.values() if v[0] in (pid, tid) or v[1]),
             sorted([(pid, False, False)] * 2 + [(tid, False, True), (0, True, False)]),
             "pidfds: of itself (also in the sibling), of its thread, of a reaped child")
        t.check(all(files[k]["type"] == 13 for k in held), "pidfds: file type 13 (pidfd)")
        descs = {files[k]["desc"] for k in held if k[1] in (childfd, dupfd)}
        t.eq(len(descs), 1, "pidfds: the child's pidfd, its dup() and the sibling's, one "
             "description")
        t.eq((files[(pid, taken)]["type"], files[(pid, taken)]["inode"]),
             (5, os.stat("/proc/%d/fd/40" % child).st_ino),
             "pidfds: the descriptor taken with pidfd_getfd() is the child's pipe")
        t.check(w.alive() and not_traced(pid), "pidfds: left running, not traced")
    finally:
        w.stop()
        for p in (child, sibling):
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass


def stat_fields(pid):
    """The fields of /proc/PID/stat after the command, from the state on."""
    return read("/proc/%d/stat" % pid).rsplit(")", 1)[1].split()


def test_pty():
    """The pty workload's pair, as the kernel shows it: an end under the
    root's master and the shell's and job's slaves, all of one pair; the
    window size and termios the workload set, packet mode, the shell's
    session and the job's group in front (/proc/PID/stat's tpgid), the
    slave's number its tty_nr."""
    w = Workload("pty", "@DIR@")
    master, shell, job = (int(x) for x in w.ready.split())
    try:
        pid = w.pid
        rc, err = dump(pid, w.path("snap"), "--leave-running")
        if not t.eq(rc, 0, "pty: crib-dump --leave-running exits 0"):
            t.diag(err)
            return
        doc = inspect_json(w.path("snap"))
        ttys = records(doc, "tty")
        t.eq(sorted((r["pid"], r["fd"], r["end"]) for r in ttys),
             sorted([(pid, master, 0), (shell, 0, 1), (shell, 1, 1), (shell, 2, 1),
                     (job, 0, 1), (job, 1, 1), (job, 2, 1), (job, 3, 2)]),
             "pty: a record under the master, each slave descriptor and the job's /dev/tty")
        t.eq(sorted(set(r["tty_id"] for r in ttys)), [1], "pty: one pair")
        shell_stat, job_stat = stat_fields(shell), stat_fields(job)
        tty_nr = int(job_stat[4])
        r = ttys[0]
        t.eq((r.get("rows"), r.get("cols"), r.get("xpixel"), r.get("ypixel")),
             (33, 101, 808, 594), "pty: the window size set")
        t.eq((r.get("index", 0), tty_nr >> 8), (tty_nr & 0xff, 136),
             "pty: the slave's number is the job's tty_nr")
        t.check(r.get("packet") is True and not r.get("locked") and not r.get("exclusive"),
                "pty: packet mode, unlocked, not exclusive")
        t.eq((r.get("lflag", 0) & 0o2), 0, "pty: no ICANON, as the job set")
        t.eq((len(r.get("cc", "")) // 2, r.get("cc", "")[0:2]), (19, "07"),
             "pty: 19 control characters, VINTR the ^G the job set")
        t.eq((r.get("sid"), r.get("fg_pgrp")), (shell, int(shell_stat[5])),
             "pty: the shell's session, the group /proc shows in front")
        t.eq(r.get("fg_pgrp"), job, "pty: the job's group in front")
        t.eq(len(set(tuple(sorted((k, str(v)) for k, v in x.items()
                               if k not in ("pid", "fd", "end"))) for x in ttys)), 1,
             "pty: every end carries the same state")
        t.check(w.alive() and not_traced(pid), "pty: left running, not traced")
    finally:
        w.stop()
        for p in (shell, job):
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass


def proc_net_netlink():
    """/proc/net/netlink by socket inode: protocol, port id, the first
    32 groups, whether a dump runs."""
    rows = {}
    for line in read("/proc/net/netlink").splitlines()[1:]:
        f = line.split()
        rows[int(f[9])] = {"protocol": int(f[1]), "portid": int(f[2]),
                           "groups": int(f[3], 16), "dump": int(f[6])}
    return rows


def netlink_groups(sock):
    """The first 32 groups of a record's NETLINK_LIST_MEMBERSHIPS option."""
    for o in sock.get("options", []):
        if o["level"] == 270 and o["name"] == 9:
            return int.from_bytes(bytes.fromhex(o["value"])[:4], "little")
    return None


def proc_net_row(name, pid, fd):
    """The row of /proc/net/NAME of the socket at pid's fd: local and remote
    address as "hex:port" strings, and the state."""
    ino = os.stat("/proc/%d/fd/%d" % (pid, fd)).st_ino
    for line in read("/proc/net/" + name).splitlines()[1:]:
        f = line.split()
        if int(f[9]) == ino:
            return f[1], f[2], int(f[3], 16)
    return None


def check_inet_dgram(pid, sock, name, protocol, sock_type=2):
    """A ping, UDP-Lite or raw socket's record against /proc/net/icmp,
    udplite or raw: addresses, port (a ping socket's identifier, a raw
    socket's protocol), state."""
    def hexaddr(a):
        return "%08X:%04X" % (int.from_bytes(bytes.fromhex(a["addr"]), "little"),
                              a.get("port", 0))
    row = proc_net_row(name, pid, sock["fd"])
    t.eq((sock["family"], sock["type"], sock["protocol"]), (2, sock_type, protocol),
         "sockfamilies: %s socket, AF_INET type %d protocol %d" % (name, sock_type, protocol))
    t.eq((hexaddr(sock["local"]), hexaddr(sock["peer"]), sock["state"]), row,
         "sockfamilies: %s socket's addresses and state as /proc/net/%s shows them"
         % (name, name))


def check_packet(pid, sock):
    """A packet socket's record against /proc/net/packet: type, protocol
    bound, interface; and the options the workload set."""
    ino = os.stat("/proc/%d/fd/%d" % (pid, sock["fd"])).st_ino
    rows = [line.split() for line in read("/proc/net/packet").splitlines()[1:]]
    row = next((r for r in rows if int(r[8]) == ino), None)
    want = (int(row[2]), int(row[3], 16), int(row[4])) if row else None
    name = bytes.fromhex(sock["local"]["addr"]).decode()
    t.eq((sock["type"], sock["local"]["port"], socket.if_nametoindex(name)), want,
         "sockfamilies: the packet socket's type, protocol and interface as "
         "/proc/net/packet shows them")
    opts = {o["name"]: int.from_bytes(bytes.fromhex(o["value"]), "little")
            for o in sock["options"] if o["level"] == 263}
    t.eq(opts, {10: 1, 8: 1, 9: 1, 12: 0, 17: 0, 20: 1},
         "sockfamilies: PACKET_VERSION, AUXDATA, ORIGDEV, RESERVE, TIMESTAMP, QDISC_BYPASS")


def test_sockfamilies():
    """The sockfamilies workload's netlink sockets: type, protocol, port
    id and groups as /proc/net/netlink shows them, the peer's port id."""
    with open("/proc/sys/net/ipv4/ping_group_range", "w") as f:
        f.write("0 2147483647")
    w = Workload("sockfamilies", "@DIR@")
    route, uevent, peer, route_id, uevent_id, ping, lite, raw, packet = \
        (int(x) for x in w.ready.split())
    try:
        pid = w.pid
        rc, err = dump(pid, w.path("snap"), "--leave-running")
        if not t.eq(rc, 0, "sockfamilies: crib-dump --leave-running exits 0"):
            t.diag(err)
            return
        doc = inspect_json(w.path("snap"))
        socks = {s["fd"]: s for s in records(doc, "socket")}
        proc = proc_net_netlink()
        fds = (route, uevent, peer)
        got = {fd: {"protocol": socks[fd]["protocol"], "portid": socks[fd]["local"]["port"],
                    "groups": netlink_groups(socks[fd]), "dump": 0} for fd in fds}
        want = {fd: proc[os.stat("/proc/%d/fd/%d" % (pid, fd)).st_ino] for fd in fds}
        t.eq(got, want, "sockfamilies: protocol, port id and groups as /proc/net/netlink "
             "shows them, no dump running")
        t.eq([(socks[fd]["family"], socks[fd]["type"]) for fd in fds],
             [(16, 3), (16, 2), (16, 2)], "sockfamilies: AF_NETLINK, raw and datagram")
        t.eq((socks[route]["local"]["port"], socks[uevent]["local"]["port"]),
             (route_id, uevent_id), "sockfamilies: the port ids the workload saw")
        t.eq((socks[peer]["state"], socks[peer]["peer"]["family"], socks[peer]["peer"]["port"]),
             (1, 16, route_id), "sockfamilies: the connected socket's peer")
        check_inet_dgram(pid, socks[ping], "icmp", 1)
        check_inet_dgram(pid, socks[lite], "udplite", 136)
        check_inet_dgram(pid, socks[raw], "raw", 1, 3)
        raw_opts = {(o["level"], o["name"]): int.from_bytes(bytes.fromhex(o["value"]), "little")
                    for o in socks[raw]["options"] if (o["level"], o["name"]) in ((0, 3), (255, 1))}
        t.eq(raw_opts, {(0, 3): 0, (255, 1): 0xffffffff & ~1},
             "sockfamilies: the raw socket's IP_HDRINCL and ICMP_FILTER")
        coverage = {o["name"]: int.from_bytes(bytes.fromhex(o["value"]), "little")
                    for o in socks[lite]["options"] if o["level"] == 136}
        t.eq(coverage, {10: 12, 11: 12}, "sockfamilies: UDP-Lite's checksum coverage, "
             "sent and received")
        check_packet(pid, socks[packet])
        t.check(w.alive() and not_traced(pid), "sockfamilies: left running, not traced")
    finally:
        w.stop()


for test in (test_idle, test_counter, test_heap, test_maps, test_pipe, test_threads,
             test_seccomp, test_threadattrs, test_locks, test_pidfds, test_pty,
             test_sockfamilies):
    try:
        test()
    except Exception as e:  # a broken workload is one failure, not the end of the run
        t.check(False, "%s raised %r" % (test.__name__, e))
sys.exit(t.done())
