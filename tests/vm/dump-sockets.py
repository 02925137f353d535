#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""crib-dump of the sockets workload, with --leave-running.  Every dumped
socket fact is checked against the workload's ground truth (getsockname,
getpeername, getsockopt, TCP_INFO, the queue ioctls and TCP_REPAIR's
sequence numbers and window, the data it queued) and against procfs and
ss; then the workload reads every queue back and checks that its sockets
still work.  TAP."""
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, "/usr/local/libexec/crib/tests/dump-lib")
from dumptest import (Workload, dump, extract, inspect_json, not_traced, read,  # noqa: E402
                      records, self_check)
from tap import Tap  # noqa: E402

t = Tap()
AF_UNIX, AF_INET, AF_INET6 = 1, 2, 10
TCPI_OPT_TIMESTAMPS, TCPI_OPT_SACK, TCPI_OPT_WSCALE = 1, 2, 4
TCP_LISTEN, TCP_CLOSE_WAIT = 10, 8


def pattern(seed, start, n):
    return bytes((seed * 31 + i * 7 + (i >> 8)) & 0xff for i in range(start, start + n))


def addr_of(a):
    """A dumped or truth address as (family, addr hex, port, scope_id), None when absent."""
    if not a or not a["family"]:
        return None
    return (a["family"], a["addr"], a.get("port", 0), a.get("scope_id", 0))


def socket_inodes(pid):
    out = {}
    for fd in os.listdir("/proc/%d/fd" % pid):
        link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        m = re.match(r"socket:\[(\d+)\]", link)
        if m:
            out[int(fd)] = int(m.group(1))
    return out


def proc_net_inet(name):
    """/proc/net/tcp, udp and their v6 twins by inode."""
    rows = {}
    for line in read("/proc/net/" + name).splitlines()[1:]:
        f = line.split()
        tx, rx = (int(x, 16) for x in f[4].split(":"))
        rows[int(f[9])] = {"local": f[1], "rem": f[2], "st": int(f[3], 16), "tx": tx, "rx": rx}
    return rows


def proc_row_addr(text):
    """A procfs address, None when it is all zeros (unbound, not connected)."""
    return None if not text.replace("0", "").replace(":", "") else text


def proc_addr(a):
    """A dumped address as procfs prints it: hex words in host (little-endian) order."""
    if a is None:
        return None
    raw = bytes.fromhex(a[1])
    words = "".join("%08X" % int.from_bytes(raw[i:i + 4], "little") for i in range(0, len(raw), 4))
    return "%s:%04X" % (words, a[2])


def proc_net_unix():
    rows = {}
    for line in read("/proc/net/unix").splitlines()[1:]:
        f = line.split()
        rows[int(f[6])] = {"flags": int(f[3], 16), "type": int(f[4], 16), "st": int(f[5], 16),
                           "path": f[7] if len(f) > 7 else None}
    return rows


def ss_tcp():
    """ss -tinme: wscale, options and send window of each TCP socket by inode."""
    out = subprocess.run(["ss", "-tinmeaH"], stdout=subprocess.PIPE, check=True).stdout.decode()
    rows, ino = {}, None
    for line in out.splitlines():
        m = re.search(r"\bino:(\d+)", line)
        if m and not line.startswith(("\t", " ")):
            ino = int(m.group(1))
            continue
        if ino is None:
            continue
        words = line.split()
        ws = re.search(r"\bwscale:(\d+),(\d+)", line)
        wnd = re.search(r"\bsnd_wnd:(\d+)", line)
        rows[ino] = {"wscale": (int(ws.group(1)), int(ws.group(2))) if ws else None,
                     "ts": "ts" in words, "sack": "sack" in words,
                     "snd_wnd": int(wnd.group(1)) if wnd else 0}
        ino = None
    return rows


def socket_queues(snap):
    """{(sock_id, queue): [(data, src), ...]} in order, from snapshot-extract."""
    queues, seqs = {}, {}
    for line in extract("socket-queues", snap).decode().splitlines():
        sock_id, queue, seq, data, fam, addr, port, scope = line.split()
        key = (int(sock_id), int(queue))
        if seqs.get(key, 0) not in (int(seq), int(seq) + 1):
            raise RuntimeError("socket_queue records of %r out of order" % (key,))
        seqs[key] = int(seq) + 1
        src = None if fam == "0" else (int(fam), "" if addr == "-" else addr, int(port), int(scope))
        queues.setdefault(key, []).append((b"" if data == "-" else bytes.fromhex(data), src))
    return queues


class Dump:
    def __init__(self, w):
        self.w = w
        self.truth = json.loads(read(w.path("truth.json")))
        self.truth_time = os.stat(w.path("truth.json")).st_mtime
        self.inodes = socket_inodes(w.pid)
        self.tcp = {**proc_net_inet("tcp"), **proc_net_inet("tcp6")}
        self.udp = {**proc_net_inet("udp"), **proc_net_inet("udp6")}
        self.unix = proc_net_unix()
        self.ss = ss_tcp()

    def run(self):
        rc, err = dump(self.w.pid, self.w.path("snap"), "--leave-running")
        self.dumped_at = time.time()
        if not t.eq(rc, 0, "crib-dump --leave-running exits 0"):
            t.diag(err)
            return False
        doc = inspect_json(self.w.path("snap"))
        t.eq(doc["status"], {"ok": True}, "the snapshot verifies")
        t.check(self.w.alive() and not_traced(self.w.pid), "left running, not traced, not stopped")
        self.sockets = {s["fd"]: s for s in records(doc, "socket")}
        self.files = {f["fd"]: f for f in records(doc, "file")}
        self.queues = socket_queues(self.w.path("snap"))
        return True

    def sock(self, name):
        return self.sockets.get(self.truth["sockets"][name]["fd"])

    def queue(self, name, q):
        return self.queues.get((self.inodes[self.truth["sockets"][name]["fd"]], q), [])

    def stream(self, name, q):
        return b"".join(d for d, _ in self.queue(name, q))


def check_records(d):
    t.eq(sorted(d.sockets), sorted(d.inodes), "one socket record per socket descriptor")
    bad = [fd for fd, s in d.sockets.items() if s["sock_id"] != d.inodes.get(fd) or
           d.files.get(fd, {}).get("type") != 6 or d.files[fd]["inode"] != s["sock_id"]]
    t.check(not bad, "every socket: sock_id is its inode, its file record a socket", bad)


def check_identity(d):
    """Family, type, protocol, state, addresses, backlog, shutdown, UNIX peers."""
    bad = []
    shutdown = {"fin-sender": 2, "fin-receiver": 1, "unix-orphan": 3}
    for name, tr in d.truth["sockets"].items():
        s = d.sock(name)
        state = tr["tcp"]["state"] if "tcp" in tr else tr["state"]
        want = (tr["family"], tr["type"], tr["protocol"], state, addr_of(tr["local"]),
                addr_of(tr["peer"]), tr["backlog"], shutdown.get(name, 0))
        got = (s["family"], s["type"], s["protocol"], s["state"], addr_of(s["local"]),
               addr_of(s["peer"]), s["backlog"], s["shutdown"])
        if got != want:
            bad.append("%s: %r != %r" % (name, got, want))
        peer = tr["peer_name"]
        want_peer = d.inodes[d.truth["sockets"][peer]["fd"]] if peer else 0
        if s["peer_id"] != want_peer:
            bad.append("%s: peer_id %d, want %d" % (name, s["peer_id"], want_peer))
    t.check(not bad, "every socket: family, type, protocol, state, addresses, backlog, "
            "shutdown, UNIX peer", "\n".join(bad))


def check_options(d):
    bad, n = [], 0
    for name, tr in d.truth["sockets"].items():
        got = {"%d/%d" % (o["level"], o["name"]): o["value"] for o in d.sock(name)["options"]}
        n += len(got)
        if got != tr["options"]:
            diff = sorted(k for k in set(got) | set(tr["options"]) if got.get(k) != tr["options"].get(k))
            bad.append("%s: %s" % (name, ", ".join("%s dumped %s, getsockopt %s" %
                                                   (k, got.get(k), tr["options"].get(k)) for k in diff)))
    t.check(not bad, "every socket option (%d) as getsockopt() returns it" % n, "\n".join(bad))
    s = d.sock("tcp-client")
    t.check(s["tcp"]["nodelay"] and not s["tcp"]["cork"] and d.sock("tcp-server")["tcp"]["cork"],
            "TCP_NODELAY and TCP_CORK in the tcp map too")


def check_tcp(d):
    bad, n = [], 0
    for name, tr in d.truth["sockets"].items():
        if "tcp" not in tr or tr["tcp"]["state"] == TCP_LISTEN:
            continue
        n += 1
        s, rt = d.sock(name), tr["tcp"]
        tcp = s["tcp"]
        fin = 1 if rt["state"] == TCP_CLOSE_WAIT else 0
        want = {"rcv_nxt": rt["rcv_nxt"], "write_seq": rt["write_seq"],
                "copied_seq": (rt["rcv_nxt"] - rt["inq"] - fin) % 2**32,
                "snd_una": (rt["write_seq"] - rt["outq"]) % 2**32,
                "snd_nxt": (rt["write_seq"] - rt["outq_nsd"]) % 2**32,
                "unsent": rt["outq_nsd"], "snd_wl1": rt["snd_wl1"], "snd_wnd": rt["snd_wnd"],
                "max_window": rt["max_window"], "rcv_wnd": rt["rcv_wnd"], "rcv_wup": rt["rcv_wup"],
                "snd_wscale": rt["snd_wscale"], "rcv_wscale": rt["rcv_wscale"],
                "wscale_ok": bool(rt["options"] & TCPI_OPT_WSCALE),
                "sack": bool(rt["options"] & TCPI_OPT_SACK),
                "timestamps": bool(rt["options"] & TCPI_OPT_TIMESTAMPS)}
        got = {k: tcp[k] for k in want}
        if got != want:
            bad.append("%s: %s" % (name, ", ".join("%s %r, want %r" % (k, got[k], want[k])
                                                    for k in want if got[k] != want[k])))
        if (s["recv_queued"], s["send_queued"]) != (rt["inq"], rt["outq"]):
            bad.append("%s: queued %d/%d, SIOCINQ/SIOCOUTQ %d/%d" %
                       (name, s["recv_queued"], s["send_queued"], rt["inq"], rt["outq"]))
        elapsed = (d.dumped_at - d.truth_time) * 1000 + 1000
        if not 0 <= (tcp["ts_val"] - rt["ts"]) % 2**32 <= elapsed:
            bad.append("%s: ts_val %d, TCP_TIMESTAMP %d %d ms earlier" %
                       (name, tcp["ts_val"], rt["ts"], elapsed))
    t.check(n >= 9 and not bad, "%d TCP connections: sequence numbers, window and options as "
            "TCP_REPAIR, TCP_INFO and the queue ioctls report them" % n, "\n".join(bad))
    s = d.sock("full-sender")
    t.check(s["tcp"]["unsent"] > 0 and s["tcp"]["snd_una"] == s["tcp"]["snd_nxt"],
            "the sender to a full receiver holds unsent data (%d bytes), none in flight" %
            s["tcp"]["unsent"])
    t.eq((d.sock("fin-sender")["state"], d.sock("fin-receiver")["state"]), (5, 8),
         "the connection shut down for writing: FIN_WAIT2 and CLOSE_WAIT")


def check_procfs(d):
    bad = []
    for name, tr in d.truth["sockets"].items():
        s = d.sock(name)
        ino = s["sock_id"]
        if tr["family"] == AF_UNIX:
            row = d.unix.get(ino)
            path = None
            if s["local"]["family"]:
                raw = bytes.fromhex(s["local"]["addr"])
                path = "@" + raw[1:].decode() if raw[:1] == b"\0" else raw.decode()
            want = {"type": s["type"], "path": path, "listening": s["state"] == TCP_LISTEN}
            got = row and {"type": row["type"], "path": row["path"],
                           "listening": bool(row["flags"] & 0x10000)}
        else:
            row = (d.tcp if s["protocol"] == 6 else d.udp).get(ino)
            tcp = s["tcp"]
            want = {"st": s["state"], "local": proc_addr(addr_of(s["local"])),
                    "rem": proc_addr(addr_of(s["peer"]))}
            got = row and {"st": row["st"], "local": proc_row_addr(row["local"]),
                           "rem": proc_row_addr(row["rem"])}
            if s["protocol"] == 6 and s["state"] != TCP_LISTEN:
                want["queues"] = ((tcp["write_seq"] - tcp["snd_una"]) % 2**32,
                                  (tcp["rcv_nxt"] - tcp["copied_seq"]) % 2**32)
                got = got and dict(got, queues=(row["tx"], row["rx"]))
        if got != want:
            bad.append("%s: procfs %r, dumped %r" % (name, got, want))
    t.check(not bad, "every socket as /proc/net/{tcp,tcp6,udp,udp6,unix} shows it "
            "(state, addresses, TCP queues, UNIX type, name, listening)", "\n".join(bad))
    bad = []
    for name, tr in d.truth["sockets"].items():
        s = d.sock(name)
        if s["protocol"] != 6 or s["state"] == TCP_LISTEN:
            continue
        row, tcp = d.ss.get(s["sock_id"]), s["tcp"]
        want = {"wscale": (tcp["snd_wscale"], tcp["rcv_wscale"]) if tcp["wscale_ok"] else None,
                "ts": tcp["timestamps"], "sack": tcp["sack"], "snd_wnd": tcp["snd_wnd"]}
        if row != want:
            bad.append("%s: ss %r, dumped %r" % (name, row, want))
    t.check(not bad, "every TCP connection as ss -tin shows it (window scales, options, "
            "send window)", "\n".join(bad))


def check_streams(d):
    bad = []
    flows_to = {f["to"] for f in d.truth["flows"]}
    for f in d.truth["flows"]:
        got = d.stream(f["to"], 0) + (d.stream(f["from"], 1) if f["from"] else b"")
        want = pattern(f["seed"], f["start"], f["len"])
        if got != want:
            bad.append("%s -> %s: %d bytes dumped, %d expected%s" %
                       (f["from"], f["to"], len(got), len(want),
                        ", contents differ" if len(got) == len(want) else ""))
        if d.sock(f["to"])["recv_queued"] != len(d.stream(f["to"], 0)):
            bad.append("%s: recv_queued %d" % (f["to"], d.sock(f["to"])["recv_queued"]))
    t.check(not bad, "every stream's unread and unsent bytes, exactly, across %d flows" %
            len(d.truth["flows"]), "\n".join(bad))
    full = len(d.stream("full-receiver", 0))
    t.check(full > 1 << 20, "a receive queue larger than the ring buffer (%d bytes)" % full)
    msgs_to = {m["to"] for m in d.truth["messages"]}
    quiet = [n for n in d.truth["sockets"] if n not in flows_to | msgs_to and
             (d.sock(n)["recv_queued"] or d.queue(n, 0))]
    quiet += [n for n in d.truth["sockets"] if d.queue(n, 1) and
              n not in {f["from"] for f in d.truth["flows"]} | msgs_to]
    t.check(not quiet, "no data dumped for sockets that hold none", quiet)


def check_messages(d):
    bad = []
    want = {}
    for m in d.truth["messages"]:
        want.setdefault((m["to"], 1 if m["pending"] else 0), []).append(
            (bytes.fromhex(m["data"]), addr_of(m["addr"])))
    for (name, q), msgs in sorted(want.items()):
        got = d.queue(name, q)
        if got != msgs:
            bad.append("%s %s queue: %r, want %r" % (name, "send" if q else "receive", got, msgs))
        total = sum(len(m) for m, _ in msgs)
        key = "send_queued" if q else "recv_queued"
        if d.sock(name)[key] != total:
            bad.append("%s: %s %d, want %d" % (name, key, d.sock(name)[key], total))
    if not (want.get(("udp-corked", 1)) and want.get(("udp6-more", 1))):
        bad.append("the truth lacks the corked and MSG_MORE datagrams")
    t.check(not bad, "every queued datagram and seqpacket record, in order, with its source "
            "(UDP reader and receive queues, IPv4 on a dual-stack socket, UNIX names), and "
            "the corked and MSG_MORE datagrams with their destinations", "\n".join(bad))


def check_itself(w):
    result = self_check(w.pid, w.path("check"), 60)
    t.check(result == "ok\n", "after the dump the workload reads every queue back intact, its "
            "pending datagrams go out whole, and every connection works both ways", result)


def main():
    w = Workload("sockets", "@DIR@")
    try:
        d = Dump(w)
        if not d.run():
            return
        check_records(d)
        check_identity(d)
        check_options(d)
        check_tcp(d)
        check_procfs(d)
        check_streams(d)
        check_messages(d)
        check_itself(w)
    finally:
        w.stop()


try:
    main()
except Exception as e:
    t.check(False, "raised %r" % (e,))
sys.exit(t.done())
