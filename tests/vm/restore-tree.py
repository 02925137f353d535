#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""crib-dump and crib-restore on process trees: each tree workload is
dumped whole (which kills every process of it), restored, and checked
from outside (every PID and TID, parent, process group, session and state
as procfs shows them, the state audit of every process against
spec/state.md, a second dump compared with the first) and by its own
processes (SIGUSR1: each checks itself and writes DIR/check.ROLE).
Then what a tree may not hold is refused, a dump that fails leaves every
process as it was, and a restore that fails at any step leaves no process
of the tree and every PID free.  TAP.

  restore-tree.py                        everything, in this boot
  restore-tree.py --migrate dump DIR     start and dump the trees into DIR
  restore-tree.py --migrate restore DIR  (a fresh boot) restore and check them"""
import ctypes
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, "/usr/local/libexec/crib/tests/dump-lib")
from dumptest import (WORKLOADS, Workload, dump, inspect_json, proc_stat,  # noqa: E402
                      proc_status, read, records)
from restoretest import (guarded, main_with_migration, pid_free, redump_diff,  # noqa: E402
                         restore, running_exe, wait_for)
from tap import Tap  # noqa: E402
import stateaudit  # noqa: E402

t = Tap()


def exists(pid):
    return not pid_free(pid)


def state(pid):
    try:
        return proc_stat(pid)[3]
    except OSError:
        return None


def traced(pid):
    try:
        return proc_status(pid).get("TracerPid") != "0"
    except OSError:
        return False


def reap_all(pids):
    """Kill every process of a tree and collect what comes back to us (we
    are a subreaper: restored roots and the orphans of killed parents)."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    deadline = time.time() + 60
    while time.time() < deadline and any(exists(p) and state(p) != "Z" for p in pids):
        time.sleep(0.05)
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG) == (0, 0):
                if not any(exists(p) for p in pids) or time.time() > deadline:
                    break
                time.sleep(0.05)
        except ChildProcessError:
            break


def tids(pid):
    return sorted(int(x) for x in os.listdir("/proc/%d/task" % pid))


class Tree:
    """A tree workload's directory and root: its processes by role.  w is
    the workload, when this test started it."""

    def __init__(self, tree_dir, root, w=None, local=None):
        self.dir, self.root, self.w, self.local = tree_dir, root, w, local

    def pids(self):
        """{role: pid} from DIR/pid.ROLE, the root's as "root"."""
        out = {}
        for name in os.listdir(self.dir):
            if name.startswith("pid."):
                out[name[4:]] = int(read(os.path.join(self.dir, name)))
        out["root"] = self.root
        return out


def places(pids):
    """Each process's parent, group, session and state as procfs shows
    them.  The root's group and session, and the root's parent, are
    whatever whoever started (or restored) it gave: they are named, not
    numbered, so two boots compare."""
    root = proc_stat(pids["root"])
    out = {}
    for role, pid in sorted(pids.items()):
        if not exists(pid):
            out[role] = None
            continue
        s = proc_stat(pid)
        ppid, pgrp, sid = s[4], s[5], s[6]
        out[role] = {
            "state": s[3] if s[3] in "ZTt" else "running",
            "ppid": "outside" if role == "root" else int(ppid),
            "pgrp": "root's" if int(pgrp) == int(root[5]) else int(pgrp),
            "sid": "root's" if int(sid) == int(root[6]) else int(sid),
            "tids": tids(pid) if s[3] != "Z" else [],
        }
    return out


def self_checks(tree, roles, timeout=120):
    """SIGUSR1 to each role; what each wrote to DIR/check.ROLE."""
    pids = tree.pids()
    for role in roles:
        try:
            os.remove(os.path.join(tree.dir, "check." + role))
        except FileNotFoundError:
            pass
    out = {}
    for role in roles:
        try:
            os.kill(pids[role], signal.SIGUSR1)
        except ProcessLookupError:
            out[role] = "no such process"
    for role in (r for r in roles if r not in out):
        out[role] = answer(tree, "check." + role, timeout, "no answer")
    return out


