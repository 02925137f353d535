#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""An asyncio program as real ones are: an event loop (epoll) with a timer
that ticks every 50 ms and, at each tick, a line sent through a child
process (cat) and read back.  It writes "TICKS ECHOES" to DIR/counts after
each echo, and exits with a message if an echo comes back wrong.

  ticker.py DIR"""
import asyncio
import os
import sys


async def main(workdir):
    loop = asyncio.get_running_loop()
    child = await asyncio.create_subprocess_exec(
        "cat", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
    counts = os.path.join(workdir, "counts")
    ticks = 0
    echoes = 0
    tick = asyncio.Event()

    def on_timer():
        nonlocal ticks
        ticks += 1
        tick.set()
        loop.call_later(0.05, on_timer)

    loop.call_later(0.05, on_timer)
    while True:
        await tick.wait()
        tick.clear()
        line = b"tick %d\n" % ticks
        child.stdin.write(line)
        await child.stdin.drain()
        back = await child.stdout.readline()
        if back != line:
            sys.exit("ticker: sent %r through the child, got %r" % (line, back))
        echoes += 1
        with open(counts + ".new", "w") as f:
            f.write("%d %d\n" % (ticks, echoes))
        os.rename(counts + ".new", counts)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    asyncio.run(main(sys.argv[1]))
