#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""crib-dump when it cannot or must not dump: bad usage, no such process,
a terminal as output, sockets it cannot dump (TCP data in flight among
them), a timer on another process's CPU clock, a process killed during the
dump.  Each time the exit status and message are checked, no partial
snapshot is left behind, and the process is left as it was.  TAP."""
import os
import pty
import subprocess
import sys
import time

sys.path.insert(0, "/usr/local/libexec/crib/tests/dump-lib")
from dumptest import Workload, dump, not_traced  # noqa: E402
from tap import Tap  # noqa: E402

t = Tap()


def run(*args, **kw):
    return subprocess.run(["crib-dump"] + list(args), stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def test_usage():
    r = run()
    t.check(r.returncode == 2 and r.stderr.startswith(b"crib-dump: which process? -p PID"),
            "no arguments: exit 2, saying -p PID is missing", r.stderr.decode(errors="replace"))
    r = run("-p", "1", "snap.crib")
    t.check(r.returncode == 2 and b"unexpected argument 'snap.crib'" in r.stderr,
            "an operand: exit 2, naming it", r.stderr.decode(errors="replace"))
    t.eq(run("-p", "nonsense").returncode, 2, "a malformed pid: exit 2")
    r = run("--help")
    t.check(r.returncode == 0 and b"--leave-running" in r.stdout, "--help: exit 0, usage on stdout")


def test_no_process(tmp):
    p = subprocess.Popen(["true"])
    p.wait()
    out = os.path.join(tmp, "gone.crib")
    rc, err = dump(p.pid, out)
    t.eq(rc, 1, "a pid that is gone: exit 1")
    t.check("no process with pid %d" % p.pid in err, "... saying so", err)
    t.check(not os.path.exists(out), "... and no snapshot file left")


def test_terminal():
    w = Workload("idle", "@DIR@/ready", "@DIR@/file")
    try:
        master, slave = pty.openpty()
        r = subprocess.run(["crib-dump", "-p", str(w.pid)], stdin=subprocess.DEVNULL,
                           stdout=slave, stderr=subprocess.PIPE)
        os.close(slave)
        os.close(master)
        t.eq(r.returncode, 2, "standard output a terminal: exit 2")
        t.check(b"terminal" in r.stderr, "... saying why", r.stderr)
        t.check(w.alive() and not_traced(w.pid), "... and the process untouched")
    finally:
        w.stop()


def test_pty_outside():
    """A process whose standard input is a pseudo-terminal slave whose
    master this test holds: refused, naming the descriptor and the end."""
    master, slave = pty.openpty()
    w = Workload("idle", "@DIR@/ready", "@DIR@/file", stdin=slave)
    os.close(slave)
    try:
        out = w.path("snap.crib")
        rc, err = dump(w.pid, out)
        t.eq(rc, 1, "a slave whose master is outside: exit 1")
        t.check("process %d, fd 0 (/dev/pts/" % w.pid in err and
                "a pseudo-terminal slave whose master is outside the tree" in err,
                "... naming the process, the descriptor and the end", err)
        t.check(not os.path.exists(out), "... no snapshot file left")
        t.check(w.alive() and not_traced(w.pid), "... the process released, running")
    finally:
        w.stop()
        os.close(master)


def test_dev_tty_outside(tmp):
    """/dev/tty of a process whose controlling terminal is a slave whose
    master this test holds: refused, naming the descriptor and why."""
    ready = os.path.join(tmp, "tty-ready")
    if os.path.exists(ready):
        os.unlink(ready)
    code = ("import fcntl, os, termios, time\n"
            "os.setsid()\n"
            "fcntl.ioctl(0, termios.TIOCSCTTY, 0)\n"
            "assert os.open('/dev/tty', os.O_RDWR) == 3\n"
            "os.dup2(os.open('/dev/null', os.O_RDONLY), 0)\n"
            "open(%r, 'w').close()\n"
            "time.sleep(600)\n") % ready
    master, slave = pty.openpty()
    p = subprocess.Popen([sys.executable, "-c", code], stdin=slave,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(slave)
    try:
        while not os.path.exists(ready) and p.poll() is None:
            time.sleep(0.05)
        out = os.path.join(tmp, "tty.crib")
        rc, err = dump(p.pid, out)
        t.eq(rc, 1, "/dev/tty of a terminal whose master is outside: exit 1")
        t.check("process %d, fd 3 (/dev/tty): the controlling terminal /dev/pts/" % p.pid in err
                and "whose master is outside the tree" in err,
                "... naming the process, the descriptor and why", err)
        t.check(not os.path.exists(out), "... no snapshot file left")
        t.check(p.poll() is None and not_traced(p.pid), "... the process released, running")
    finally:
        p.kill()
        p.wait()
        os.close(master)


# Python programs holding a file crib-dump must refuse, as fd 3.
REFUSED_FILES = {
    "a socket with descriptors in flight": (
        "a, b = socket.socketpair()\n"
        "assert a.fileno() == 3\n"
        "a.sendmsg([b'x'], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array('i', [1]))])\n",
        "fd 4: descriptors in flight (SCM_RIGHTS)"),
    "a packet socket with a ring": (
        "s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)\n"
        "s.setsockopt(263, 5, struct.pack('IIII', 4096, 1, 2048, 2))\n",
        "fd 3: the packet socket has a ring (PACKET_RX_RING or PACKET_TX_RING)"),
    "a packet socket with a membership": (
        "s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)\n"
        "s.setsockopt(263, 1, struct.pack('iHH8s', socket.if_nametoindex('lo'), 1, 0, b''))\n",
        "fd 3: the packet socket has memberships (PACKET_ADD_MEMBERSHIP)"),
    "a netlink socket with messages queued": (
        "s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)\n"
        "s.send(struct.pack('=LHHLLBxxxiII', 32, 18, 0x301, 1, 0, 0, 0, 0, 0))\n"
        "time.sleep(0.5)\n",
        "fd 3: netlink messages are queued ("),
    "a UDP-Lite socket with a datagram queued": (
        "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, 136)\n"
        "s.bind(('127.0.0.1', 0))\n"
        "s.sendto(b'lite', s.getsockname())\n"
        "time.sleep(0.5)\n",
        "fd 3: the UDP-Lite socket has data queued (1 packets received"),
    "a raw socket with a packet queued": (
        "s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)\n"
        "u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
        "u.sendto(b'raw', ('127.0.0.1', 9))\n"
        "time.sleep(0.5)\n",
        "fd 3: the raw socket has data queued ("),
    "a listening socket with a connection waiting to be accepted": (
        "l = socket.socket()\n"
        "l.bind(('127.0.0.1', 0))\n"
        "l.listen(1)\n"
        "c = socket.create_connection(l.getsockname())\n",
        "fd 3: a listening socket with connections not yet accepted (1)"),
    # A restore could not make a pidfd that refers to that same process.
    "a pidfd of a live process outside the tree": (
        "import os\n"
        "assert os.pidfd_open(1) == 3\n",
        "fd 3 (pidfd): it refers to process 1, which is outside the tree and has not "
        "exited"),
    # The watch stays while the file is open; no path reaches it.
    "an inotify watch on a file unlinked since": (
        "import ctypes, os\n"
        "libc = ctypes.CDLL(None)\n"
        "assert libc.inotify_init() == 3\n"
        "f = open('/tmp/crib-watched', 'w')\n"
        "assert libc.inotify_add_watch(3, b'/tmp/crib-watched', 2) == 1\n"
        "os.unlink('/tmp/crib-watched')\n",
        "fd 3 (inotify): "),
    # A lease being broken: its breaker, outside the tree, waits for a
    # lease a restore could not hand back half-broken.
    "a lease being broken": (
        "signal.signal(signal.SIGIO, signal.SIG_IGN)\n"
        "open('/tmp/crib-leased', 'w').close()\n"
        "f = open('/tmp/crib-leased')\n"
        "assert f.fileno() == 3\n"
        "fcntl.fcntl(f, 1024, fcntl.F_WRLCK)  # F_SETLEASE\n"
        "if not os.fork():\n"
        "    if not os.fork():\n"
        "        os.open('/tmp/crib-leased', os.O_RDONLY)\n"
        "    os._exit(0)\n"
        "os.wait()\n"
        "while 'BREAKING' not in open('/proc/locks').read():\n"
        "    time.sleep(0.05)\n",
        "fd 3 (/tmp/crib-leased): its lease is being broken"),
    # Mapping it again at restore, through a descriptor closed after, would drop it.
    "a POSIX lock on a mapped file": (
        "f = open('/tmp/crib-mapped', 'w+')\n"
        "assert f.fileno() == 3\n"
        "f.write('x' * 4096)\n"
        "f.flush()\n"
        "m = mmap.mmap(3, 4096)\n"
        "fcntl.lockf(f, fcntl.LOCK_EX, 10)\n",
        "fd 3 (/tmp/crib-mapped): it holds a POSIX lock on a file it also maps"),
    "an extended BPF socket program": (
        "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
        "assert s.fileno() == 3\n"
        "insns = (ctypes.c_uint64 * 2)(0xb7, 0x95)  # r0 = 0; exit\n"
        "lic = ctypes.c_char_p(b'GPL')\n"
        "attr = struct.pack('IIQQ', 1, 2, ctypes.addressof(insns),  # SOCKET_FILTER\n"
        "                   ctypes.cast(lic, ctypes.c_void_p).value).ljust(128, b'\\0')\n"
        "buf = ctypes.create_string_buffer(attr, 128)\n"
        "prog = ctypes.CDLL(None).syscall(321, 5, buf, 128)  # bpf(BPF_PROG_LOAD)\n"
        "assert prog > 3\n"
        "s.setsockopt(socket.SOL_SOCKET, 50, prog)  # SO_ATTACH_BPF\n"
        "os.close(prog)  # the socket holds it\n",
        "fd 3: the socket has an extended BPF program (SO_ATTACH_BPF)"),
    "a socket with SO_ZEROCOPY": (
        "s = socket.socket()\n"
        "assert s.fileno() == 3\n"
        "s.setsockopt(socket.SOL_SOCKET, 60, 1)  # SO_ZEROCOPY\n",
        "fd 3: the socket has SO_ZEROCOPY"),
    "a socket with SO_PREFER_BUSY_POLL": (
        "s = socket.socket()\n"
        "assert s.fileno() == 3\n"
        "s.setsockopt(socket.SOL_SOCKET, 69, 1)  # SO_PREFER_BUSY_POLL\n",
        "fd 3: the socket has SO_PREFER_BUSY_POLL"),
    "a socket with SO_BUSY_POLL_BUDGET": (
        "s = socket.socket()\n"
        "assert s.fileno() == 3\n"
        "s.setsockopt(socket.SOL_SOCKET, 70, 16)  # SO_BUSY_POLL_BUDGET\n",
        "fd 3: the socket has SO_BUSY_POLL_BUDGET"),
    "a socket with SO_TXTIME": (
        "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
        "assert s.fileno() == 3\n"
        "s.setsockopt(socket.SOL_SOCKET, 61, struct.pack('iI', 1, 0))  # SO_TXTIME, CLOCK_MONOTONIC\n",
        "fd 3: the socket has SO_TXTIME"),
    "a socket with IPV6_RECVERR": (
        "s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)\n"
        "assert s.fileno() == 3\n"
        "s.setsockopt(socket.IPPROTO_IPV6, 25, 1)  # IPV6_RECVERR\n",
        "fd 3: the socket has IPV6_RECVERR"),
    "a listener with TCP_FASTOPEN": (
        "s = socket.socket()\n"
        "assert s.fileno() == 3\n"
        "s.bind(('127.0.0.1', 0))\n"
        "s.setsockopt(socket.IPPROTO_TCP, 23, 5)  # TCP_FASTOPEN\n"
        "s.listen(5)\n",
        "fd 3: the socket has TCP_FASTOPEN"),
    "a pseudo-terminal master whose slave is closed": (
        "m, s = os.openpty()\n"
        "assert m == 3\n"
        "os.close(s)\n",
        "fd 3: a pseudo-terminal master whose slave /dev/pts/"),
    "a pseudo-terminal with a line unread": (
        "m, s = os.openpty()\n"
        "assert (m, s) == (3, 4)\n"
        "tty.setraw(s)\n"
        "os.write(m, b'abc')\n",
        "fd 4: 3 bytes the master wrote wait unread at the pseudo-terminal slave"),
}


# A classic BPF program allowing every call, as p, for seccomp(2).
SECCOMP_ALLOW = (
    "import ctypes\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "insn = ctypes.c_uint64(0x06 | (0x7fff0000 << 32))  # BPF_RET|BPF_K, ALLOW\n"
    "class Prog(ctypes.Structure):\n"
    "    _fields_ = [('len', ctypes.c_ushort), ('filter', ctypes.c_void_p)]\n"
    "p = Prog(1, ctypes.addressof(insn))\n")

# Python programs with a thread or process attribute no snapshot carries.
# A thread of their own sets it where it is per thread: the dump must name
# that thread, not only the leader.
IN_THREAD = ("import threading\n"
             "done = threading.Event()\n"
             "def apart():\n"
             "    %s\n"
             "    done.set()\n"
             "    threading.Event().wait()\n"
             "threading.Thread(target=apart, daemon=True).start()\n"
             "done.wait()\n")
REFUSED_STATE = {
    "a seccomp filter with a user-space listener": (
        SECCOMP_ALLOW +
        "assert libc.syscall(317, 1, 8, ctypes.byref(p)) >= 0  # NEW_LISTENER\n",
        "it runs under a seccomp filter with a user-space listener"),
    "a seccomp filter some threads share": (
        SECCOMP_ALLOW +
        "import threading\n"
        "def second():\n"
        "    threading.Event().wait()\n"
        "def first():\n"
        "    assert libc.prctl(22, 2, ctypes.byref(p), 0, 0) == 0  # PR_SET_SECCOMP\n"
        "    threading.Thread(target=second, daemon=True).start()\n"
        "    threading.Event().wait()\n"
        "threading.Thread(target=first, daemon=True).start()\n"
        "import time\n"
        "time.sleep(0.5)\n",
        "share a seccomp filter that not all its threads run under"),
    "syscall user dispatch": (
        "import ctypes\n"
        "assert ctypes.CDLL(None).prctl(59, 1, ctypes.c_ulong(0), ctypes.c_ulong(1 << 47), "
        "ctypes.c_ulong(0)) == 0\n",
        "it turned on syscall user dispatch"),
    "memory locked on fault": (
        "import ctypes, mmap\n"
        "m = mmap.mmap(-1, 8192)\n"
        "a = ctypes.addressof(ctypes.c_char.from_buffer(m))\n"
        "assert ctypes.CDLL(None).syscall(325, ctypes.c_ulong(a), 8192, 1) == 0  # mlock2\n",
        "memory locked on fault (mlock2(MLOCK_ONFAULT))"),
    "SCHED_RESET_ON_FORK in one thread": (
        IN_THREAD % "os.sched_setscheduler(0, os.SCHED_OTHER | os.SCHED_RESET_ON_FORK, "
        "os.sched_param(0))",
        "its scheduling policy, priority, nice value or SCHED_RESET_ON_FORK differs from "
        "its process's leader's"),
    "a thread's own nice value": (
        IN_THREAD % "os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 5)",
        "its scheduling policy, priority, nice value or SCHED_RESET_ON_FORK differs from "
        "its process's leader's"),
    "a thread's own timer slack": (
        IN_THREAD % "ctypes.CDLL(None).prctl(29, 1000, 0, 0, 0)",
        "its timer slack differs from its process's leader's"),
}
if len(os.sched_getaffinity(0)) > 1:
    REFUSED_STATE["a thread's own CPU affinity"] = (
        IN_THREAD % "os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})",
        "its CPU affinity differs from its process's leader's")


def test_refused_file(tmp, what, code, message):
    ready = os.path.join(tmp, "sock-ready")
    if os.path.exists(ready):
        os.unlink(ready)
    code = ("import array, ctypes, fcntl, mmap, os, signal, socket, struct, termios, time, tty\n" +
            code +
            "open(%r, 'w').close()\n"
            "time.sleep(600)\n") % ready
    p = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while not os.path.exists(ready) and p.poll() is None:
            time.sleep(0.05)
        out = os.path.join(tmp, "sock.crib")
        rc, err = dump(p.pid, out)
        t.eq(rc, 1, "%s: exit 1" % what)
        t.check(message in err, "... naming the object and why", err)
        if what in REFUSED_STATE:
            t.check("process %d" % p.pid in err, "... and the process", err)
        t.check(not os.path.exists(out), "... no snapshot file left")
        t.check(p.poll() is None and not_traced(p.pid), "... the process released, running")
    finally:
        p.kill()
        p.wait()


def test_unacknowledged(tmp):
    """TCP data in flight: packets to the receiver dropped by nftables."""
    port = 47123
    files = {n: os.path.join(tmp, "unacked-" + n) for n in ("connected", "go", "sent")}
    for f in files.values():
        if os.path.exists(f):
            os.unlink(f)
    code = ("import os, socket, time\n"
            "l = socket.socket()\n"
            "l.bind(('127.0.0.1', %d))\n"
            "l.listen(1)\n"
            "c = socket.create_connection(l.getsockname())\n"
            "a, _ = l.accept()\n"
            "open(%r, 'w').close()\n"
            "while not os.path.exists(%r): time.sleep(0.05)\n"
            "c.send(b'x' * 1000)\n"
            "open(%r, 'w').close()\n"
            "time.sleep(600)\n") % (port, files["connected"], files["go"], files["sent"])
    p = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    nft = ["nft", "add table inet crib_drop; "
           "add chain inet crib_drop in { type filter hook input priority 0; }; "
           "add rule inet crib_drop in tcp dport %d drop" % port]
    try:
        while not os.path.exists(files["connected"]) and p.poll() is None:
            time.sleep(0.05)
        subprocess.run(nft, check=True)
        open(files["go"], "w").close()
        while not os.path.exists(files["sent"]) and p.poll() is None:
            time.sleep(0.05)
        out = os.path.join(tmp, "unacked.crib")
        rc, err = dump(p.pid, out)
        t.eq(rc, 1, "TCP data sent and not acknowledged: exit 1")
        t.check("fd 4: 1000 bytes sent on this TCP connection are not acknowledged" in err,
                "... naming the descriptor, the bytes and why", err)
        t.check(not os.path.exists(out), "... no snapshot file left")
        t.check(p.poll() is None and not_traced(p.pid), "... the process released, running")
    finally:
        subprocess.run(["nft", "delete table inet crib_drop"], stderr=subprocess.DEVNULL)
        p.kill()
        p.wait()


def test_output_kept(tmp):
    """-o FILE: an existing snapshot is replaced only with --force, and a
    dump that fails leaves it whole, with no temporary file beside it."""
    d = os.path.join(tmp, "kept")
    os.makedirs(d, exist_ok=True)
    out = os.path.join(d, "good.crib")
    with open(out, "w") as f:
        f.write("a good snapshot")
    w = Workload("idle", "@DIR@/ready", "@DIR@/file")
    try:
        r = run("-p", str(w.pid), "-o", out)
        t.eq(r.returncode, 1, "an existing output file: exit 1")
        t.check(b"not replaced (--force replaces it)" in r.stderr, "... saying why", r.stderr)
        t.check(w.alive() and not_traced(w.pid), "... the process untouched")
    finally:
        w.stop()
    # A process crib-dump refuses (it holds a pidfd of init): the dump fails
    # after the output was opened.
    ready = os.path.join(d, "refused")
    p = subprocess.Popen([sys.executable, "-c",
                          "import os, time\n"
                          "fd = os.pidfd_open(1)\n"
                          "open(%r, 'w').close()\n"
                          "time.sleep(600)\n" % ready])
    try:
        while not os.path.exists(ready) and p.poll() is None:
            time.sleep(0.05)
        r = run("--force", "-p", str(p.pid), "-o", out)
        t.eq(r.returncode, 1, "--force, a dump that fails: exit 1")
    finally:
        p.kill()
        p.wait()
    os.unlink(ready)
    with open(out) as f:
        t.eq(f.read(), "a good snapshot", "... the snapshot the file held is whole")
    t.eq(sorted(os.listdir(d)), ["good.crib"], "... and no temporary file is left")
    w = Workload("idle", "@DIR@/ready", "@DIR@/file")
    try:
        rc, err = dump(w.pid, out, "--force", "--leave-running")
        t.check(rc == 0, "--force: the file is replaced", err)
        r = subprocess.run(["crib-inspect", "--verify", out], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
        t.check(r.returncode == 0, "... by a complete snapshot", r.stderr)
    finally:
        w.stop()


def written(out):
    """Bytes written so far to crib-dump's temporary file for out (.NAME.XXXXXX)."""
    d, name = os.path.split(out)
    size = 0
    for x in os.listdir(d):
        if x.startswith("." + name + "."):
            try:
                size += os.path.getsize(os.path.join(d, x))
            except OSError:
                pass    # renamed or removed meanwhile
    return size


