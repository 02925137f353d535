"""What the guest tests of TCP connections share: the network lock's sets as
nft lists them, and the kernel's TCP counters."""

import json
import subprocess

from dumptest import read

def locked_tuples():
    """Every element of the lock's sets, as (local, lport, peer, pport)."""
    out = set()
    for name in ("conn4", "conn6"):
        r = subprocess.run(["nft", "-j", "list", "set", "inet", "crib", name],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode:
            if "No such file or directory" in r.stderr:
                continue
            raise RuntimeError("nft list set %s: %s" % (name, r.stderr))
        for obj in json.loads(r.stdout)["nftables"]:
            for e in obj.get("set", {}).get("elem", []):
                if "elem" in e:
                    e = e["elem"]["val"]
                out.add(tuple(e["concat"]))
    return out


def counters(path, prefix):
    lines = [line.split() for line in read(path).splitlines() if line.startswith(prefix)]
    return dict(zip(lines[0][1:], (int(v) for v in lines[1][1:])))


def tcp_counters():
    """Tcp (/proc/net/snmp) and TcpExt (/proc/net/netstat) counters."""
    c = counters("/proc/net/snmp", "Tcp:")
    c.update(counters("/proc/net/netstat", "TcpExt:"))
    return c
