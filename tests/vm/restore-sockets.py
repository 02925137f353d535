#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""crib-restore on the sockets workload: dump (which kills), restore, have
the restored process read every queue back and check data, sources,
options and that every connection still works (SIGUSR1, "ok"), check
from outside that its listeners accept, and compare a second dump of it
with the first.  One kind of socket at a time, then all of them; a
socket that cannot be restored, and one whose creation fails in the new
process: both must leave nothing behind.  With a TCP connection to a
child process, a peer that keeps running, too.  TAP."""
import json
import os
import re
import socket
import subprocess
import sys

sys.path.insert(0, "/usr/local/libexec/crib/tests/dump-lib")
from dumptest import Workload, alive, dump, inspect_json, read, records, self_check  # noqa: E402
from restoretest import adopt_orphans, reap, redump_diff, restore, wait_for  # noqa: E402
from tap import Tap  # noqa: E402

t = Tap()


def self_report(w, pid):
    """The restored workload's report on itself (SIGUSR1: it checks itself)."""
    return self_check(pid, w.path("check"), 120)


IPPROTO_IP, IP_MULTICAST_TTL = 0, 33


def unsettable(snap_doc, fd, index):
    """Option @index of the socket at @fd is a TCP socket's IP_MULTICAST_TTL:
    an accepted socket has the TTL of the SYN there, and no TCP socket may
    set it, so a restore cannot bring it back."""
    for s in records(snap_doc, "socket"):
        if s["fd"] == fd and s["type"] == socket.SOCK_STREAM:
            opts = s.get("options", [])
            return index < len(opts) and \
                (opts[index]["level"], opts[index]["name"]) == (IPPROTO_IP, IP_MULTICAST_TTL)
    return False


def differences(snap, lines):
    """The lines of a --diff output that are real differences."""
    doc = inspect_json(snap)
    real, fd = [], None
    for line in lines:
        m = re.match(r"changed: socket pid=\d+ fd=(\d+)$", line)
        if m:
            fd = int(m.group(1))
            continue
        m = re.match(r"\s+options\[(\d+)\]\.value: ", line)
        if m and fd is not None and unsettable(doc, fd, int(m.group(1))):
            continue
        if line.startswith("changed:") or line.startswith("only in"):
            fd = None
        real.append(line)
    return real


TCP_FIN_WAIT1 = 4


def fins_in_flight(pid):
    """Sockets of pid in FIN_WAIT1: a FIN that crib-restore sent again
    (tools/crib-restore/tcp.c) and its peer has not acknowledged yet.
    Sent while the network lock still held the connection, it comes again
    when the retransmission timer fires."""
    inodes = set()
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(link[8:-1])
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in read(table).splitlines()[1:]:
            f = line.split()
            if int(f[3], 16) == TCP_FIN_WAIT1 and f[9] in inodes:
                count += 1
    return count


def redump(name, pid, snap):
    """The restored process dumped again has no differences with its
    snapshot but what no restore can set, once the FINs it sent again are
    acknowledged."""
    t.check(wait_for(lambda: not fins_in_flight(pid), 60),
            "%s: every FIN sent again is acknowledged" % name)
    redump_diff(t, name, pid, snap, differences, " (but TCP IP_MULTICAST_TTL)")


def socket_files(w):
    """Mode and owner of the UNIX socket files the workload bound."""
    out = {}
    for name in ("listen.sock", "sender.sock", "dgram-b.sock"):
        if os.path.exists(w.path(name)):
            st = os.lstat(w.path(name))
            out[name] = (oct(st.st_mode), st.st_uid, st.st_gid)
    return out


def dump_restore(name, *args, user=None, umask=None, workload="sockets"):
    """The workload dumped and restored; (workload, pid, snapshot) or None.
    The UNIX socket files it bound come back with their mode and owner."""
    old = os.umask(umask) if umask is not None else None
    try:
        w = Workload(workload, *(list(args) + ["@DIR@"]), user=user)
    finally:
        if old is not None:
            os.umask(old)
    files = socket_files(w)
    snap = w.path("snap.crib")
    rc, err = dump(w.pid, snap)
    if not t.eq(rc, 0, "%s: dumped" % name):
        t.diag(err)
        w.stop()
        return None
    w.proc.wait()
    rc, err = restore(snap)
    if not t.eq(rc, 0, "%s: crib-restore exits 0" % name):
        t.diag(err)
        return None
    if not t.check(alive(w.pid), "%s: process %d is running again" % (name, w.pid)):
        return None
    if files:
        t.eq(socket_files(w), files, "%s: socket files with their mode and owner" % name)
    return w, w.pid, snap


def truth(w):
    with open(w.path("truth.json")) as f:
        return json.load(f)


def listener_accepts(name, w, sock):
    """A connection from outside to a restored listener completes."""
    s = truth(w)["sockets"][sock]["local"]
    family = socket.AF_INET if s["family"] == 2 else socket.AF_INET6
    host = "127.0.0.1" if family == socket.AF_INET else "::1"
    c = socket.socket(family, socket.SOCK_STREAM)
    c.settimeout(30)
    try:
        c.connect((host, s["port"]))
        ok, detail = True, None
    except OSError as e:
        ok, detail = False, str(e)
    finally:
        c.close()
    t.check(ok, "%s: %s accepts a connection from outside" % (name, sock), detail)


