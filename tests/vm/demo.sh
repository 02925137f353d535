#!/bin/bash
# The demo, in the guest: start a program, read it through CRIB, and show
# that it carried on.
set -eu
workdir=$(mktemp -d)
counter=/usr/local/libexec/crib/workloads/counter

"$counter" "$workdir/count" &
pid=$!
sleep 1
echo "== a counter program is running as pid $pid: $(cat "$workdir/count")"
echo "== what CRIB reads of it (crib-probe -p $pid):"
crib-probe -p "$pid"
sleep 1
echo "== the counter carried on: $(cat "$workdir/count")"
kill "$pid"
wait "$pid" 2>/dev/null || true
