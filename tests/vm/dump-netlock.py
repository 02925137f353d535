#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The network lock around a dump.  The tcpecho workload serves two TCP
connections (IPv4 and IPv6) whose other end is this test, a process that
keeps running.  Dumped and killed, the workload leaves its connections
locked in the nftables table inet crib: the peer's data is dropped and it
sees neither FIN nor reset, its socket stays established, the kernel's
reset counters do not move, and the workload's side of the connection is
gone without a trace (repair mode).  Released by hand, the peer's next
retransmission meets no socket and is reset.  Two locks coexist, each
released alone.  A dump that fails after
locking, or whose process is killed during it, leaves no lock behind, and
--leave-running takes none.  TAP."""
import os
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, "/usr/local/libexec/crib/tests/dump-lib")
from dumptest import Workload, dump, inspect_json, not_traced, read, records  # noqa: E402
from nettest import locked_tuples, tcp_counters  # noqa: E402
from tap import Tap  # noqa: E402

t = Tap()
TCP_ESTABLISHED = 1


def owner_tuple(conn):
    """The workload's end of @conn, as the lock names it."""
    peer = conn.getsockname()
    local = conn.getpeername()
    return (local[0], local[1], peer[0], peer[1])


def tcp_info(sock):
    """(state, unacked) from TCP_INFO."""
    raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    return raw[0], struct.unpack_from("I", raw, 24)[0]


def sockets_on_port(port):
    """Rows of /proc/net/tcp and tcp6 whose local port is @port."""
    rows = []
    for name in ("tcp", "tcp6"):
        for line in read("/proc/net/" + name).splitlines()[1:]:
            f = line.split()
            if int(f[1].rsplit(":", 1)[1], 16) == port:
                rows.append(line.strip())
    return rows


def echo_ok(conn, data):
    conn.settimeout(10)
    try:
        conn.sendall(data)
        got = b""
        while len(got) < len(data):
            chunk = conn.recv(len(data) - len(got))
            if not chunk:
                break
            got += chunk
        return got == data
    except OSError:
        return False


def no_news(conn):
    """Nothing to read, no end of file, no error: what a quiet peer looks like."""
    conn.setblocking(False)
    try:
        conn.recv(1)
        return False
    except BlockingIOError:
        return conn.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0
    except OSError:
        return False
    finally:
        conn.setblocking(True)


class Echo:
    """The tcpecho workload and two connections to it."""

    def __init__(self, *args):
        self.w = Workload("tcpecho", "@DIR@", *args)
        port4, port6 = (int(x) for x in self.w.ready.split())
        self.ports = (port4, port6)
        self.conns = [socket.create_connection(("127.0.0.1", port4)),
                      socket.create_connection(("::1", port6))]
        self.tuples = {owner_tuple(c) for c in self.conns}
        self.echoes = all(echo_ok(c, b"hello %d" % i) for i, c in enumerate(self.conns))

    def close(self):
        for c in self.conns:
            c.close()
        self.w.stop()