def answer(tree, name, timeout=60, otherwise="no answer"):
    """DIR/NAME once a process of the tree wrote it (within timeout)."""
    path = os.path.join(tree.dir, name)
    if wait_for(lambda: os.path.exists(path), timeout, 0.1):
        return read(path).strip()
    return otherwise


def but_root_parent(root):
    """For redump_diff(): the lines of crib-inspect --diff that differ but
    the root's ppid (a restored root is adopted by whoever restored it)."""
    def real_differences(snap, lines):
        left, current = [], None
        for line in lines:
            m = re.match(r"changed: process pid=(\d+)$", line)
            if m:
                current = int(m.group(1))
            elif current == root and re.fullmatch(r"    ppid: \d+ -> \d+", line):
                continue
            elif not line.startswith("    "):
                current = None
            left.append(line)
        # A process whose only change was the root's ppid is no difference.
        return [ln for i, ln in enumerate(left)
                if not (re.match(r"changed: process pid=", ln) and
                        (i + 1 == len(left) or not left[i + 1].startswith("    ")))]
    return real_differences


# ---- The trees, each as a case: how to start it, what to note of it, how
# to check it once restored.  Notes are JSON: a migration carries them to
# the next boot.

class Case:
    argv = None         # the program and its arguments, "@DIR@" its directory
    roles = ()          # the processes that check themselves on SIGUSR1
    redump = True       # compare a second dump of the restored tree
    local = False       # it takes --local LDIR for its sockets and FIFOs
    dump_args = ()      # crib-dump's options
    moving = ()         # what the tree changes itself while it runs (stateaudit)

    def __init__(self, name):
        self.name = name

    def start(self, parent=None):
        """parent: where the directory goes (a migration's is in the
        checkout, whose 9p share holds no socket or FIFO: those then go to
        a local directory, made again in the next boot by prepare()).  A
        tree that goes to another boot leads its own session: the test's
        session is not there to be joined again."""
        argv, local = self.argv, None
        if parent and self.local:
            local = "/tmp/crib-local-" + self.name
            os.makedirs(local, exist_ok=True)
            at = argv.index("@DIR@")
            argv = argv[:at] + ("--local", local) + argv[at:]
        w = Workload(*argv, parent=parent, session=parent is not None)
        return Tree(w.dir, w.pid, w, local)

    def prepare(self, notes):
        """Before a restore in a fresh boot: what the tree had outside the
        checkout (its local directory) made again."""
        if notes.get("local"):
            os.makedirs(notes["local"], exist_ok=True)

    def notes(self, tree):
        return {}

    def check(self, tree, notes):
        """The restored tree: TAP checks of its own."""
        got = self_checks(tree, self.roles)
        t.eq(got, {r: "ok" for r in self.roles}, "%s: every process finds itself as it "
             "was" % self.name)


def thread_creds(pid):
    """Each thread's ids and effective capabilities, as procfs shows them."""
    out = []
    for tid in tids(pid):
        st = proc_status(pid, tid)
        out.append([" ".join(st.get(k, "?").split()) for k in ("Uid", "Gid", "CapEff")])
    return sorted(out)


class Family(Case):
    argv = ("family", "@DIR@")
    roles = ("root", "c1", "c2", "c1g1", "c1g2", "c2g1")

    def notes(self, tree):
        return {"creds": thread_creds(tree.pids()["c2g1"])}

    def check(self, tree, notes):
        own = [c for c in notes["creds"] if c[0] == "0 1234 0 1234"]
        t.check(len(own) == 1 and own[0][2] == "0000000000000000",
                "family: one thread of c2g1 had credentials of its own", notes["creds"])
        t.eq(thread_creds(tree.pids()["c2g1"]), notes["creds"],
             "family: c2g1's threads have their credentials back, each its own")
        Case.check(self, tree, notes)
        os.kill(tree.root, signal.SIGTERM)
        try:
            _, status = os.waitpid(tree.root, 0)
        except ChildProcessError:
            status = None
        reaped = {}
        for role in ("root", "c1", "c2"):
            path = os.path.join(tree.dir, "reaped." + role)
            reaped[role] = read(path).strip() if os.path.exists(path) else "nothing"
        t.eq((status, reaped), (0, {"root": "ok", "c1": "ok", "c2": "ok"}),
             "family: each parent waits for its children and gets their exit codes")


