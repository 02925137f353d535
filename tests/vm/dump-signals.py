#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""crib-dump of signal state: the signals workload is dumped with
--leave-running and every handler, pending signal (with its siginfo) and
timer in the snapshot is checked against what the workload set up and
against /proc/PID/status and /proc/PID/timers; afterwards the workload
checks that its signals are still pending and its timers still armed.
Then a thread signalling itself is dumped again and again, to catch it
with a signal on its way.  TAP."""
import os
import struct
import sys
import time

sys.path.insert(0, "/usr/local/libexec/crib/tests/dump-lib")
from dumptest import (Workload, dump, inspect_json, not_traced, proc_stat,  # noqa: E402
                      proc_status, read, records)
from tap import Tap  # noqa: E402

SI_USER, SI_QUEUE, SI_TIMER, SI_TKILL = 0, -1, -2, -6
SIGEV_SIGNAL, SIGEV_NONE, SIGEV_THREAD_ID = 0, 1, 4
CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID = 2, 3
SIGINT, SIGUSR1, SIGUSR2, SIGTERM = 2, 10, 12, 15
SYS_TGKILL = 234
SEC = 10**9

t = Tap()


def parse_truth(text):
    truth = {"actions": [], "timers": {}, "itimers": {}, "threads": {}}
    for line in text.splitlines():
        w = line.split()
        if w[0] == "pid":
            truth["pid"] = int(w[1])
        elif w[0] == "thread":
            truth["threads"][w[1]] = int(w[2])
        elif w[0] == "rtmin":
            truth["rtmin"] = int(w[1])
        elif w[0] == "action":
            truth["actions"].append({"signo": int(w[1]), "handler": int(w[2], 16),
                                     "flags": int(w[3], 16), "restorer": int(w[4], 16),
                                     "mask": int(w[5], 16)})
        elif w[0] == "itimer":
            truth["itimers"][w[1]] = (int(w[2]) * SEC, int(w[3]) * SEC)
        elif w[0] == "timer":
            truth["timers"][w[1]] = {"id": int(w[2]), "clock": int(w[3]), "signo": int(w[4]),
                                     "notify": int(w[5]), "value": int(w[6], 16),
                                     "tid": int(w[7]), "first": int(w[8]),
                                     "interval": int(w[9])}
    return truth


def siginfo(entry):
    """(signo, si_code, pid or timer id, uid or overrun, value) of a dumped siginfo."""
    b = bytes.fromhex(entry["info"])
    signo, errno, code = struct.unpack_from("<iii", b, 0)
    a, c = struct.unpack_from("<ii", b, 16)
    value = struct.unpack_from("<Q", b, 24)[0] if code in (SI_QUEUE, SI_TIMER) else 0
    return (entry["signo"], signo, errno, code, a, c, value, len(b), b[48:] == bytes(80))


def mask_of(signos):
    return sum(1 << (s - 1) for s in set(signos))


def proc_timers(pid):
    out, cur = {}, None
    for line in read("/proc/%d/timers" % pid).splitlines():
        key, _, value = line.partition(": ")
        if key == "ID":
            cur = out.setdefault(int(value), {})
        cur[key] = value
    return out


def make_cpuclock(pid, which, per_thread):
    v = ((~pid << 3) | which | (4 if per_thread else 0)) & 0xffffffff
    return v - (1 << 32) if v & 0x80000000 else v


def check_handlers(truth, doc, status):
    sh = records(doc, "sighand")
    if not t.eq(len(sh), 1, "one sighand record"):
        return
    got = sh[0]["actions"]
    t.eq(got, truth["actions"], "every non-default handler: handler, flags, restorer, mask "
         "as rt_sigaction reports them (%d)" % len(truth["actions"]))
    ign = mask_of(a["signo"] for a in got if a["handler"] == 1)
    cgt = mask_of(a["signo"] for a in got if a["handler"] > 1)
    t.eq((ign, cgt), (int(status["SigIgn"], 16), int(status["SigCgt"], 16)),
         "ignored and caught signals match SigIgn and SigCgt")


def check_pending(truth, doc, pid):
    rt, me = truth["rtmin"], truth["pid"]
    tids = truth["threads"]
    timers = truth["timers"]
    uid = os.getuid()
    want_shared = [
        (SIGUSR1, SIGUSR1, 0, SI_USER, me, uid, 0, 128, True),
        (SIGINT, SIGINT, 0, SI_USER, me, uid, 0, 128, True),
        (rt + 1, rt + 1, 0, SI_QUEUE, me, uid, 0x1111, 128, True),
        (rt + 1, rt + 1, 0, SI_QUEUE, me, uid, 0x2222, 128, True),
        (rt + 7, rt + 7, 0, SI_TIMER, timers["fired-once"]["id"], 0, 0xbbbb, 128, True),
        (rt + 8, rt + 8, 0, SI_TIMER, timers["fired-periodic"]["id"], 0, 0xcccc, 128, True),
    ]
    sp = records(doc, "sigpending")
    if not t.eq(len(sp), 1, "one sigpending record"):
        return
    got = [siginfo(e) for e in sp[0]["signals"]]
    t.eq(got, want_shared, "process-wide pending: kill, sigqueue (in order), two timer "
         "expiries; each with its siginfo, 128 bytes")
    t.eq(mask_of(e[0] for e in got), int(proc_status(pid)["ShdPnd"], 16),
         "process-wide pending signals match ShdPnd")

    want = {
        tids["main"]: [(SIGTERM, SIGTERM, 0, SI_TKILL, me, uid, 0, 128, True),
                       (rt + 4, rt + 4, 0, SI_QUEUE, me, uid, 0x4444, 128, True),
                       (rt + 4, rt + 4, 0, SI_QUEUE, me, uid, 0x4445, 128, True)],
        tids["worker"]: [(SIGUSR2, SIGUSR2, 0, SI_TKILL, me, uid, 0, 128, True),
                         (rt + 3, rt + 3, 0, SI_QUEUE, me, uid, 0x3333, 128, True)],
    }
    threads = {th["tid"]: th for th in records(doc, "thread")}
    for name, tid in sorted(tids.items()):
        th = threads.get(tid, {})
        got = [siginfo(e) for e in th.get("pending", [])]
        status = proc_status(pid, tid)
        t.eq(got, want[tid], "%s thread: its own pending signals (tgkill, rt_tgsigqueueinfo "
             "in order) with their siginfo" % name)
        t.eq((mask_of(e[0] for e in got), th.get("sigmask")),
             (int(status["SigPnd"], 16), int(status["SigBlk"], 16)),
             "%s thread: pending and blocked sets match SigPnd and SigBlk" % name)


def cpu_seconds(pid):
    st = proc_stat(pid)
    return (int(st[14]) + int(st[15])) / os.sysconf("SC_CLK_TCK")


def check_itimers(truth, doc, pid, elapsed):
    tm = records(doc, "timers")[0]
    cpu = int((cpu_seconds(pid) + 0.05) * SEC)
    # CPU-time itimers are armed a tick late (set_cpu_itimer()): 10 ms more at most
    for key, name, slack, tick in (("real", "ITIMER_REAL", int(elapsed * SEC), 0),
                                   ("virt", "ITIMER_VIRTUAL", cpu, SEC // 100),
                                   ("prof", "ITIMER_PROF", cpu, SEC // 100)):
        value, interval = truth["itimers"][key]
        got = tm[key]
        t.check(got["interval_ns"] == interval and
                value - slack <= got["value_ns"] <= value + tick,
                "%s: interval %d s, %d s left less at most %.2f s" %
                (name, interval // SEC, value // SEC, slack / SEC),
                "got %r, set %d/%d, at most %d ns gone" % (got, value, interval, slack))


def want_clock(truth, spec):
    if spec["clock"] == CLOCK_PROCESS_CPUTIME_ID:
        return make_cpuclock(0, 2, False)
    if spec["clock"] == CLOCK_THREAD_CPUTIME_ID:	# created by the worker
        return make_cpuclock(truth["threads"]["worker"], 2, True)
    return spec["clock"]


def check_posix_timers(truth, doc, pid, elapsed):
    posix = {p["id"]: p for p in records(doc, "timers")[0]["posix"]}
    t.eq(sorted(posix), sorted(s["id"] for s in truth["timers"].values()),
         "one POSIX timer entry per timer, by id")
    cpu = int((cpu_seconds(pid) + 0.05) * SEC)
    procfs = proc_timers(pid)
    for name, spec in sorted(truth["timers"].items()):
        p = posix.get(spec["id"])
        if p is None:
            continue
        expired = name.startswith("fired")
        interval = spec["interval"]
        want = (want_clock(truth, spec), spec["signo"], spec["notify"], spec["value"],
                spec["tid"], interval, 0)
        got = (p["clockid"], p["signo"], p["notify"], p["sigev_value"], p["notify_tid"],
               p["interval_ns"], p["overrun"])
        t.eq(got, want, "timer %s: clock, signal, notify, value, thread, interval, overrun"
             % name)
        full = interval if expired else spec["first"]
        slack = cpu if spec["clock"] in (CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID) \
            else int(elapsed * SEC)
        if not full:
            ok = p["value_ns"] == 0
        else:
            ok = full - slack <= p["value_ns"] <= full
        t.check(ok, "timer %s: time left (%s)" % (name, "disarmed" if not full else
                                                   "%d s at most, moved on" % (full // SEC)
                                                   if expired else "%d s at most" %
                                                   (full // SEC)),
                "got %d ns, at most %d ns gone" % (p["value_ns"], slack))
        fs = procfs.get(spec["id"], {})
        kind = {SIGEV_SIGNAL: "signal", SIGEV_NONE: "none", SIGEV_THREAD_ID: "signal"}
        target = "tid.%d" % p["notify_tid"] if p["notify"] == SIGEV_THREAD_ID else "pid.%d" % pid
        # procfs shows the clock as created: the creating thread's CPU clock is pid 0
        clock = make_cpuclock(0, 2, True) if spec["clock"] == CLOCK_THREAD_CPUTIME_ID \
            else p["clockid"]
        t.eq(("%d/%016x" % (p["signo"], p["sigev_value"]),
              "%s/%s" % (kind[p["notify"]], target), str(clock)),
             (fs.get("signal"), fs.get("notify"), fs.get("ClockID")),
             "timer %s: signal, notification and clock as /proc/PID/timers shows them" % name)


def test_signals():
    start = time.monotonic()
    w = Workload("signals", "@DIR@")
    try:
        truth = parse_truth(read(w.path("truth")))
        snap = w.path("snap")
        rc, err = dump(w.pid, snap, "--leave-running", "-v")
        elapsed = time.monotonic() - start
        if not t.eq(rc, 0, "crib-dump --leave-running exits 0"):
            t.diag(err)
            return
        doc = inspect_json(snap)
        t.eq(doc["status"], {"ok": True}, "the snapshot verifies")
        t.check(w.alive() and not_traced(w.pid), "left running, not traced, not stopped")
        t.check("6 signals pending for the process, 5 for single threads" in err,
                "crib-dump -v counts the pending signals", err)
        check_handlers(truth, doc, proc_status(w.pid))
        check_pending(truth, doc, w.pid)
        tm = records(doc, "timers")
        if t.eq(len(tm), 1, "one timers record"):
            check_itimers(truth, doc, w.pid, elapsed)
            check_posix_timers(truth, doc, w.pid, elapsed)

        open(w.path("check"), "w").close()
        deadline = time.time() + 60
        while w.alive() and time.time() < deadline:
            time.sleep(0.1)
        verdict = [f for f in ("check.ok", "check.bad") if os.path.exists(w.path(f))]
        t.check(verdict == ["check.ok"], "after the dump the workload's signals are still "
                "pending with the same siginfo, its timers still armed",
                read(w.path(verdict[0])) if verdict else "no verdict: " +
                read(w.path("output")))
    finally:
        w.stop()


def test_storm(dumps=8):
    """The freeze often finds a thread on its way out of tgkill with the
    signal it sent itself: still queued, or (a signal-delivery-stop) taken
    off the queue already.  Either way the signal is pending in the
    snapshot, and only then: when the thread stopped elsewhere, or in the
    handler, nothing is pending."""
    w = Workload("sigstorm", "@DIR@/ready", "@DIR@/count")
    try:
        handler = int(w.ready, 16)
        uid, bad, at_exit, delivering = os.getuid(), [], 0, 0
        for i in range(dumps):
            rc, err = dump(w.pid, w.path("snap"), "--leave-running", "-v")
            if rc:
                bad.append("dump %d: exit %d: %s" % (i, rc, err))
                continue
            th = [th for th in records(inspect_json(w.path("snap")), "thread")
                  if th["tid"] == w.pid][0]
            regs = th["regs_x86_64"]
            leaving = regs["orig_rax"] == SYS_TGKILL and regs["rip"] != handler
            want = [(SIGUSR1, SIGUSR1, 0, SI_TKILL, w.pid, uid, 0, 128, True)] if leaving else []
            got = [siginfo(e) for e in th["pending"]]
            if got != want:
                bad.append("dump %d: orig_rax %d rip %x: pending %r" %
                           (i, regs["orig_rax"], regs["rip"], got))
            at_exit += leaving
            delivering += "stopped on delivering signal %d" % SIGUSR1 in err
        t.diag("%d of %d dumps found the thread leaving tgkill, %d of them on delivering "
               "the signal" % (at_exit, dumps, delivering))
        t.check(not bad, "%d dumps of a thread signalling itself: its signal pending in the "
                "snapshot exactly when it was stopped between tgkill and the handler" % dumps,
                "\n".join(bad))
        before = int(read(w.path("count")))
        time.sleep(2.5)
        t.check(w.alive() and not os.path.exists(w.path("ready.bad")) and
                int(read(w.path("count"))) > before,
                "after the dumps it runs on, no signal lost")
    finally:
        w.stop()


for test in (test_signals, test_storm):
    try:
        test()
    except Exception as e:  # a broken workload is one failure, not the end of the run
        t.check(False, "%s raised %r" % (test.__name__, e))
sys.exit(t.done())