def test_kind(kind, listeners=(), **how):
    name = "sockets --only " + kind
    got = dump_restore(name, "--only", kind, **how)
    if not got:
        return
    w, pid, snap = got
    snaps = inspect_json(snap)
    t.check(len(records(snaps, "socket")) > 0, "%s: the snapshot holds sockets" % name)
    redump(name, pid, snap)
    t.eq(self_report(w, pid).strip(), "ok", "%s: the restored process finds every socket as "
         "it was" % name)
    for sock in listeners:
        listener_accepts(name, w, sock)
    reap(pid)


def test_all():
    name = "sockets --no-child"
    got = dump_restore(name, "--no-child")
    if not got:
        return
    w, pid, snap = got
    redump(name, pid, snap)
    t.eq(self_report(w, pid).strip(), "ok", "%s: the restored process finds every socket as "
         "it was" % name)
    reap(pid)


def child_exits(child, timeout):
    """Whether our adopted @child exits within @timeout seconds (reaped)."""
    return wait_for(lambda: os.waitpid(child, os.WNOHANG)[0] == child, timeout)


def test_child_peer():
    """A TCP connection to a process the workload started and handed away,
    a peer outside its tree and the snapshot that keeps running (the tree
    a dump takes would hold a child): locked through the kill, restored,
    released, and still the same connection (closing the restored end is
    what ends the child)."""
    name = "sockets (a child peer)"
    got = dump_restore(name)
    if not got:
        return
    w, pid, snap = got
    child = int(read(w.path("child.pid")))
    try:
        t.check(alive(child), "%s: the child peer ran on through the dump and restore" % name)
        locked = subprocess.run(["nft", "list", "table", "inet", "crib"],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        t.check(not re.search(r"elements = \{", locked.stdout),
                "%s: no connection left locked" % name, locked.stdout)
        redump(name, pid, snap)
        t.eq(self_report(w, pid).strip(), "ok", "%s: the restored process finds every socket "
             "as it was, the child's 3000 bytes included" % name)
        t.check(alive(child), "%s: the child's connection is still up" % name)
        reap(pid)
        t.check(child_exits(child, 60), "%s: the restored end closing ends the child: one "
                "connection, end to end" % name)
    finally:
        reap(pid)
        reap(child)


def test_udp_queue():
    """A UDP receive queue of about 1.5 MiB, datagrams up to 65507 bytes:
    more than one ring buffer's worth for the refill program."""
    name = "udpqueue"
    got = dump_restore(name, workload="udpqueue")
    if not got:
        return
    w, pid, snap = got
    queued = sum(c["data"]["len"] for q in records(inspect_json(snap), "socket_queue")
                 for c in q["chunks"])
    t.check(queued > 1 << 20, "%s: the snapshot queues more than 1 MiB" % name, queued)
    redump(name, pid, snap)
    t.eq(self_report(w, pid).strip(), "ok", "%s: every datagram back, whole, in order, from "
         "its sender" % name)
    reap(pid)


def test_refused():
    """The UNIX listener's name became a regular file: refused, nothing left."""
    name = "refused"
    w = Workload("sockets", "--only", "unix", "@DIR@")
    snap = w.path("snap.crib")
    rc, err = dump(w.pid, snap)
    w.proc.wait()
    if not t.eq(rc, 0, "%s: dumped" % name):
        t.diag(err)
        return
    path = w.path("listen.sock")
    os.unlink(path)
    with open(path, "w") as f:
        f.write("not a socket\n")
    rc, err = restore(snap)
    t.eq(rc, 1, "%s: crib-restore exits 1" % name)
    t.check("listen.sock" in err and "no longer a socket" in err,
            "%s: says which socket and why" % name, err)
    t.check(not alive(w.pid), "%s: nothing left running" % name)
    reap(w.pid)


def test_child_fails():
    """A name taken since the dump: the child's bind fails, the restore
    says which socket and step, and nothing is left running."""
    name = "name taken"
    w = Workload("sockets", "--only", "unix", "@DIR@")
    pid = w.pid
    snap = w.path("snap.crib")
    rc, err = dump(pid, snap)
    w.proc.wait()
    if not t.eq(rc, 0, "%s: dumped" % name):
        t.diag(err)
        return
    squatter = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    squatter.bind("\0crib-sockets-%d" % pid)
    try:
        rc, err = restore(snap)
    finally:
        squatter.close()
    t.eq(rc, 1, "%s: crib-restore exits 1" % name)
    t.check(re.search(r"fd \d+ \(unix dgram\): bind: Address already in use", err),
            "%s: says which socket, which step and why" % name, err)
    t.check(not alive(pid), "%s: nothing left running" % name)
    reap(pid)


def main():
    adopt_orphans()
    test_kind("udp")
    # as a user, with its own umask: the socket files it binds are its own
    test_kind("unix", user=(1234, 2345), umask=0o027)
    test_kind("tcp", listeners=("tcp-listener", "tcp6-listener"))
    test_all()
    test_child_peer()
    test_udp_queue()
    test_refused()
    test_child_fails()
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