class Session(Case):
    argv = ("session", "--orphan-group", "@DIR@")
    roles = ("root", "s", "y", "a", "b", "c", "m")

    def check(self, tree, notes):
        Case.check(self, tree, notes)
        pids = tree.pids()
        os.kill(-pids["a"], signal.SIGUSR2)
        wait_for(lambda: all(os.path.exists(os.path.join(tree.dir, "usr2." + r))
                             for r in ("a", "b")), 60, 0.1)
        time.sleep(0.5)     # for a signal that went astray to show
        got = sorted(n[5:] for n in os.listdir(tree.dir) if n.startswith("usr2."))
        t.eq(got, ["a", "b"], "%s: a signal to group a reaches a and b, and no one else" %
             self.name)


class Sessions(Session):
    """Three sessions made by setsid() children: one led by a grandchild
    of the root, one by a child, one by that child's child."""
    argv = ("session", "--orphan-group", "--sessions", "@DIR@")
    roles = Session.roles + ("t", "u", "w", "x")


class Children(Case):
    argv = ("children", "@DIR@")
    roles = ()

    def check(self, tree, notes):
        pids = tree.pids()
        got = {r: state(pids[r]) for r in ("z1", "z2", "t")}
        t.eq(got, {"z1": "Z", "z2": "Z", "t": "T"}, "children: two zombies and a stopped "
             "child, as they were")
        got = self_checks(tree, ["root"])
        t.eq(got, {"root": "ok"}, "children: the root waits for its zombies (exit status 7, "
             "SIGTERM) and its stopped child, which goes on once continued")
        os.kill(pids["m"], signal.SIGKILL)
        t.eq(answer(tree, "pdeath.p", otherwise="no signal"), "ok",
             "children: p gets its parent-death signal and goes to the subreaper root")


class Stream(Case):
    argv = ("/bin/sh", "-c", "%s/stream produce @DIR@ | %s/stream consume @DIR@" %
            (WORKLOADS, WORKLOADS))
    redump = False      # it streams on: its memory changes

    def notes(self, tree):
        return {"consumed": int(read(os.path.join(tree.dir, "consumed")))}

    def check(self, tree, notes):
        pids = tree.pids()
        ends = [os.readlink("/proc/%d/fd/%d" % (pids[r], fd))
                for r, fd in (("producer", 1), ("consumer", 0))]
        t.check(ends[0] == ends[1] and ends[0].startswith("pipe:"),
                "stream: the producer writes into the pipe the consumer reads", ends)
        path = os.path.join(tree.dir, "consumed")
        time.sleep(3)
        now = int(read(path))
        bad = os.path.join(tree.dir, "bad")
        t.check(now > notes["consumed"] + 1000 and not os.path.exists(bad),
                "stream: the numbers flow on through the pipe, none lost or twice "
                "(%d at the dump, %d now)" % (notes["consumed"], now),
                read(bad) if os.path.exists(bad) else None)


class ForkServer(Case):
    workers = 3
    local = True
    argv = ("forkserver", "@DIR@", str(workers))
    roles = ("root",)

    def check(self, tree, notes):
        pids = tree.pids()
        workers = {pids["w%d" % i] for i in range(self.workers)}
        port = int(read(os.path.join(tree.dir, "port")))
        answers = set()
        for _ in range(3 * self.workers):
            with socket.create_connection(("127.0.0.1", port), timeout=30) as c:
                answers.add(int(c.recv(64).decode().strip() or 0))
        t.check(answers and answers <= workers, "forkserver: the workers accept on the "
                "listening socket they share", "answers %s, workers %s" % (answers, workers))
        Case.check(self, tree, notes)
        got = {r: read(os.path.join(tree.dir, "check." + r)).strip()
               for r in ("w%d" % i for i in range(self.workers))}
        t.eq(got, {r: "ok" for r in got}, "forkserver: every worker reads what the root "
             "queued on its pair and on ctl.sock")


