# SPDX-License-Identifier: GPL-2.0
"""Shared by the guest tests of crib-dump and crib-restore: workloads and
their self-checks, procfs readers, crib-dump, and snapshots as JSON
(crib-inspect --json)."""
import json
import os
import signal
import subprocess
import tempfile
import time

PREFIX = "/usr/local"
WORKLOADS = PREFIX + "/libexec/crib/workloads"
EXTRACT = PREFIX + "/libexec/crib/tests/dump-lib/snapshot-extract"
PAGE = os.sysconf("SC_PAGE_SIZE")


class Workload:
    """A workload program started in its own directory; ready once it wrote READYFILE."""

    def __init__(self, name, *args, ready="ready", timeout=120, user=None, parent=None,
                 session=False, stdin=subprocess.DEVNULL):
        """user: (uid, gid) to run as, with no supplementary groups; parent:
        where its directory goes (default: the temporary directory);
        session: lead a session of its own rather than join the test's;
        stdin: its standard input (default /dev/null)."""
        self.dir = tempfile.mkdtemp(prefix="crib-" + os.path.basename(name) + "-",
                                    dir=parent)
        ids = {}
        if user:
            os.chmod(self.dir, 0o777)
            ids = {"user": user[0], "group": user[1], "extra_groups": []}
        self.ready_path = os.path.join(self.dir, ready)
        argv = [os.path.join(WORKLOADS, name)] + [a.replace("@DIR@", self.dir) for a in args]
        # Its output goes to a file: a workload left behind must not hold
        # the test's output pipe open.
        with open(os.path.join(self.dir, "output"), "w") as out:
            self.proc = subprocess.Popen(argv, stdin=stdin, stdout=out, stderr=out,
                                         start_new_session=session, **ids)
        self.pid = self.proc.pid
        deadline = time.time() + timeout
        while not os.path.exists(self.ready_path):
            if self.proc.poll() is not None or time.time() > deadline:
                self.stop()
                raise RuntimeError("workload %s did not get ready: %s" %
                                   (name, read(os.path.join(self.dir, "output"))))
            time.sleep(0.05)
        with open(self.ready_path) as f:
            self.ready = f.read()

    def path(self, name):
        return os.path.join(self.dir, name)

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        if self.alive():
            self.proc.kill()
        self.proc.wait()


def dump(pid, out, *extra, timeout=600):
    """Run crib-dump; returns (exit status, stderr).  CRIB_TEST_DUMP_MODE
    (--fast, --compact) comes first, so that a test's own options win.
    Tests dump again to the same file on purpose: --force (dump-errors.py
    checks that an existing file is kept without it)."""
    mode = os.environ.get("CRIB_TEST_DUMP_MODE", "").split()
    r = subprocess.run(["crib-dump"] + mode + ["--force", "-p", str(pid), "-o", out] +
                       list(extra),
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=timeout)
    return r.returncode, r.stderr.decode(errors="replace")


def inspect_json(path):
    r = subprocess.run(["crib-inspect", "--json", path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    doc = json.loads(r.stdout)
    return doc


def records(doc, kind):
    return [r["fields"] for r in doc["records"] if r["type"] == kind]


def read(path, mode="r"):
    with open(path, mode) as f:
        return f.read()


def proc_status(pid, tid=None):
    path = "/proc/%d/task/%d/status" % (pid, tid) if tid else "/proc/%d/status" % pid
    out = {}
    for line in read(path).splitlines():
        key, _, value = line.partition(":")
        out[key] = value.strip()
    return out


def proc_stat(pid):
    """Fields of /proc/PID/stat, 1-based as in proc(5)."""
    text = read("/proc/%d/stat" % pid)
    rest = text[text.rindex(")") + 2:].split()
    return [None, int(text.split()[0]), text[text.index("(") + 1:text.rindex(")")]] + rest


def proc_maps(pid):
    maps = []
    for line in read("/proc/%d/maps" % pid).splitlines():
        parts = line.split(None, 5)
        start, end = (int(x, 16) for x in parts[0].split("-"))
        major, minor = (int(x, 16) for x in parts[3].split(":"))
        maps.append({"start": start, "end": end, "perms": parts[1],
                     "offset": int(parts[2], 16), "dev": os.makedev(major, minor),
                     "inode": int(parts[4]), "path": parts[5] if len(parts) > 5 else ""})
    return maps


def fdinfo(pid, fd):
    out = {}
    for line in read("/proc/%d/fdinfo/%d" % (pid, fd)).splitlines():
        key, _, value = line.partition(":")
        out[key] = value.strip()
    return out


def path_text(value):
    return value if isinstance(value, str) else bytes.fromhex(value["hex"]).decode(errors="replace")


def alive(pid):
    """pid runs: it is neither gone nor a zombie."""
    try:
        state = proc_status(pid).get("State", "")
    except (FileNotFoundError, ProcessLookupError):
        return False
    return not state.startswith(("Z", "X"))


def self_check(pid, path, timeout):
    """SIGUSR1 asks a workload (sockets, udpqueue) to check its own state;
    it writes "ok", or what failed, to path.  Its report, or why there is
    none."""
    os.kill(pid, signal.SIGUSR1)
    deadline = time.time() + timeout
    while not os.path.exists(path) and time.time() < deadline and alive(pid):
        time.sleep(0.1)
    if os.path.exists(path):
        return read(path)
    return "no report (alive: %s)" % alive(pid)


def not_traced(pid):
    st = proc_status(pid)
    return st.get("TracerPid") == "0" and not st.get("State", "").startswith(("t", "T"))


def extract(*args):
    return subprocess.run([EXTRACT] + [str(a) for a in args], stdout=subprocess.PIPE,
                          check=True).stdout
