#!/usr/bin/env python3
"""A snapshot crib-dump really wrote (golden/real-idle.crib, made in the guest
by tests/vm/make-real-golden.sh from the idle workload) read back offline by
crib-inspect: it verifies, and holds what the workload set up.  TAP.

Usage: test-real-dump.py CRIB_INSPECT GOLDEN_DIR"""
import json
import os
import subprocess
import sys
import tempfile

inspect, golden = sys.argv[1], sys.argv[2]
snap = os.path.join(golden, "real-idle.crib")
checks = 0
failed = 0

RLIMIT_NOFILE = 7
O_APPEND = 0o2000


def check(cond, desc):
    global checks, failed
    checks += 1
    if not cond:
        failed += 1
    print(f"{'' if cond else 'not '}ok {checks} - {desc}", flush=True)


def run(*args):
    return subprocess.run([inspect, *args], capture_output=True, text=True)


r = run("--verify", snap)
check(r.returncode == 0, "crib-inspect --verify accepts the real dump")

r = run("--json", snap)
check(r.returncode == 0, "crib-inspect --json reads it")
records = json.loads(r.stdout)["records"] if r.returncode == 0 else []


def of_type(t):
    return [rec["fields"] for rec in records if rec["type"] == t]


hdr = (of_type("header") or [{}])[0]
check(hdr.get("tool_name") == "crib-dump" and hdr.get("arch") == "x86_64"
      and hdr.get("page_size") == 4096, "header: written by crib-dump on x86_64, 4 KiB pages")

proc = (of_type("process") or [{}])[0]
check(proc.get("comm") == "idle" and proc.get("pid") == hdr.get("root_pid"),
      "process: the idle workload, the snapshot's root")
check(proc.get("nice") == 7 and proc.get("umask") == 0o027,
      "process: nice 7 and umask 027 as the workload set them")
nofile = [rl for rl in proc.get("rlimits", []) if rl["resource"] == RLIMIT_NOFILE]
check(len(nofile) == 1 and nofile[0]["cur"] == 300, "process: RLIMIT_NOFILE soft limit 300")
check(proc.get("cwd") == "/tmp", "process: cwd /tmp")

threads = of_type("thread")
check(len(threads) == 1 and "regs_x86_64" in threads[0] and threads[0]["regs_x86_64"].get("rip"),
      "one thread, with its registers")

vmas = of_type("vma")
mm = (of_type("mm") or [{}])[0]
check(len(vmas) > 0 and len(vmas) == mm.get("nr_vmas"), f"{len(vmas)} VMAs, as many as the mm record counts")
paths = {v.get("path") for v in vmas}
check("[vdso]" in paths and "[stack]" in paths and "[heap]" in paths,
      "the VMAs include the heap, the stack and the vDSO")

files = {f["fd"]: f for f in of_type("file")}
f3 = files.get(3, {})
check(f3.get("pos") == 5 and f3.get("size") == 10 and f3.get("mode", 0) & 0o777 == 0o640,
      "fd 3: the workload's file at offset 5, 10 bytes, mode 0640")
f4 = files.get(4, {})
check(f4.get("path") == "/dev/null" and f4.get("cloexec") is True
      and f4.get("flags", 0) & O_APPEND, "fd 4: /dev/null, O_APPEND and close-on-exec")

pages = of_type("pages")
dumped = sum(p["data"]["len"] for p in pages if "data" in p)
inside = all(any(v["start"] <= p["addr"] and p["addr"] + p["npages"] * 4096 <= v["end"]
                 for v in vmas) for p in pages)
check(dumped > 0 and inside, f"{dumped} bytes of memory dumped, all inside the VMAs")

sighand = of_type("sighand")
ignored = sorted(a["signo"] for a in (sighand or [{}])[0].get("actions", []) if a["handler"] == 1)
check(len(sighand) == 1 and ignored == [2, 3],
      "sighand: SIGINT and SIGQUIT ignored, as a background job of a script starts")
timers = of_type("timers")
check(len(of_type("sigpending")) == 1 and len(timers) == 1 and not timers[0]["posix"]
      and timers[0]["real"]["value_ns"] == 0, "no signal pending, no timer armed")

r = run("--diff", snap, snap)
check(r.returncode == 0, "--diff of the dump with itself finds nothing")

with open(snap, "rb") as f:
    data = f.read()
with tempfile.NamedTemporaryFile(suffix=".crib") as t:
    t.write(data[: len(data) // 2])
    t.flush()
    r = run("--verify", t.name)
    check(r.returncode == 5, "the dump cut in half fails --verify as truncated (exit 5)")

print(f"1..{checks}")
sys.exit(1 if failed else 0)