class Shmem(Case):
    argv = ("shmem", "@DIR@")
    roles = ("root",)

    def check(self, tree, notes):
        pids = tree.pids()
        shared = {}
        for role in ("root", "child"):
            with open("/proc/%d/maps" % pids[role]) as f:
                shared[role] = sorted({line.split()[4] for line in f
                                       if line.rstrip().endswith("/dev/zero (deleted)")})
        t.check(len(shared["child"]) == 1 and shared["child"][0] in shared["root"],
                "%s: the child maps one of the root's shared objects" % self.name, shared)
        Case.check(self, tree, notes)
        t.eq(answer(tree, "check.child"), "ok",
             "%s: the child's view of the object is intact" % self.name)


class ShmemPreCopy(Shmem):
    """Memory copied while the tree runs; the shared object read once frozen."""
    dump_args = ("--pre-copy",)


class Descs(Case):
    argv = ("descs", "--fork", "@DIR@")
    roles = ("root",)
    local = True

    def prepare(self, notes):
        Case.prepare(self, notes)
        if notes.get("local"):
            os.mkfifo(os.path.join(notes["local"], "fifo"), 0o600)


class DescsSingle(Case):
    """One process: the status flags of pipe and FIFO descriptions, and
    dup()ed descriptors sharing one description."""
    argv = ("descs", "@DIR@")
    roles = ("root",)


class Ghost(Case):
    """Memfds (shared with the child through a mapping and a descriptor,
    mapped with no descriptor left, sealed), a file unlinked while open
    twice and mapped, a removed working directory, O_PATH and directory
    descriptors, the coredump filter and PR_SET_THP_DISABLE."""
    argv = ("ghost", "@DIR@")
    roles = ("root",)
    local = True        # a migration's DIR is on 9p: the unlinked file goes to LDIR

    def prepare(self, notes):
        """The directory its O_PATH and directory descriptors name, too."""
        Case.prepare(self, notes)
        if notes.get("local"):
            os.makedirs(os.path.join(notes["local"], "dir"), exist_ok=True)

    def check(self, tree, notes):
        pids = tree.pids()
        inodes = {}
        for role in ("root", "child"):
            with open("/proc/%d/maps" % pids[role]) as f:
                inodes[role] = [line.split()[4] for line in f
                                if line.rstrip().endswith("/memfd:crib-shared (deleted)")]
        t.check(len(inodes["root"]) == 1 and inodes["root"] == inodes["child"],
                "ghost: the root and the child map one crib-shared memfd", inodes)
        Case.check(self, tree, notes)
        t.eq(answer(tree, "check.child"), "ok", "ghost: the child sees the root's writes "
             "to the memfd, and the unlinked file, as they were")


def snapshot_of(tree):
    return os.path.join(tree.dir, "snap.crib")


def note_original(case, tree):
    pids = tree.pids()
    notes = {"dir": tree.dir, "root": tree.root, "pids": pids, "places": places(pids),
             "local": tree.local, "audit": stateaudit.note(tree.root)}
    notes.update(case.notes(tree))
    return notes


def dump_original(case, tree):
    """Dump the tree (which kills it); True when dumped and every process is gone."""
    rc, err = dump(tree.root, snapshot_of(tree), *case.dump_args)
    if not t.eq(rc, 0, "%s: dumped" % case.name):
        t.diag(err)
        reap_all(tree.pids().values())
        tree.w.stop()
        return False
    tree.w.proc.wait()
    pids = tree.pids().values()

    def running():
        return [p for p in pids if exists(p) and state(p) != "Z"]
    wait_for(lambda: not running(), 30, 0.1)
    left = running()
    reap_all(pids)
    return t.check(not left, "%s: the dump killed every process of the tree" % case.name,
                   "still running: %s" % left)


