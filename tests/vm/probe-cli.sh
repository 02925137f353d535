#!/bin/bash
# crib-probe from the command line against a live workload: what it prints
# must match procfs, and bad input must fail cleanly.  TAP.
set -u
n=0
fail=0
check() { # check DESCRIPTION COMMAND...
	local desc=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $desc"; else echo "not ok $n - $desc"; fail=1; fi
}

workdir=$(mktemp -d)
/usr/local/libexec/crib/workloads/counter "$workdir/count" &
pid=$!
sleep 0.5
out=$(crib-probe -p "$pid")
rc=$?
check "crib-probe -p $pid exits 0" test "$rc" -eq 0
check "reports the pid and parent" grep -qx "pid $pid tgid $pid ppid $$ pgid $(ps -o pgid= "$pid" | tr -d ' ') sid $(ps -o sid= "$pid" | tr -d ' ')" <<<"$out"
check "reports comm as procfs does" grep -qx "comm $(cat /proc/$pid/comm)" <<<"$out"
check "reports one thread" grep -qx "threads 1" <<<"$out"
check "reports the VMA count of procfs" grep -qx "vmas $(grep -vc vsyscall /proc/$pid/maps) .*" <<<"$out"
kill "$pid"
wait "$pid" 2>/dev/null

crib-probe -p "$pid" >/dev/null 2>"$workdir/err"
rc=$?
check "a pid that is gone: exit 1" test "$rc" -eq 1
check "... saying so" grep -q "no process with pid $pid" "$workdir/err"
crib-probe -p nonsense >/dev/null 2>&1
check "a malformed pid: exit 2" test $? -eq 2
echo "1..$n"
exit $fail
