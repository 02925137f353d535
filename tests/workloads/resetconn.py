#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A TCP server between a client's reset and its own close(), where a
server spends a moment after each client that went away: it holds its
listener (IPv6, all addresses, as Node.js and others listen) and the
connection it accepted, which the reset closed and which gave its port
back, though getsockname() still names it.  Once DIR/check appears it
checks that the listener takes a new client and the reset connection
reads as ended (reset or at its end, or, restored, not connected: its
pending error and end of stream are not carried), writes DIR/check.ok or
DIR/check.bad, and exits.

  resetconn.py DIR PORT"""
import errno
import os
import socket
import struct
import sys
import time


def main(workdir, port):
    listener = socket.socket(socket.AF_INET6)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("::", port))
    listener.listen(8)
    client = socket.create_connection(("127.0.0.1", port))
    conn, _ = listener.accept()
    client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    client.close()
    time.sleep(0.2)
    with open(os.path.join(workdir, "ready"), "w") as f:
        f.write("ready\n")
    while not os.path.exists(os.path.join(workdir, "check")):
        time.sleep(0.05)
    bad = []
    try:
        got = conn.recv(1)
        if got:
            bad.append("the reset connection reads %r" % got)
    except OSError as e:
        if e.errno not in (errno.ECONNRESET, errno.ENOTCONN):
            bad.append("the reset connection: %r" % e)
    try:
        client = socket.create_connection(("127.0.0.1", port), timeout=10)
        listener.settimeout(10)
        fresh, _ = listener.accept()
        client.sendall(b"x")
        if fresh.recv(1) != b"x":
            bad.append("a new client's byte did not come")
    except OSError as e:
        bad.append("a new client: %r" % e)
    verdict = "bad" if bad else "ok"
    with open(os.path.join(workdir, "check." + verdict), "w") as f:
        f.write("\n".join(bad) + "\n" if bad else "ok\n")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