def restore_case(case, notes):
    tree_dir, pids = notes["dir"], notes["pids"]
    rc, err = restore(os.path.join(tree_dir, "snap.crib"))
    if not t.eq(rc, 0, "%s: crib-restore exits 0" % case.name):
        t.diag(err)
        reap_all(pids.values())
        return
    got = places(pids)
    t.eq(got, notes["places"], "%s: every process with its PID, TIDs, parent, group, "
         "session and state" % case.name)
    t.check(not any(traced(p) for p in pids.values()), "%s: none is traced" % case.name)
    stateaudit.check(t, case.name, notes["audit"], notes["root"], case.moving)
    tree = Tree(tree_dir, notes["root"])
    if case.redump:
        redump_diff(t, case.name, tree.root, os.path.join(tree_dir, "snap.crib"),
                    but_root_parent(tree.root), " (but the root's parent)")
    case.check(tree, notes)
    reap_all(pids.values())


def run_case(case):
    tree = case.start()
    notes = note_original(case, tree)
    if dump_original(case, tree):
        restore_case(case, notes)


MIGRATED = (Family("family"), Session("session"), Sessions("sessions"), Children("children"),
            Stream("stream"),
            ForkServer("forkserver"), Shmem("shmem"), Descs("descs"), Ghost("ghost"))
CASES = MIGRATED + (DescsSingle("descs (one process)"), ShmemPreCopy("shmem --pre-copy"))


def test_inspect():
    """crib-inspect shows the tree, each process under its parent."""
    tree = Family("family").start()
    snap = snapshot_of(tree)
    rc, err = dump(tree.root, snap, "--leave-running")
    pids = tree.pids()
    try:
        if not t.eq(rc, 0, "inspect: dumped with --leave-running"):
            t.diag(err)
            return
        out = subprocess.run(["crib-inspect", snap], stdout=subprocess.PIPE,
                             text=True).stdout
        tree_text = out[out.index("process tree:"):] if "process tree:" in out else ""
        want = ["%s%d family" % ("  " * (1 + depth), pids[r]) for r, depth in
                (("root", 0), ("c1", 1), ("c1g1", 2), ("c1g2", 2), ("c2", 1), ("c2g1", 2))]
        got = [line.split(" (")[0] for line in tree_text.splitlines()[1:7]]
        t.eq(got, want, "inspect: the summary shows the tree, children under their parents")
        doc = inspect_json(snap)
        t.eq(sorted(p["pid"] for p in records(doc, "process")), sorted(pids.values()),
             "inspect: --json has one process record per process of the tree")
        t.check(all(not traced(p) and state(p) not in "tT" for p in pids.values()),
                "inspect: --leave-running let every process of the tree go")
    finally:
        reap_all(pids.values())
        tree.w.stop()


def test_dump_fails():
    """A dump that fails leaves every process of the tree as it was:
    running, or stopped where it was stopped, and none traced."""
    w = Workload("family", "--pidfd", "@DIR@")
    pids = Tree(w.dir, w.pid, w).pids()
    os.kill(pids["c2"], signal.SIGSTOP)
    wait_for(lambda: state(pids["c2"]) == "T", 30, 0.05)
    try:
        rc, err = dump(w.pid, os.path.join(w.dir, "snap.crib"))
        t.check(rc == 1 and "pidfd" in err and str(pids["c1g2"]) in err,
                "dump failure: refused, naming the pidfd and its process", err)
        got = {r: (state(p), traced(p)) for r, p in pids.items()}
        want = {r: ("T" if r == "c2" else got[r][0], False) for r in pids}
        t.check(got == want and all(got[r][0] in "SR" for r in pids if r != "c2"),
                "dump failure: every process runs on untraced, the stopped one still "
                "stopped", got)
        t.check(not os.path.exists(os.path.join(w.dir, "snap.crib")),
                "dump failure: no partial snapshot left")
    finally:
        reap_all(pids.values())
        w.stop()


