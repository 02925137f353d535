#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Memfds, unlinked files and a removed working directory (the ghost
workload): what crib-dump records of them, checked against procfs and
against the files themselves; --ghost-limit; a restore whose unlinked
file has lost its directory; a file unlinked while another link remains,
refused; a restore made to fail at each step, which
leaves no process and no file behind.  (restore-tree.py restores the
workload and has it check itself.)  TAP."""
import fcntl
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import traceback

sys.path.insert(0, "/usr/local/libexec/crib/tests/dump-lib")
from dumptest import EXTRACT, Workload, dump, inspect_json, records  # noqa: E402
from restoretest import adopt_orphans, pid_free, restore, wait_for  # noqa: E402
from tap import Tap  # noqa: E402

t = Tap()

MEMFD_FD, UNLINKED_FD, OPATH_FD, DIR_FD = 20, 22, 24, 25


class GhostTree:
    """The ghost workload, its unlinked file and removed directory in LDIR."""

    def __init__(self):
        self.local = tempfile.mkdtemp(prefix="crib-ghost-local-")
        self.w = Workload("ghost", "--local", self.local, "@DIR@")
        self.dir = self.w.dir
        self.pids = {r: int(open(os.path.join(self.dir, "pid." + r)).read())
                     for r in ("root", "child")}

    def snap(self):
        return os.path.join(self.dir, "snap.crib")

    def gone(self):
        return all(pid_free(p) or state(p) == "Z" for p in self.pids.values())

    def stop(self):
        for pid in self.pids.values():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        wait_for(self.gone, 30, 0.05)
        reap()
        self.w.stop()


def state(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def reap():
    try:
        while os.waitpid(-1, os.WNOHANG) != (0, 0):
            pass
    except ChildProcessError:
        pass


def fdinfo(pid, fd):
    out = {}
    with open("/proc/%d/fdinfo/%d" % (pid, fd)) as f:
        for line in f:
            k, _, v = line.partition(":")
            out[k] = v.strip()
    return out


def contents(snap, ghost_id):
    return subprocess.run([EXTRACT, "ghost", snap, str(ghost_id)], stdout=subprocess.PIPE,
                          check=True).stdout


def test_dump():
    """A dump with --leave-running against procfs and the files."""
    g = GhostTree()
    try:
        rc, err = dump(g.pids["root"], g.snap(), "--leave-running")
        if not t.eq(rc, 0, "dump: the ghost tree is dumped"):
            t.diag(err)
            return
        doc = inspect_json(g.snap())
        ghosts = {r["ghost_id"]: r for r in records(doc, "ghost")}
        files = {(f["pid"], f["fd"]): f for f in records(doc, "file")}
        root, child = g.pids["root"], g.pids["child"]
        names = sorted(r["path"] for r in ghosts.values() if r["kind"] == 1)
        t.eq(names, ["crib-mapped", "crib-sealed", "crib-shared"],
             "dump: a ghost for each memfd, by name, whether open or only mapped")
        unlinked = [r for r in ghosts.values() if r["kind"] == 0]
        t.eq([r["path"] for r in unlinked], [os.path.join(g.local, "ghost.data")],
             "dump: one ghost for the unlinked file, with its former path")
        shared = files[(root, MEMFD_FD)]["ghost_id"]
        t.check(shared and files[(child, MEMFD_FD)]["ghost_id"] == shared,
                "dump: the root's and the child's crib-shared descriptors name one ghost")
        data = [files[(p, fd)]["ghost_id"] for p in (root, child)
                for fd in (UNLINKED_FD, UNLINKED_FD + 1)]
        vmas = [v["ghost_id"] for v in records(doc, "vma")
                if v["path"].endswith("ghost.data (deleted)")]
        t.check(len(set(data + vmas)) == 1 and data[0] and len(vmas) == 2,
                "dump: the unlinked file's four descriptors and two mappings name one ghost",
                (data, vmas))
        for (pid, fd), f in sorted(files.items()):
            if not f["ghost_id"]:
                continue
            info = fdinfo(pid, fd)
            path = "/proc/%d/fd/%d" % (pid, fd)
            st = os.stat(path)
            gh = ghosts[f["ghost_id"]]
            t.eq((f["pos"], f["flags"], f["path"], gh["size"], gh["mode"], gh["inode"]),
                 (int(info["pos"]), int(info["flags"], 8), os.readlink(path), st.st_size,
                  st.st_mode, st.st_ino),
                 "dump: process %d fd %d: position, flags, path, size, mode and inode as "
                 "procfs has them" % (pid, fd))
        for gid, gh in sorted(ghosts.items()):
            fd = [k for k, f in files.items() if f["ghost_id"] == gid]
            if fd:
                src = "/proc/%d/fd/%d" % fd[0]
            else:
                vma = [v for v in records(doc, "vma") if v["ghost_id"] == gid][0]
                src = "/proc/%d/map_files/%x-%x" % (vma["pid"], vma["start"], vma["end"])
            with open(src, "rb") as f:
                want = f.read()
                seals = fcntl.fcntl(f.fileno(), fcntl.F_GET_SEALS) if gh["kind"] == 1 else 0
            t.check(contents(g.snap(), gid) == want, "dump: ghost %d (%s): the contents are "
                    "the file's, %d bytes" % (gid, gh["path"], len(want)))
            t.eq(gh.get("seals", 0), seals, "dump: ghost %d (%s): its seals" % (gid, gh["path"]))
        chunks = [d for d in records(doc, "ghost_data") if d["ghost_id"] == unlinked[0]["ghost_id"]]
        t.check(sum(d["data"]["len"] for d in chunks) < unlinked[0]["size"],
                "dump: the unlinked file's hole is not carried", chunks)
        procs = {p["pid"]: p for p in records(doc, "process")}
        cwd = os.readlink("/proc/%d/cwd" % root)
        t.eq((procs[root]["cwd_unlinked"], procs[root]["cwd"] + " (deleted)",
              procs[child]["cwd_unlinked"]), (True, cwd, False),
             "dump: the root's removed working directory, by the path it had")
        t.check(all(state(p) in "SR" for p in g.pids.values()),
                "dump: --leave-running lets both go")
    finally:
        g.stop()


def test_limit():
    """An unlinked file over --ghost-limit stops the dump, naming the
    process, the descriptor, the path and the size; the tree runs on."""
    g = GhostTree()
    try:
        rc, err = dump(g.pids["root"], g.snap(), "--ghost-limit", "60K")
        t.check(rc == 1 and str(g.pids["root"]) in err and "fd/%d" % UNLINKED_FD in err and
                "ghost.data (deleted)" in err and "65536 bytes" in err and "61440" in err,
                "limit: an unlinked file over --ghost-limit is refused, saying where and "
                "how large", err)
        t.check(all(state(p) in "SR" for p in g.pids.values()) and
                not os.path.exists(g.snap()), "limit: the tree runs on, no snapshot left")
        rc, err = dump(g.pids["root"], g.snap(), "--ghost-limit", "64K", "--leave-running")
        t.check(rc == 0, "limit: a file of exactly --ghost-limit is carried", err)
        rc, _ = dump(g.pids["root"], g.snap(), "--ghost-limit", "1X")
        t.eq(rc, 2, "limit: a bad size is bad usage")
    finally:
        g.stop()


def test_other_link():
    """A file unlinked under the name it was opened by while another link
    remains is refused, naming the process, descriptor and path; the
    process runs on."""
    w = Workload("idle", "@DIR@/ready", "@DIR@/file")
    try:
        os.link(w.path("file"), w.path("other"))
        os.unlink(w.path("file"))
        rc, err = dump(w.pid, w.path("snap.crib"))
        t.check(rc == 1 and str(w.pid) in err and "fd/3" in err and
                "file (deleted)" in err and "another link" in err,
                "other link: refused, saying which descriptor and why", err)
        t.check(state(w.pid) in "SR", "other link: the process runs on")
    finally:
        w.stop()


def test_missing_dir():
    """A process with a file unlinked while open, dumped; its directory
    gone at restore: refused, naming the descriptor, the file and the
    directory; restored once the directory is back, the file unlinked
    again with its contents and position."""
    d = tempfile.mkdtemp(prefix="crib-ghost-dir-")
    sub_dir = os.path.join(d, "sub")
    os.makedirs(sub_dir)
    w = Workload("idle", "@DIR@/ready", sub_dir + "/file")
    try:
        os.unlink(os.path.join(sub_dir, "file"))
        rc, err = dump(w.pid, w.path("snap.crib"))
        w.proc.wait()
        if not t.eq(rc, 0, "missing directory: the process with an unlinked file is dumped"):
            t.diag(err)
            return
        os.rename(sub_dir, sub_dir + ".away")
        rc, err = restore(w.path("snap.crib"))
        t.check(rc == 1 and "fd 3" in err and sub_dir + "/file" in err and
                "directory %s is missing" % sub_dir in err,
                "missing directory: refused, naming the descriptor, file and directory", err)
        t.check(pid_free(w.pid), "missing directory: no process left")
        os.rename(sub_dir + ".away", sub_dir)
        rc, err = restore(w.path("snap.crib"))
        if t.eq(rc, 0, "missing directory: restored once the directory is back"):
            path = "/proc/%d/fd/3" % w.pid
            st = os.stat(path)
            t.eq((os.readlink(path), st.st_nlink, fdinfo(w.pid, 3)["pos"], os.listdir(sub_dir)),
                 (sub_dir + "/file (deleted)", 0, "5", []),
                 "missing directory: the file is unlinked again, at its position")
        else:
            t.diag(err)
    finally:
        try:
            os.kill(w.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        wait_for(lambda: pid_free(w.pid) or state(w.pid) == "Z", 30, 0.05)
        reap()
        w.stop()
        shutil.rmtree(d, ignore_errors=True)


def self_check(g):
    for name in ("check.root", "check.child"):
        try:
            os.remove(os.path.join(g.dir, name))
        except FileNotFoundError:
            pass
    os.kill(g.pids["root"], signal.SIGUSR1)
    got = []
    for name in ("check.root", "check.child"):
        path = os.path.join(g.dir, name)
        wait_for(lambda: os.path.exists(path), 60, 0.1)
        got.append(open(path).read().strip() if os.path.exists(path) else "no answer")
    return got


# Steps a restore passes; at each a failure must leave nothing behind.
FAULT_STEPS = ("ghosts", "files", "attributes", "map", "done", "registers", "seals", "detach")


def test_restore_failures():
    """The unlinked file's directory gone: a clear refusal.  A restore made
    to fail at each step leaves no process, and no file in the directory
    of the unlinked file and the removed working directory; the snapshot
    then restores, and the tree checks itself."""
    g = GhostTree()
    rc, err = dump(g.pids["root"], g.snap())
    if not t.eq(rc, 0, "failures: dumped"):
        t.diag(err)
        g.stop()
        return
    wait_for(g.gone, 30, 0.05)
    reap()
    g.w.proc.wait()
    away = g.local + ".away"
    os.rename(g.local, away)
    rc, err = restore(g.snap())
    t.check(rc == 1 and "missing" in err and g.local in err,
            "failures: the directory of the unlinked file and of the removed working "
            "directory gone, the restore says so", err)
    t.check(g.gone(), "failures: no process left of the refused restore")
    os.rename(away, g.local)
    before = sorted(os.listdir(g.local))
    for step in FAULT_STEPS:
        rc, err = restore(g.snap(), env=dict(os.environ, CRIB_RESTORE_FAULT=step))
        t.check(rc == 1 and "CRIB_RESTORE_FAULT=%s" % step in err,
                "fault at %s: exit 1, naming the step" % step, err)
        wait_for(g.gone, 30, 0.05)
        reap()
        t.check(g.gone() and sorted(os.listdir(g.local)) == before,
                "fault at %s: no process, and nothing new in %s" % (step, g.local),
                sorted(os.listdir(g.local)))
    rc, err = restore(g.snap())
    if t.eq(rc, 0, "failures: the snapshot restores after all of them"):
        t.eq(self_check(g), ["ok", "ok"], "failures: restored, the root and the child "
             "find their memfds, unlinked file and directories as they were")
        t.eq(sorted(os.listdir(g.local)), before,
             "failures: the restored unlinked file and directory are unlinked again")
    else:
        t.diag(err)
    g.stop()
    shutil.rmtree(g.local, ignore_errors=True)


def guarded(test):
    try:
        test()
    except Exception as e:  # a crashed test is a failed one, and the rest still run
        t.check(False, "%s raised %r" % (test.__name__, e), traceback.format_exc())


def main():
    adopt_orphans()
    for test in (test_dump, test_limit, test_other_link, test_missing_dir,
                 test_restore_failures):
        guarded(test)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
