#!/bin/bash
# A migration, in the guest, in two boots (dev/test.sh runs it):
#   migrate.sh dump DIR     the demo's counter, every restore workload and
#                           every process tree and every real server
#                           (restore-apps.py) started and dumped into DIR
#   migrate.sh restore DIR  (a fresh boot) each restored and checked as the
#                           same-boot tests check it
# DIR is in the checkout, so it outlives the first boot (the guest's /tmp
# does not).  TAP lines; exits non-zero when a check failed.
set -u
phase=$1 dir=$2
tests=/usr/local/libexec/crib/tests
status=0

mkdir -p "$dir/demo" "$dir/workloads" "$dir/trees" "$dir/apps"
if "$tests/demo.sh" "$phase" "$dir/demo" >"$dir/demo-$phase.log" 2>&1; then
	echo "ok - demo: the counter's $phase phase"
else
	echo "not ok - demo: the counter's $phase phase"
	status=1
fi
sed 's/^/# /' "$dir/demo-$phase.log"
"$tests/restore/restore-workloads.py" --migrate "$phase" "$dir/workloads" || status=1
"$tests/tree/restore-tree.py" --migrate "$phase" "$dir/trees" || status=1
"$tests/apps/restore-apps.py" --migrate "$phase" "$dir/apps" || status=1
exit $status