def without_ptrace_capability():
    """In a child before exec: CAP_SYS_PTRACE out of the bounding set, so
    that the program it runs, root as it is, lacks it."""
    pr_capbset_drop, cap_sys_ptrace = 24, 19
    if ctypes.CDLL(None, use_errno=True).prctl(pr_capbset_drop, cap_sys_ptrace, 0, 0, 0):
        raise OSError(ctypes.get_errno(), "PR_CAPBSET_DROP")


def test_attach_refused():
    """family's processes each have a thread that changed its effective
    ids, which made the process not dumpable: crib-dump without
    CAP_SYS_PTRACE cannot attach to them, and says which process, which
    thread and why; every process runs on, untraced."""
    w = Workload("family", "@DIR@")
    pids = Tree(w.dir, w.pid, w).pids()
    try:
        snap = os.path.join(w.dir, "snap.crib")
        r = subprocess.run(["crib-dump", "-p", str(w.pid), "-o", snap],
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=600,
                           preexec_fn=without_ptrace_capability)
        err = r.stderr.decode(errors="replace")
        m = re.search(r"process (\d+), thread (\d+): the process is not dumpable .*"
                      r"CAP_SYS_PTRACE", err)
        t.check(r.returncode == 1 and m and int(m.group(1)) in pids.values() and
                int(m.group(2)) in tids(int(m.group(1))),
                "attach refused: crib-dump names the process, the thread and why",
                "exit %d: %s" % (r.returncode, err))
        got = {r: (state(p), traced(p)) for r, p in pids.items()}
        t.check(all(s in "SR" and not tr for s, tr in got.values()),
                "attach refused: every process runs on, untraced", got)
    finally:
        reap_all(pids.values())
        w.stop()


