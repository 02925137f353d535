#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""TCP connections to a peer that keeps running, across a dump, a kill
and a restore.  The tcpstream workload streams both ways with a peer
process over IPv4 and IPv6, every byte checked; it is dumped mid-stream
with unread data in its receive queues and unsent data in its send
queues, and killed, while the peer keeps sending.  A restore refused
(a file missing) leaves the network lock in place; so does one that
fails once the connections left repair mode (fault injection): it puts
them back and closes them in repair mode.  (One that fails once the
lock is released cannot promise as much: a connection that took in data
meanwhile is reset, and whether one does is up to the peer's timers, so
that case is not part of this test.)  The next restore
brings the workload back and releases the lock; the streams carry on
until the peer ends them, and each side finds every byte the other sent,
once, in order, with no reset counted.  TAP."""
import os
import signal
import socket
import subprocess
import sys

sys.path.insert(0, "/usr/local/libexec/crib/tests/dump-lib")
from dumptest import Workload, alive, dump, inspect_json, read, records  # noqa: E402
from nettest import locked_tuples, tcp_counters  # noqa: E402
from restoretest import adopt_orphans, reap, restore, wait_for  # noqa: E402
from tap import Tap  # noqa: E402

TCP_ESTABLISHED = 1
QUEUE_RECV, QUEUE_SEND = 0, 1
t = Tap()


def peer_status(peer):
    """(sent4, received4, sent6, received6, bad) the peer last wrote."""
    return tuple(int(x) for x in read(peer.path("peer-status")).split())


def established(pid):
    """Local (address, port) pairs of the established TCP sockets of @pid."""
    inodes = set()
    for fd in os.listdir("/proc/%d/fd" % pid):
        link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        if link.startswith("socket:["):
            inodes.add(link[8:-1])
    n = 0
    for name in ("tcp", "tcp6"):
        for line in read("/proc/net/" + name).splitlines()[1:]:
            f = line.split()
            if f[9] in inodes and int(f[3], 16) == TCP_ESTABLISHED:
                n += 1
    return n


def queued(doc):
    """{(sock_id, queue): bytes} of the snapshot's socket queues."""
    out = {}
    for q in records(doc, "socket_queue"):
        key = (q["sock_id"], q["queue"])
        out[key] = out.get(key, 0) + sum(c["data"]["len"] for c in q["chunks"])
    return out


