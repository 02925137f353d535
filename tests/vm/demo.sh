#!/bin/bash
# The demo, in the guest, in two boots:
#   demo.sh dump DIR      start a counter and a Redis server holding keys,
#                         checkpoint them into DIR/counter.crib, DIR/redis.crib
#   demo.sh restore DIR   (a fresh boot) bring them back; the counter counts
#                         on, Redis answers with its keys
# DIR is on the host (the shared checkout), so the snapshot outlives the
# first guest; so does the counter's output file.  The restore phase fails
# unless the counter carried on from its value at the dump.
set -eu
phase=$1 dir=$2
counter=/usr/local/libexec/crib/workloads/counter
snap=$dir/counter.crib
redis_snap=$dir/redis.crib
redis_port=6379
redis_keys=1000

count() { cat "$dir/count"; }
rcli() { redis-cli -p "$redis_port" "$@"; }

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
	redis_dump
}

# A real server: Redis, with keys written by redis-cli, its data only in
# memory (no persistence), so only the checkpoint can bring them back.
redis_dump() {
	local pid i
	rm -f "$redis_snap"
	echo 28999 >/proc/sys/kernel/ns_last_pid
	setsid redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no \
		--logfile "$dir/redis.log" </dev/null >/dev/null 2>&1 &
	pid=$!
	# crib-dump kills it: no job-control notice of that, please.
	disown "$pid"
	until rcli ping >/dev/null 2>&1; do sleep 0.2; done
	for i in $(seq 1 "$redis_keys"); do echo "SET key:$i value-$i"; done | rcli --pipe | tail -n 1
	rcli set greeting "hello from before the checkpoint" >/dev/null
	echo "== redis-server (pid $pid) holds $(rcli dbsize) keys; greeting: $(rcli get greeting)"
	echo "== crib-dump -p $pid -o redis.crib"
	crib-dump -p "$pid" -o "$redis_snap"
	while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
	echo "== redis-server is gone; snapshot: $(stat -c %s "$redis_snap") bytes"
}

redis_restore() {
	local pid keys
	pid=$(crib-inspect --json "$redis_snap" | sed -n 's/.*"type":"process".*"pid":\([0-9]*\).*/\1/p' | head -n 1)
	echo "== crib-restore -i redis.crib"
	crib-restore -i "$redis_snap"
	keys=$(rcli dbsize)
	echo "== redis-server (pid $pid, $(cat /proc/"$pid"/comm)) is back: $keys keys; greeting: $(rcli get greeting)"
	rcli set after "written after the restore" >/dev/null
	echo "== a new key: $(rcli get after)"
	rcli shutdown nosave >/dev/null 2>&1 || true
	if [ "$keys" != $((redis_keys + 1)) ]; then
		echo "== FAILED: redis came back with $keys keys, not $((redis_keys + 1))" >&2
		exit 1
	fi
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
	redis_restore
}

case "$phase" in
dump) dump_phase ;;
restore) restore_phase ;;
*) echo "usage: demo.sh dump|restore DIR" >&2; exit 2 ;;
esac
