#!/bin/bash
# Runs in the guest: every test program of the named groups (directories
# under libexec/crib/tests), each printing TAP.  A program that exits non-zero
# without a failed check, or whose plan does not match its checks, counts
# as one more failure.  Ends with "suite: N passed, N failed".
set -u
testdir=/usr/local/libexec/crib/tests
passed=0
failed=0

run_one() {
	local prog=$1 name=${1#"$testdir"/} out rc ok notok plan
	out=$(mktemp)
	echo "# --- $name"
	"$prog" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	ok=$(grep -c '^ok ' "$out")
	notok=$(grep -c '^not ok ' "$out")
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$out" | tail -n 1)
	passed=$((passed + ok))
	failed=$((failed + notok))
	if [ "$rc" -ne 0 ] && [ "$notok" -eq 0 ]; then
		echo "not ok - $name exited with status $rc"
		failed=$((failed + 1))
	elif [ -z "$plan" ] || [ "$plan" -ne $((ok + notok)) ]; then
		echo "not ok - $name: plan ${plan:-missing}, $((ok + notok)) checks ran"
		failed=$((failed + 1))
	fi
	rm -f "$out"
}

for group in "$@"; do
	[ -d "$testdir/$group" ] || { echo "not ok - no test group '$group'"; failed=$((failed + 1)); continue; }
	for prog in "$testdir/$group"/*; do
		[ -x "$prog" ] && run_one "$prog"
	done
done
echo "suite: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