def test_killed_during_dump():
    w = Workload("heap", "64", "@DIR@/ready")
    try:
        out = w.path("snap")
        dumper = subprocess.Popen(["crib-dump", "-p", str(w.pid), "-o", out],
                                  stdin=subprocess.DEVNULL, stderr=subprocess.PIPE)
        # Wait until the memory is being written (to the temporary file
        # that becomes out), then kill the process.
        deadline = time.time() + 60
        while written(out) < 1 << 20 and time.time() < deadline and dumper.poll() is None:
            time.sleep(0.02)
        w.proc.kill()
        err = dumper.communicate(timeout=120)[1].decode(errors="replace")
        if dumper.returncode == 0:
            t.diag("the dump finished before the kill; the checks below are moot")
        t.eq(dumper.returncode, 1, "process killed during the dump: exit 1")
        t.check("exited during the dump" in err, "... saying so", err)
        t.check(not os.path.exists(out) and not written(out), "... no snapshot file left")
        t.eq(w.proc.wait(timeout=10), -9, "... and the process is reaped normally")
    finally:
        w.stop()


def test_foreign_timer():
    w = Workload("signals", "@DIR@", "foreign-timer")
    try:
        out = w.path("snap")
        rc, err = dump(w.pid, out)
        t.eq(rc, 1, "a POSIX timer on another process's CPU clock: exit 1")
        t.check("counts the CPU time of process %d" % os.getpid() in err,
                "... naming the timer and that process", err)
        t.check(not os.path.exists(out), "... no snapshot file left")
        t.check(w.alive() and not_traced(w.pid), "... the process released, running")
    finally:
        w.stop()


tmpdir = os.environ.get("TMPDIR", "/tmp")
for test in [test_usage, lambda: test_no_process(tmpdir), test_terminal, test_pty_outside,
             lambda: test_dev_tty_outside(tmpdir),
             lambda: test_output_kept(tmpdir),
             test_killed_during_dump, lambda: test_unacknowledged(tmpdir),
             test_foreign_timer] + \
        [lambda w=w, c=c, m=m: test_refused_file(tmpdir, w, c, m)
         for w, (c, m) in list(REFUSED_FILES.items()) + list(REFUSED_STATE.items())]:
    try:
        test()
    except Exception as e:
        t.check(False, "raised %r" % (e,))
sys.exit(t.done())