def test_dump_and_kill():
    e = Echo()
    try:
        t.check(e.echoes, "tcpecho echoes over IPv4 and IPv6")
        out = e.w.path("snap")
        before = tcp_counters()
        rc, err = dump(e.w.pid, out, "-v")
        t.eq(rc, 0, "dump and kill the workload: exit 0")
        t.check("locked 2 TCP connections" in err, "... locking its two connections", err)
        t.eq(e.w.proc.wait(timeout=30), -9, "... the workload is killed")
        socks = [s for s in records(inspect_json(out), "socket") if s["state"] == TCP_ESTABLISHED]
        t.eq(len(socks), 2, "the snapshot holds both established connections")
        locked = locked_tuples()
        t.check(e.tuples <= locked, "nftables set holds both connections while the process is gone",
                "want %r in %r" % (e.tuples, locked))
        t.eq(sockets_on_port(e.ports[0]) + sockets_on_port(e.ports[1]), [],
             "no socket of the workload's is left (closed in repair mode, no FIN_WAIT)")
        sent = all(c.send(b"while you were out") == 18 for c in e.conns)
        time.sleep(3)
        infos = [tcp_info(c) for c in e.conns]
        t.check(sent, "the peer sends while the workload is gone")
        t.eq([i[0] for i in infos], [TCP_ESTABLISHED] * 2, "... its sockets stay ESTABLISHED")
        t.check(all(i[1] > 0 for i in infos), "... its data goes unacknowledged (dropped)",
                infos)
        t.check(all(no_news(c) for c in e.conns), "... and it reads neither data, EOF nor error")
        after = tcp_counters()
        # Resets sent, counted even when nftables drops them, and the
        # aborts a close sends one for.
        for key in ("OutRsts", "AttemptFails", "TCPAbortOnClose", "TCPAbortOnData",
                    "TCPAbortOnLinger"):
            t.eq(after[key] - before[key], 0, "Tcp %s did not move" % key)
        # Both ends share this network namespace: the workload's two sockets,
        # closed in repair mode, went from ESTABLISHED to CLOSE; the peer's
        # did not.
        t.eq(after["EstabResets"] - before["EstabResets"], 2,
             "Tcp EstabResets moved by the workload's own two closes, none of the peer's")

        # A damaged snapshot releases nothing.
        cut = e.w.path("cut")
        with open(out, "rb") as src, open(cut, "wb") as dst:
            dst.write(src.read()[:os.path.getsize(out) // 2])
        r = subprocess.run(["crib-restore", "--unlock-network", "-i", cut],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        t.check(r.returncode == 1 and "reading the snapshot" in r.stderr and
                e.tuples <= locked_tuples(),
                "--unlock-network with a truncated snapshot: exit 1, nothing released", r.stderr)

        r = subprocess.run(["crib-restore", "--unlock-network", "-i", out],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        t.eq(r.returncode, 0, "crib-restore --unlock-network: exit 0")
        t.check("released 2 locked TCP connections" in r.stderr, "... releasing two", r.stderr)
        t.check(not (e.tuples & locked_tuples()), "... the set no longer holds them")
        # The next retransmission meets no socket: the peer is reset.
        reset = 0
        deadline = time.time() + 60
        for c in e.conns:
            c.settimeout(max(1, deadline - time.time()))
            try:
                c.recv(1)
            except (ConnectionResetError, socket.timeout):
                pass
            reset += c.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0 or \
                tcp_info(c)[0] != TCP_ESTABLISHED
        t.eq(reset, 2, "released, the peer's retransmission is reset: the lock was what held it")
        r = subprocess.run(["crib-restore", "--unlock-network", "-i", out],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        t.check(r.returncode == 0 and "released 0 locked" in r.stderr,
                "releasing again: exit 0, nothing to release", r.stderr)
    finally:
        e.close()


def test_two_dumps():
    """Two locks side by side: each release lets go of its own connections only."""
    echoes = [Echo(), Echo()]
    try:
        outs = [e.w.path("snap") for e in echoes]
        rcs = [dump(e.w.pid, out)[0] for e, out in zip(echoes, outs)]
        t.eq(rcs, [0, 0], "two workloads dumped and killed")
        locked = locked_tuples()
        t.check(echoes[0].tuples <= locked and echoes[1].tuples <= locked,
                "... both locks held at once", locked)
        r = subprocess.run(["crib-restore", "--unlock-network", "-i", outs[0]],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        locked = locked_tuples()
        t.check(r.returncode == 0 and not (echoes[0].tuples & locked) and
                echoes[1].tuples <= locked,
                "releasing the first leaves the second locked", r.stderr + repr(locked))
        r = subprocess.run(["crib-restore", "--unlock-network", "-i", outs[1]],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        t.check(r.returncode == 0 and not (echoes[1].tuples & locked_tuples()),
                "... and releasing the second lets it go", r.stderr)
    finally:
        for e in echoes:
            e.close()


def test_failure_after_lock():
    e = Echo("inflight")
    try:
        t.check(e.echoes, "tcpecho with a descriptor in flight echoes")
        out = e.w.path("snap")
        rc, err = dump(e.w.pid, out, "-v")
        t.eq(rc, 1, "refused after locking (a descriptor in flight): exit 1")
        t.check("locked 2 TCP connections" in err and "descriptors in flight" in err,
                "... having locked the connections first", err)
        t.check(not (e.tuples & locked_tuples()), "... no lock left behind")
        t.check(e.w.alive() and not_traced(e.w.pid), "... the workload runs on")
        t.check(all(echo_ok(c, b"still there") for c in e.conns),
                "... and both connections still echo")
    finally:
        e.close()


def test_killed_during_dump():
    # Killed once its connections are locked, which comes before its 128
    # MiB of memory are read: however fast they are then read and
    # compressed, the dump is not over yet.
    e = Echo("heap", "128")
    try:
        out = e.w.path("snap")
        dumper = subprocess.Popen(["crib-dump", "-v", "-p", str(e.w.pid), "-o", out],
                                  stdin=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + 120
        while not (e.tuples & locked_tuples()) and time.time() < deadline and \
                dumper.poll() is None:
            time.sleep(0.02)
        e.w.proc.kill()
        err = dumper.communicate(timeout=300)[1].decode(errors="replace")
        t.eq(dumper.returncode, 1, "workload killed during the dump: exit 1")
        t.check("locked 2 TCP connections" in err and "exited during the dump" in err,
                "... after locking its connections", err)
        t.check(not (e.tuples & locked_tuples()), "... no lock left behind")
    finally:
        e.close()


def test_leave_running():
    e = Echo()
    try:
        out = e.w.path("snap")
        rc, err = dump(e.w.pid, out, "-v", "--leave-running")
        t.eq(rc, 0, "--leave-running: exit 0")
        t.check("locked" not in err and not (e.tuples & locked_tuples()),
                "... no lock taken", err)
        t.check(all(echo_ok(c, b"carry on") for c in e.conns), "... both connections echo")
    finally:
        e.close()


for test in [test_dump_and_kill, test_two_dumps, test_failure_after_lock,
             test_killed_during_dump, test_leave_running]:
    try:
        test()
    except Exception as ex:  # a crash is a failure, and the other tests still run
        t.check(False, "%s raised" % test.__name__, repr(ex))
sys.exit(t.done())
