#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""crib-dump and crib-restore on real servers, as Debian ships them:
redis-server holding 10,000 keys with a client connected, nginx (a master
and two workers) serving a static file, python3 -m http.server, a Python
asyncio program with a timer and a child process, and a Node.js HTTP
server that served one request on a connection it keeps.  Each is started,
given its state, dumped whole (which kills every process of it), found
gone, restored with the same PIDs, and checked from outside: the state
audit against spec/state.md, its data, its old client connection (same
boot), new clients, and what a user does next (nginx -s reload).  TAP.

  restore-apps.py                        everything, in this boot
  restore-apps.py --migrate dump DIR     start and dump them into DIR
  restore-apps.py --migrate restore DIR  (a fresh boot) restore and check them"""
import http.client
import os
import pwd
import re
import signal
import socket
import subprocess
import sys
import tempfile

sys.path.insert(0, "/usr/local/libexec/crib/tests/dump-lib")
from dumptest import WORKLOADS, alive, dump, not_traced, read  # noqa: E402
from restoretest import (guarded, main_with_migration, pid_free, restore,  # noqa: E402
                         wait_for)
from tap import Tap  # noqa: E402
import stateaudit  # noqa: E402

t = Tap()
LOCALHOST = "127.0.0.1"


def children(pid):
    """PIDs whose parent is pid."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            stat = read("/proc/%s/stat" % d)
        except OSError:
            continue
        if int(stat[stat.rindex(")") + 2:].split()[1]) == pid:
            out.append(int(d))
    return sorted(out)


def tree_of(pid):
    """pid and every descendant, parents first."""
    out = [pid]
    for child in children(pid):
        out += tree_of(child)
    return out


def kill_tree(pids):
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for pid in pids:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass


def spawn(argv, workdir):
    """A server in a session of its own, its output in workdir/output."""
    with open(os.path.join(workdir, "output"), "ab") as out:
        return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                start_new_session=True, cwd=workdir).pid


