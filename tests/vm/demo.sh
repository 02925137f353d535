#!/bin/bash
# The demo, in the guest, in two boots:
#   demo.sh dump DIR      start a counter, checkpoint it into DIR/counter.crib
#   demo.sh restore DIR   (a fresh boot) bring it back; it counts on
# DIR is on the host (the shared checkout), so the snapshot outlives the
# first guest; so does the counter's output file.  The restore phase fails
# unless the counter carried on from its value at the dump.
set -eu
phase=$1 dir=$2
counter=/usr/local/libexec/crib/workloads/counter
snap=$dir/counter.crib

count() { cat "$dir/count"; }

dump_phase() {
	rm -f "$snap" "$dir/count"
	# A PID well above what a fresh boot uses, so it is free there.
	echo 29999 >/proc/sys/kernel/ns_last_pid
	setsid "$counter" "$dir/count" </dev/null >/dev/null 2>&1 &
	pid=$!
	while [ ! -s "$dir/count" ]; do sleep 0.1; done
	for _ in 1 2 3; do
		sleep 1
		echo "== counter (pid $pid) is at $(count)"
	done
	echo "== crib-dump -p $pid -o counter.crib"
	crib-dump -p "$pid" -o "$snap"
	wait "$pid" 2>/dev/null || true
	echo "== the counter is gone (killed once dumped), its file says $(count)"
	echo "== snapshot: $(stat -c %s "$snap") bytes"
}

restore_phase() {
	local at_dump pid
	at_dump=$(count)
	pid=$(crib-inspect --json "$snap" | sed -n 's/.*"type":"process".*"pid":\([0-9]*\).*/\1/p' | head -n 1)
	echo "== a fresh boot: $(uname -r), uptime $(cut -d' ' -f1 /proc/uptime) s; pid $pid is free: $(
		kill -0 "$pid" 2>/dev/null && echo no || echo yes)"
	echo "== crib-restore -i counter.crib"
	crib-restore -i "$snap"
	echo "== process $pid is back as '$(cat /proc/"$pid"/comm)', counter was $at_dump at the dump"
	for _ in 1 2 3; do
		sleep 1
		echo "== counter (pid $pid) is at $(count)"
	done
	now=$(count)
	kill "$pid"
	# It went on from where it was: not from zero, and not from further on.
	if [ "$now" -le "$at_dump" ] || [ "$now" -gt $((at_dump + 80)) ]; then
		echo "== FAILED: the counter went from $at_dump to $now" >&2
		exit 1
	fi
}

case "$phase" in
dump) dump_phase ;;
restore) restore_phase ;;
*) echo "usage: demo.sh dump|restore DIR" >&2; exit 2 ;;
esac