def test_session_left_behind():
    """A session leader dumped alone while a member it forked away (a
    daemon forked twice, now the test's child) still runs in its session:
    the restore says which process holds the PID, and, once that one
    ended, restores it."""
    d = tempfile.mkdtemp(prefix="crib-session-")
    leader = subprocess.Popen(["sh", "-c", "(sleep 1000 & echo $! > %s/away); exec sleep 1000" % d],
                              start_new_session=True, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    away_path = os.path.join(d, "away")
    wait_for(lambda: os.path.exists(away_path) and read(away_path).strip(), 30, 0.05)
    away = int(read(away_path))
    snap = os.path.join(d, "snap.crib")
    try:
        rc, err = dump(leader.pid, snap)
        leader.wait()
        if not t.eq(rc, 0, "session left behind: the leader is dumped"):
            t.diag(err)
            return
        t.eq(int(proc_stat(away)[6]), leader.pid, "session left behind: its member runs on in "
             "the leader's session")
        rc, err = restore(snap)
        t.check(rc != 0 and "PID %d (process %d) is in use as the session id of process %d"
                % (leader.pid, leader.pid, away) in err,
                "session left behind: the restore names the process that holds the PID", err)
        reap_all([away])
        rc, err = restore(snap)
        t.check(rc == 0 and exists(leader.pid), "session left behind: restored once that "
                "process ended", err)
    finally:
        reap_all([leader.pid, away])


CLONE_REFUSALS = (("files", "its descriptor table"), ("fs", "its directories and umask"),
                  ("vm", "its memory"), ("signal", "exit signal %d" % signal.SIGUSR2))


def test_clone_refusals():
    """What clone() shares beyond fork(), and another exit signal, are
    refused by the dump, naming the child, and leave both processes
    running."""
    for how, words in CLONE_REFUSALS:
        w = Workload("cloned", how, "@DIR@")
        pids = Tree(w.dir, w.pid, w).pids()
        try:
            rc, err = dump(w.pid, os.path.join(w.dir, "snap.crib"))
            t.check(rc == 1 and words in err and str(pids["child"]) in err,
                    "clone %s: refused, saying %r of the child" % (how, words), err)
            got = {r: (state(p), traced(p)) for r, p in pids.items()}
            t.check(all(s in "SR" and not tr for s, tr in got.values()),
                    "clone %s: both run on, untraced" % how, got)
        finally:
            reap_all(pids.values())
            w.stop()


def test_pipe_outside():
    """A pipe whose other end is outside the tree is refused at restore,
    saying so, and leaves nothing behind."""
    r, wr = os.pipe()
    d = "/tmp/crib-outside-%d" % os.getpid()
    os.makedirs(d, exist_ok=True)
    p = subprocess.Popen([os.path.join(WORKLOADS, "idle"), d + "/ready", d + "/file"],
                         stdin=subprocess.DEVNULL, stdout=wr, stderr=subprocess.DEVNULL)
    os.close(wr)
    wait_for(lambda: os.path.exists(d + "/ready"), 120, 0.05)
    snap = d + "/snap.crib"
    rc, err = dump(p.pid, snap)
    p.wait()
    if not t.eq(rc, 0, "pipe outside: dumped"):
        t.diag(err)
        os.close(r)
        return
    rc, err = restore(snap)
    t.check(rc == 1 and "fd 1" in err and "outside the snapshot" in err,
            "pipe outside: refused, saying its other end is outside the snapshot", err)
    t.check(not exists(p.pid), "pipe outside: nothing left of process %d" % p.pid)
    os.close(r)


# The steps a tree's restore passes, in order: CRIB_RESTORE_FAULT names one.
TREE_FAULT_STEPS = ("fork", "session", "files", "attributes", "start", "map", "creds", "done",
                    "registers", "resume", "unlock", "detach")
# Steps in a process other than the root (STEP@PID), by role.
TREE_FAULTS_AT = (("fork", "c1"), ("session", "c1g2"), ("files", "c2g1"), ("map", "c2"),
                  ("done", "c2g1"))


def test_faults():
    """A restore of a tree made to fail at each step (fault injection, in
    the root, then at some steps in other processes) says where, leaves no
    process of the tree and every PID free; the snapshot restores
    afterwards."""
    case = Family("faults")
    tree = case.start()
    pids = tree.pids()
    exe = os.readlink("/proc/%d/exe" % tree.root)
    snap = snapshot_of(tree)
    if not dump_original(case, tree):
        return
    faults = list(TREE_FAULT_STEPS) + ["%s@%d" % (s, pids[r]) for s, r in TREE_FAULTS_AT]
    for step in faults:
        rc, err = restore(snap, env=dict(os.environ, CRIB_RESTORE_FAULT=step))
        name = step.split("@")[0]
        t.check(rc == 1 and "injected fault" in err and "CRIB_RESTORE_FAULT=%s" % name in err,
                "fault at %s: exit 1, naming the step" % step, err)
        taken = {r: p for r, p in pids.items() if exists(p)}
        t.check(not taken and not running_exe(exe), "fault at %s: no process of the tree "
                "left, every PID free" % step, "taken: %s, running %s: %s" %
                (taken, exe, running_exe(exe)))
        reap_all(pids.values())
    rc, err = restore(snap)
    if t.eq(rc, 0, "faults: the snapshot still restores after every failure"):
        t.eq(self_checks(tree, Family.roles), {r: "ok" for r in Family.roles},
             "faults: restored, every process finds itself as it was")
    else:
        t.diag(err)
    reap_all(pids.values())


def migrate_dump_one(case, base):
    tree = case.start(parent=base)
    note = note_original(case, tree)
    return note if dump_original(case, tree) else None


def migrate_restore_one(case, note):
    case.prepare(note)
    restore_case(case, note)


def run_all():
    for case in CASES:
        guarded(t, run_case, case)
    for test in (test_inspect, test_dump_fails, test_attach_refused, test_session_left_behind,
                 test_clone_refusals, test_pipe_outside, test_faults):
        guarded(t, test)


def main():
    return main_with_migration(t, __doc__, run_all, migrate_dump_one, migrate_restore_one,
                               MIGRATED, (31800, 70))


if __name__ == "__main__":
    sys.exit(main())