def show_connections(since):
    """The TCP connections as ss sees them, and the counters that moved."""
    r = subprocess.run(["ss", "-tinoem"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    t.diag(r.stdout)
    now = tcp_counters()
    t.diag(" ".join("%s+%d" % (k, now[k] - v) for k, v in sorted(since.items())
                    if now.get(k, v) != v))


def parse_result(text):
    """'received N sent N bad N error E' as a dict."""
    words = text.split()
    return {words[i]: int(words[i + 1]) for i in range(0, len(words) - 1, 2)}


def main():
    adopt_orphans()
    w = Workload("tcpstream", "serve", "@DIR@")
    port4, port6 = (int(x) for x in w.ready.split())
    peer = Workload("tcpstream", "peer", "@DIR@", str(port4), str(port6), ready="peer-status")
    pid = w.pid
    try:
        run(w, peer, pid)
    finally:
        peer.stop()
        reap(pid)
        w.stop()


def run(w, peer, pid):
    t.check(wait_for(lambda: min(peer_status(peer)[:4]) > 100000, 60),
            "the streams flow both ways, IPv4 and IPv6", peer_status(peer))
    before = tcp_counters()
    snap = w.path("snap.crib")
    rc, err = dump(pid, snap, "-v")
    if not t.eq(rc, 0, "dumped mid-stream and killed"):
        t.diag(err)
        return
    t.check("locked 2 TCP connections" in err, "... its two connections locked", err)
    t.eq(w.proc.wait(timeout=30), -9, "... the workload is killed")
    at_kill = peer_status(peer)

    doc = inspect_json(snap)
    conns = [s for s in records(doc, "socket") if s["state"] == TCP_ESTABLISHED]
    t.eq(sorted(s["family"] for s in conns), [socket.AF_INET, socket.AF_INET6],
         "the snapshot holds the IPv4 and the IPv6 connection")
    q = queued(doc)
    t.check(all(q.get((s["sock_id"], QUEUE_RECV), 0) > 0 for s in conns),
            "... each with unread data in its receive queue", q)
    t.check(all(q.get((s["sock_id"], QUEUE_SEND), 0) > 0 for s in conns),
            "... and unsent data in its send queue", q)
    tuples = locked_tuples()
    t.eq(len(tuples), 2, "the lock holds both connections")

    # Refused before anything is created: the lock stays.
    anchor = w.path("anchor")
    os.rename(anchor, anchor + ".away")
    rc, err = restore(snap)
    t.check(rc == 1 and "anchor" in err, "a restore missing a file is refused (exit 1)", err)
    t.check(not alive(pid), "... leaving nothing running")
    t.eq(locked_tuples(), tuples, "... and both connections still locked")
    os.rename(anchor + ".away", anchor)

    # Fails once the connections left repair mode, still locked: back in
    # repair mode, closed silently.
    rc, err = restore(snap, env=dict(os.environ, CRIB_RESTORE_FAULT="resume"))
    t.check(rc == 1 and "CRIB_RESTORE_FAULT=resume" in err,
            "a restore failing once its connections left repair mode exits 1, naming "
            "the step", err)
    t.check(not alive(pid), "... leaving nothing running")
    t.eq(locked_tuples(), tuples, "... and both connections locked")

    t.check(wait_for(lambda: peer_status(peer)[0] > at_kill[0] and
                     peer_status(peer)[2] > at_kill[2], 30),
            "the peer keeps sending while the workload is gone", (at_kill, peer_status(peer)))
    rc, err = restore(snap)
    if not t.eq(rc, 0, "the next restore brings the workload back"):
        t.diag(err)
        return
    t.check(alive(pid), "... process %d runs again" % pid)
    t.check(not (tuples & locked_tuples()), "... and its connections are no longer locked",
            locked_tuples())
    t.eq(established(pid), 2, "... both connections established")
    at_restore = peer_status(peer)
    counted = tcp_counters()
    if not t.check(wait_for(lambda: peer_status(peer)[1] > at_restore[1] + 100000 and
                            peer_status(peer)[3] > at_restore[3] + 100000, 180),
                   "the restored workload's streams reach the peer again",
                   (at_restore, peer_status(peer))):
        show_connections(counted)

    # The end: the workload reads at full speed, the peer stops sending,
    # and each side counts and checks what it got.
    os.kill(pid, signal.SIGUSR1)
    os.kill(peer.pid, signal.SIGUSR1)
    try:
        status = peer.proc.wait(timeout=300)
    except subprocess.TimeoutExpired:
        status = "still running"
    t.eq(status, 0, "the peer reads both streams to their end without an error")
    got = {}
    for line in read(peer.path("peer-result")).splitlines():
        port, fam, rest = line.split(None, 2)
        got[fam] = (port, parse_result(rest))
    for fam in ("4", "6"):
        port, p = got.get(fam, ("?", {}))
        path = w.path("serve-" + port)
        served = parse_result(read(path)) if os.path.exists(path) else {}
        t.check(p.get("bad") == 0 and p.get("eof") == 1 and p.get("error") == 0 and
                p.get("received") == served.get("sent"),
                "IPv%s: the peer got every byte the workload sent (%s), each right, once"
                % (fam, served.get("sent")), (p, served))
        t.check(served.get("bad") == 0 and served.get("error") == 0 and
                served.get("received") == p.get("sent"),
                "IPv%s: the workload got every byte the peer sent (%s), each right, once"
                % (fam, p.get("sent")), (p, served))
    after = tcp_counters()
    for key in ("OutRsts", "AttemptFails", "TCPAbortOnClose", "TCPAbortOnData",
                "TCPAbortOnLinger", "TCPAbortOnTimeout"):
        t.eq(after[key] - before[key], 0, "Tcp %s did not move" % key)
    # The killed workload's two sockets, and those of the restore that
    # failed, closed in repair mode.
    t.eq(after["EstabResets"] - before["EstabResets"], 4,
         "Tcp EstabResets moved by the silent closes of the kill and the failed restores "
         "only")


try:
    main()
except Exception as e:  # a crash is a failure
    t.check(False, "raised %r" % (e,))
sys.exit(t.done())