def http_get(port, path, timeout=10):
    """The body of GET path from LOCALHOST:port, by curl; None on failure."""
    r = subprocess.run(["curl", "-sf", "--max-time", str(timeout),
                        "http://%s:%d%s" % (LOCALHOST, port, path)],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return r.stdout if r.returncode == 0 else None


def static_site(workdir):
    """A directory with one file, readable by nginx's unprivileged workers;
    its path and the file's contents."""
    www = os.path.join(workdir, "www")
    os.makedirs(www)
    body = b"".join(b"line %05d of a static file served across a checkpoint\n" % i
                    for i in range(2000))
    with open(os.path.join(www, "page.txt"), "wb") as f:
        f.write(body)
    for d in (workdir, www):
        os.chmod(d, 0o755)
    os.chmod(os.path.join(www, "page.txt"), 0o644)
    return www, body


class Resp:
    """A Redis client connection speaking RESP, just enough for these checks."""

    def __init__(self, port):
        self.sock = socket.create_connection((LOCALHOST, port), timeout=30)
        self.buf = b""

    @staticmethod
    def encode(*args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        return b"".join(out)

    def _line(self):
        while b"\r\n" not in self.buf:
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionError("redis closed the connection")
            self.buf += data
        line, _, self.buf = self.buf.partition(b"\r\n")
        return line

    def _exact(self, n):
        while len(self.buf) < n + 2:
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionError("redis closed the connection")
            self.buf += data
        out, self.buf = self.buf[:n], self.buf[n + 2:]
        return out

    def reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            raise RuntimeError("redis: " + rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            return None if n < 0 else self._exact(n)
        if kind == b"*":
            return [self.reply() for _ in range(int(rest))]
        raise RuntimeError("redis: unexpected reply %r" % line)

    def call(self, *args):
        self.sock.sendall(self.encode(*args))
        return self.reply()

    def pipeline(self, commands):
        self.sock.sendall(b"".join(self.encode(*c) for c in commands))
        return [self.reply() for _ in commands]

    def close(self):
        self.sock.close()


class App:
    """A real server under test.  start() runs it and gives it its state;
    check(old) reports what is wrong with it after a restore (old: the
    client state kept from before the dump, None after a migration)."""
    name = ""
    moving = ()     # what the server changes itself while it runs (stateaudit)

    def __init__(self, workdir):
        self.dir = workdir
        self.root = None

    def note(self):
        return {"dir": self.dir, "root": self.root, "pids": tree_of(self.root)}

    def client(self):
        return None


class Redis(App):
    name = "redis"
    port = 6390
    keys = 10000

    @staticmethod
    def value(i):
        return b"value-%d-%s" % (i, b"x" * (i % 50))

    def start(self):
        self.root = spawn(["redis-server", "--port", str(self.port), "--bind", LOCALHOST,
                           "--save", "", "--appendonly", "no", "--daemonize", "no",
                           "--dir", self.dir, "--logfile", os.path.join(self.dir, "redis.log")],
                          self.dir)
        if not wait_for(lambda: self._ping(), 30):
            raise RuntimeError("redis-server did not answer: %s" %
                               read(os.path.join(self.dir, "redis.log"))[-2000:])
        # Written by redis-cli, as a user would.
        text = "".join("SET key:%d %s\n" % (i, self.value(i).decode()) for i in range(self.keys))
        r = subprocess.run(["redis-cli", "-p", str(self.port), "--pipe"], input=text.encode(),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
        if r.returncode != 0 or b"errors: 0, replies: %d" % self.keys not in r.stdout:
            raise RuntimeError("redis-cli --pipe: %s" % r.stdout.decode(errors="replace"))

    def _ping(self):
        try:
            c = Resp(self.port)
            ok = c.call("PING") == "PONG"
            c.close()
            return ok
        except OSError:
            return False

    def client(self):
        c = Resp(self.port)
        if c.call("CLIENT", "SETNAME", "held-across-dump") != "OK":
            raise RuntimeError("CLIENT SETNAME failed")
        return c

    def _data_problems(self, c):
        if c.call("DBSIZE") != self.keys:
            return ["DBSIZE is %r, not %d" % (c.call("DBSIZE"), self.keys)]
        got = c.call("MGET", *["key:%d" % i for i in range(self.keys)])
        bad = [i for i in range(self.keys) if got[i] != self.value(i)]
        return ["%d keys differ, first key:%d = %r" % (len(bad), bad[0], got[bad[0]])] if bad else []

    def check(self, old):
        try:
            c = Resp(self.port)
            problems = self._data_problems(c)
        except (OSError, RuntimeError) as e:
            return ["a new connection: %r" % e]
        if old is not None:
            try:
                if old.call("PING") != "PONG":
                    problems.append("the old connection does not answer PING")
                if old.call("CLIENT", "GETNAME") != b"held-across-dump":
                    problems.append("the old connection lost its name")
                old.call("SET", "written:after", "restore")
                if c.call("GET", "written:after") != b"restore":
                    problems.append("a write on the old connection is not seen by a new one")
            except (OSError, RuntimeError) as e:
                problems.append("the old connection: %r" % e)
        c.close()
        return problems


class Nginx(App):
    name = "nginx"
    port = 8089
    # its error log (standard error too), where it writes what it serves
    moving = (r"fd [23] of \d+\|(fdinfo:pos|fstat:size|fstat:mtime)",)

    def conf_path(self):
        return os.path.join(self.dir, "nginx.conf")

    def start(self):
        www, self.body = static_site(self.dir)
        with open(self.conf_path(), "w") as f:
            f.write("worker_processes 2;\ndaemon off;\nmaster_process on;\n"
                    "pid %s/nginx.pid;\nerror_log %s/error.log info;\n"
                    "events { worker_connections 64; }\n"
                    "http {\n  access_log off;\n"
                    "  server { listen %s:%d; root %s; }\n}\n" %
                    (self.dir, self.dir, LOCALHOST, self.port, www))
        self.root = spawn(["nginx", "-c", self.conf_path()], self.dir)
        if not wait_for(lambda: len(children(self.root)) == 2 and
                        http_get(self.port, "/page.txt") == self.body, 30):
            raise RuntimeError("nginx did not serve: %s" %
                               read(os.path.join(self.dir, "error.log"))[-2000:])

    def check(self, old):
        problems = []
        if http_get(self.port, "/page.txt") != self.body:
            problems.append("curl does not get the file")
        workers = children(self.root)
        if len(workers) != 2:
            problems.append("workers after restore: %s" % workers)
        r = subprocess.run(["nginx", "-c", self.conf_path(), "-s", "reload"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if r.returncode != 0:
            return problems + ["nginx -s reload: %s" % r.stdout.decode(errors="replace")]
        # The master starts two new workers and retires the old ones.
        if not wait_for(lambda: len(children(self.root)) == 2 and
                        not set(children(self.root)) & set(workers), 30):
            problems.append("after reload the workers are %s (were %s)" %
                            (children(self.root), workers))
        if http_get(self.port, "/page.txt") != self.body:
            problems.append("curl does not get the file after reload")
        return problems


class HttpServer(App):
    name = "http.server"
    port = 8091

    def start(self):
        www, self.body = static_site(self.dir)
        self.root = spawn(["python3", "-m", "http.server", str(self.port), "--bind", LOCALHOST,
                           "--directory", www], self.dir)
        if not wait_for(lambda: http_get(self.port, "/page.txt", timeout=2) == self.body, 60):
            raise RuntimeError("http.server did not serve: %s" %
                               read(os.path.join(self.dir, "output"))[-2000:])

    def check(self, old):
        return [] if http_get(self.port, "/page.txt") == self.body else ["curl does not get the file"]


class Asyncio(App):
    """tests/workloads/ticker.py: an asyncio loop whose timer ticks every
    50 ms and which echoes a line through a child process (cat) at each
    tick, writing both counts to a file."""
    name = "asyncio"
    # every 50 ms it makes Python objects, and Python maps and unmaps
    # memory for them as it goes: the anonymous mappings and their sums
    # move between the audit and the dump, and after the restore
    moving = (r"vma 0x\w+-0x\w+ of \d+\|.*",
              r"(process|thread) [\w ]+\|(status:Vm\w+|task status:Vm\w+|stat:vsize)")

    def counts(self):
        try:
            ticks, echoes = read(os.path.join(self.dir, "counts")).split()
            return int(ticks), int(echoes)
        except (OSError, ValueError):
            return 0, 0

    def start(self):
        self.root = spawn(["python3", os.path.join(WORKLOADS, "ticker.py"), self.dir], self.dir)
        if not wait_for(lambda: self.counts()[1] >= 5, 60):
            raise RuntimeError("ticker did not tick: %s" %
                               read(os.path.join(self.dir, "output"))[-2000:])

    def note(self):
        n = App.note(self)
        n["counts"] = self.counts()
        return n

    def check(self, old):
        before = self.counts()
        # The timer still fires (20 ticks a second) and the child still echoes.
        if not wait_for(lambda: self.counts()[0] >= before[0] + 10 and
                        self.counts()[1] >= before[1] + 10, 20):
            return ["the loop went from %s to %s in 20 s" % (before, self.counts())]
        return []


class Node(App):
    """tests/workloads/hello.js: Node's http module on all addresses,
    answering "hello N" to its Nth request.  One request is served on a
    kept-alive connection before the dump: the listener and that
    connection are both restored on the same port."""
    name = "node"
    port = 8093
    # Not the server's doing: two adjacent PROT_NONE mappings of V8 with
    # the same flags, which the kernel had kept apart (their anonymous
    # memory is not the same), are mapped again side by side and merge:
    # the restore does not keep such a boundary yet.  And V8 maps and
    # unmaps its heap as it runs, from threads of its own: the sums of
    # the mappings move between the audit and the dump, and after the
    # restore, as asyncio's do.
    moving = (r"vma 0x\w+-0x\w+ of \d+\|.*",
              r"(process|thread) [\w ]+\|(status:Vm\w+|task status:Vm\w+|stat:vsize)")

    def start(self):
        self.root = spawn(["node", os.path.join(WORKLOADS, "hello.js"), str(self.port)],
                          self.dir)
        if not wait_for(lambda: self._listening(), 60):
            raise RuntimeError("node did not listen: %s" %
                               read(os.path.join(self.dir, "output"))[-2000:])

    def _listening(self):
        try:
            socket.create_connection((LOCALHOST, self.port), timeout=2).close()
            return True
        except OSError:
            return False

    @staticmethod
    def get(conn):
        conn.request("GET", "/")
        r = conn.getresponse()
        return r.status, r.read()

    def client(self):
        c = http.client.HTTPConnection(LOCALHOST, self.port, timeout=30)
        if self.get(c) != (200, b"hello 1\n"):
            raise RuntimeError("node's first answer is wrong")
        return c

    def check(self, old):
        # The probe of start() was a connection without a request; after a
        # migration nothing was asked before the dump.
        problems = []
        n = 1
        if old is not None:
            try:
                got = self.get(old)
                if got != (200, b"hello 2\n"):
                    problems.append("the old connection got %r" % (got,))
            except (OSError, http.client.HTTPException) as e:
                problems.append("the old connection: %r" % e)
            n = 3
        got = http_get(self.port, "/")
        if got != b"hello %d\n" % n:
            problems.append("curl got %r, not hello %d" % (got, n))
        return problems


class Tmux(App):
    """A tmux server with a session whose pane runs cat after printing a
    line: the server holds the pseudo-terminal master, the pane its slave
    as controlling terminal.  After a restore the pane shows what it
    showed, and keys sent to it come back through cat.  In one boot only:
    its socket is in the migration's directory, where no socket is made."""
    name = "tmux"

    def tmux(self, *args):
        return subprocess.run(["tmux", "-S", os.path.join(self.dir, "socket")] + list(args),
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=60)

    def start(self):
        r = self.tmux("new-session", "-d", "-s", "crib", "-x", "90", "-y", "30",
                      "sh -c 'echo kept-in-tmux; exec cat'")
        if r.returncode:
            raise RuntimeError("tmux new-session: %s" % r.stdout.decode(errors="replace"))
        # The server forks itself off: it is the root of the tree.
        self.root = int(self.tmux("display-message", "-p", "#{pid}").stdout)
        if not wait_for(lambda: b"kept-in-tmux" in self.screen(), 30):
            raise RuntimeError("tmux shows no output: %r" % self.screen())

    def screen(self):
        return self.tmux("capture-pane", "-p", "-t", "crib").stdout

    def check(self, old):
        problems = []
        if b"kept-in-tmux" not in self.screen():
            problems.append("the pane lost its line: %r" % self.screen())
        self.tmux("send-keys", "-t", "crib", "typed-after-restore", "Enter")
        # the line twice: the terminal's echo, then cat's
        if not wait_for(lambda: self.screen().count(b"typed-after-restore") == 2, 30):
            problems.append("keys sent after the restore: %r" % self.screen())
        size = self.tmux("display-message", "-p", "-t", "crib", "#{pane_width}x#{pane_height}")
        if size.stdout.strip() != b"90x30":
            problems.append("pane size %r" % size.stdout)
        return problems


APPS = (Redis, Nginx, HttpServer, Asyncio, Node)
# In one boot only.
ONE_BOOT = (Tmux,)


class Refused(App):
    """A real program whose state holds a kind a snapshot does not carry
    yet: the dump must stop at it, saying which process, which object and
    what about it (refusal, a regular expression of the message), and
    leave the program running as it was.  serves() tells it still works."""
    refusal = ""


class Postgres(Refused):
    """PostgreSQL 15's postmaster and its workers: the postmaster maps a
    small System V shared memory segment, which is refused."""
    name = "postgresql"
    port = 5440
    refusal = (r"process \d+, VMA 0x[0-9a-f]+-0x[0-9a-f]+ of /SYSV[0-9a-f]+.*: "
               r"System V shared memory")

    def bin(self, prog):
        return os.path.join("/usr/lib/postgresql/15/bin", prog)

    def as_postgres(self):
        pw = pwd.getpwnam("postgres")

        def drop():
            os.setgid(pw.pw_gid)
            os.setuid(pw.pw_uid)
        return drop

    def start(self):
        data = os.path.join(self.dir, "data")
        pw = pwd.getpwnam("postgres")
        os.chown(self.dir, pw.pw_uid, pw.pw_gid)
        r = subprocess.run([self.bin("initdb"), "-D", data, "-A", "trust", "-U", "postgres"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           preexec_fn=self.as_postgres(), cwd=self.dir, timeout=600)
        if r.returncode:
            raise RuntimeError("initdb: %s" % r.stdout.decode(errors="replace")[-2000:])
        with open(os.path.join(self.dir, "output"), "ab") as out:
            self.root = subprocess.Popen(
                [self.bin("postgres"), "-D", data, "-p", str(self.port), "-k", self.dir,
                 "-c", "listen_addresses=" + LOCALHOST], stdin=subprocess.DEVNULL,
                stdout=out, stderr=out, start_new_session=True, cwd=self.dir,
                preexec_fn=self.as_postgres()).pid
        if not wait_for(lambda: self.query("SELECT 40 + 2") == "42", 120):
            raise RuntimeError("postgres did not answer: %s" %
                               read(os.path.join(self.dir, "output"))[-2000:])
        if self.query("CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)") is None:
            raise RuntimeError("postgres did not take a table")

    def query(self, sql):
        r = subprocess.run([self.bin("psql"), "-h", LOCALHOST, "-p", str(self.port),
                            "-U", "postgres", "-At", "-c", sql], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, timeout=60)
        return r.stdout.decode().strip() if r.returncode == 0 else None

    def serves(self):
        got = self.query("SELECT n FROM kept")
        return [] if got == "7" else ["SELECT from its table gave %r" % got]


def run_refused(cls):
    """The dump of a program it cannot carry yet stops and says why, and
    leaves it running, untraced, serving; its processes are killed after."""
    app = cls(tempfile.mkdtemp(prefix="crib-app-"))
    os.chmod(app.dir, 0o755)
    app.start()
    pids = tree_of(app.root)
    snap = os.path.join(app.dir, "snap.crib")
    rc, err = dump(app.root, snap)
    t.check(rc != 0 and re.search(app.refusal, err),
            "%s: crib-dump of %d processes refuses, naming the process, the object and "
            "what about it cannot be carried" % (app.name, len(pids)), "exit %d: %s" % (rc, err))
    t.check(not os.path.exists(snap), "%s: no snapshot is left" % app.name)
    t.eq(tree_of(app.root), pids, "%s: the same processes after the refused dump" % app.name)
    t.check(all(alive(p) and not_traced(p) for p in pids),
            "%s: every process runs, untraced" % app.name)
    problems = app.serves()
    t.check(not problems, "%s: it serves as before the dump" % app.name, "\n".join(problems))
    kill_tree(tree_of(app.root))


REFUSED = (Postgres,)


def reap_children():
    """Collect every child of ours that has ended: the dumped root, and the
    orphans of a killed parent (we are their subreaper)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def gone(pids):
    reap_children()
    return all(pid_free(p) for p in pids)


def dump_app(app, snap):
    """Dump app's tree into snap; its note, or None (checks reported)."""
    note = app.note()
    note["audit"] = stateaudit.note(app.root)
    rc, err = dump(app.root, snap)
    if not t.eq(rc, 0, "%s: crib-dump of %d processes" % (app.name, len(note["pids"]))):
        t.diag(err)
        kill_tree(note["pids"])
        return None
    t.check(wait_for(lambda: gone(note["pids"]), 10), "%s: every process is gone after the dump"
            % app.name, "left: %s" % [p for p in note["pids"] if not pid_free(p)])
    return note


def restore_app(app, snap, note, old, migrated=False):
    """Restore app from snap and check it (migrated: dumped in another
    boot); the processes are killed after."""
    rc, err = restore(snap)
    if not t.eq(rc, 0, "%s: crib-restore" % app.name):
        t.diag(err)
        return
    app.root = note["root"]
    now = tree_of(app.root)
    t.eq(now, note["pids"], "%s: the same processes, with the same PIDs" % app.name)
    t.check(all(alive(p) for p in now), "%s: every process runs" % app.name)
    stateaudit.check(t, app.name, note["audit"], app.root, app.moving)
    # Across boots the tree gets a time namespace whose clocks go on from
    # the dump's (spec §5.6); in the same boot it keeps ours.
    ours = os.stat("/proc/self/ns/time").st_ino
    theirs = os.stat("/proc/%d/ns/time" % app.root).st_ino
    if migrated:
        t.check(theirs != ours and read("/proc/%d/timens_offsets" % app.root).split() !=
                ["monotonic", "0", "0", "boottime", "0", "0"],
                "%s: from another boot, in a time namespace with its clocks" % app.name,
                read("/proc/%d/timens_offsets" % app.root))
    else:
        t.eq(theirs, ours, "%s: in the same boot, in our time namespace" % app.name)
    problems = app.check(old)
    t.check(not problems, "%s: serves as before the dump" % app.name, "\n".join(problems))
    kill_tree(tree_of(app.root))


def run_app(cls):
    app = cls(tempfile.mkdtemp(prefix="crib-app-"))
    app.start()
    old = app.client()
    snap = os.path.join(app.dir, "snap.crib")
    note = dump_app(app, snap)
    if note:
        restore_app(app, snap, note, old)
    if old is not None:
        old.close()


def migrate_dump_one(cls, base):
    workdir = os.path.join(base, cls.name)
    os.makedirs(workdir)
    app = cls(workdir)
    app.start()
    note = dump_app(app, os.path.join(workdir, "snap.crib"))
    if note and hasattr(app, "body"):
        note["body"] = app.body.decode()
    return note


def migrate_restore_one(cls, note):
    app = cls(note["dir"])
    if "body" in note:
        app.body = note["body"].encode()
    restore_app(app, os.path.join(app.dir, "snap.crib"), note, None, migrated=True)


def run_all():
    for cls in APPS + ONE_BOOT:
        guarded(t, run_app, cls)
    for cls in REFUSED:
        guarded(t, run_refused, cls)


def main():
    return main_with_migration(t, __doc__, run_all, migrate_dump_one, migrate_restore_one,
                               APPS, (32520, 48))


if __name__ == "__main__":
    sys.exit(main())
