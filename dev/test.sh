#!/usr/bin/env bash
# Run test groups and add up their results:
#   host    meson's host tests (format library, crib-inspect), also under
#           ASan/UBSan, the -Dinspect-only=true build installed and used,
#           and the fuzz targets for a bounded time
#   vm      the runner itself, a migration (every restore workload and
#           process tree dumped in one boot, restored in the next), then the
#           tool and dump tests in the guest, the restore tests, the dump
#           and restore tests again with pages stored (--fast), the
#           process-tree tests and the real servers (Redis, nginx, Python,
#           Node.js, tmux; PostgreSQL refused),
#           each group in a boot of its own
#   kernel  the CRIB program type and kfuncs in the guest, on the release
#           kernel and the debug one (unless CRIB_DEBUG_KERNEL=0, which
#           also runs the event-file dump and restore tests), and on the
#           release kernel booted locked down, once per lockdown mode
# Prints "N passed, N failed" last; exits non-zero when anything failed.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

passed=0
failed=0
logdir=$CRIB_BUILD/test-logs
mkdir -p "$logdir"
rm -f "$logdir/.counted"

count() { # count PASSED FAILED WHAT
	passed=$((passed + $1))
	failed=$((failed + $2))
	echo "== $3: $1 passed, $2 failed"
}

# One check of the runner (a host-side command), as a test of its own.
runner_check() { # runner_check DESCRIPTION COMMAND...
	local desc=$1
	shift
	if "$@"; then
		count 1 0 "runner: $desc"
	else
		count 0 1 "runner: $desc"
	fi
}

# meson test in one build directory, counted.  meson_tests NAME DIR [ARGS...]
meson_tests() {
	local name=$1 dir=$2 p f
	shift 2
	meson test -C "$dir" --no-rebuild --print-errorlogs "$@" >"$logdir/$name.log" 2>&1
	cat "$logdir/$name.log"
	read -r p f < <(python3 "$CRIB_ROOT/dev/count-meson-tests.py" \
		"$dir/meson-logs/testlog.json")
	count "${p:-0}" "${f:-1}" "$name"
}

# A host-only build (no BPF) with extra options, set up once.
host_build() { # host_build DIR [MESON OPTIONS...]
	local dir=$1
	shift
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" "$CRIB_ROOT" "$@" >"$logdir/setup-${dir##*/}.log" 2>&1 ||
			{ cat "$logdir/setup-${dir##*/}.log"; return 1; }
	fi
	ninja -C "$dir" >"$logdir/ninja-${dir##*/}.log" 2>&1 ||
		{ grep -v '^\[' "$logdir/ninja-${dir##*/}.log" | tail -n 40; return 1; }
}

test_host() {
	meson_tests host "$CRIB_BUILD"
	# The same suite under AddressSanitizer and UBSan.
	if host_build "$CRIB_BUILD/host-asan" -Db_sanitize=address,undefined -Db_lundef=false; then
		meson_tests host-asan "$CRIB_BUILD/host-asan"
	else
		count 0 1 "host-asan (build failed)"
	fi
	# The inspect-only build, installed as one who only reads snapshots
	# would, then used from where it was installed.
	if host_build "$CRIB_BUILD/inspect-only" -Dinspect-only=true \
			--prefix="$CRIB_BUILD/inspect-only/prefix" &&
	   meson install -C "$CRIB_BUILD/inspect-only" >"$logdir/inspect-only.log" 2>&1 &&
	   "$CRIB_ROOT/tests/host/check-installed.sh" "$CRIB_BUILD/inspect-only/prefix" \
			"$CRIB_ROOT/tests/host/golden/sample.crib" >>"$logdir/inspect-only.log" 2>&1
	then
		count 1 0 "inspect-only (installed, reads a snapshot)"
	else
		tail -n 20 "$logdir/inspect-only.log"
		count 0 1 "inspect-only (build, install or use failed)"
	fi
	# libFuzzer on the reader, for a bounded time.
	if CC=clang host_build "$CRIB_BUILD/host-fuzz" -Dfuzz=true; then
		meson_tests host-fuzz "$CRIB_BUILD/host-fuzz" --suite fuzz
	else
		count 0 1 "host-fuzz (build failed)"
	fi
}

# Boot the guest once for a test suite; its last line carries the counts.
guest_suite() { # guest_suite NAME [--debug] GROUP...
	local name=$1 line p f rc
	shift
	local vmargs=()
	[ "${1:-}" = --debug ] && { vmargs+=(--debug); shift; }
	CRIB_VM_CONSOLE=$logdir/$name-console.log \
		"$CRIB_ROOT/dev/vm.sh" "${vmargs[@]}" -- \
		/usr/local/libexec/crib/tests/run-suite.sh "$@" | tee "$logdir/$name.log"
	rc=${PIPESTATUS[0]}
	line=$(grep -a '^suite: ' "$logdir/$name.log" | tail -n 1)
	if [ -z "$line" ]; then
		count 0 1 "$name (the guest run ended with status $rc before reporting)"
		return
	fi
	read -r p f < <(sed -E 's/^suite: ([0-9]+) passed, ([0-9]+) failed$/\1 \2/' <<<"$line")
	# A splat or timeout fails the run even when every check passed.
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "not ok - $name: the guest run failed (status $rc): see $logdir/$name-console.log"
	fi
	count "$p" "$f" "$name"
}

runner_prints_release() {
	local out
	out=$("$CRIB_ROOT/dev/vm.sh" -- uname -r) || return 1
	echo "guest kernel: $out"
	[[ "$out" == 6.12.118* ]]
}

runner_passes_status() {
	"$CRIB_ROOT/dev/vm.sh" -- sh -c 'exit 3'
	[ $? -eq 3 ]
}

runner_shares_checkout() {
	local f=$CRIB_BUILD/guest-wrote-this.$$ token=$RANDOM$RANDOM
	rm -f "$f"
	"$CRIB_ROOT/dev/vm.sh" -- sh -c "echo $token >'$f'" || return 1
	[ "$(cat "$f" 2>/dev/null)" = "$token" ] && rm -f "$f"
}

# Dump in one boot, restore in a fresh one: the demo's counter and every
# restore workload, in one pair of boots (tests/vm/migrate.sh), each check
# counted.
migrate_suite() {
	local dir=$CRIB_BUILD/test-migrate migrate=/usr/local/libexec/crib/tests/migrate.sh
	local log phase rc p=0 f=0 n
	rm -rf "$dir"
	mkdir -p "$dir"
	for phase in dump restore; do
		log=$logdir/migrate-$phase.log
		CRIB_VM_CONSOLE=$logdir/migrate-$phase-console.log \
			"$CRIB_ROOT/dev/vm.sh" -- "$migrate" "$phase" "$dir" | tee "$log"
		rc=${PIPESTATUS[0]}
		p=$((p + $(grep -ac '^ok ' "$log")))
		n=$(grep -ac '^not ok ' "$log")
		f=$((f + n))
		# A splat, a timeout or a crash fails the boot even when no check failed.
		if [ "$rc" -ne 0 ] && [ "$n" -eq 0 ]; then
			f=$((f + 1))
			echo "not ok - migration: the $phase boot ended with status $rc"
		fi
	done
	count "$p" "$f" "migration (dumped in one boot, restored in a fresh one)"
}

test_vm() {
	runner_check "guest runs the 6.12.118 CRIB kernel" runner_prints_release
	runner_check "guest command's exit status comes back" runner_passes_status
	runner_check "a file written in the guest appears on the host" runner_shares_checkout
	migrate_suite
	# One boot per group or two: a boot that runs past CRIB_VM_TIMEOUT
	# under TCG fails every check it did not reach.
	guest_suite vm vm dump
	guest_suite vm-restore restore
	# The dump and restore groups again, every dump storing its pages
	# (--fast) where the default compresses them.
	CRIB_TEST_DUMP_MODE=--fast guest_suite vm-fast dump restore
	guest_suite vm-tree tree
	guest_suite vm-apps apps
}

test_kernel() {
	local mode
	guest_suite kernel kernel
	if [ "${CRIB_DEBUG_KERNEL:-1}" != 0 ]; then
		guest_suite kernel-debug --debug kernel
		guest_suite vm-debug --debug debug
	fi
	# Lockdown cannot be lifted once set: a boot of its own for each mode.
	for mode in integrity confidentiality; do
		CRIB_VM_APPEND="lockdown=$mode" guest_suite "kernel-lockdown-$mode" lockdown
	done
}

for group in "$@"; do
	case "$group" in
	host | vm | kernel) "test_$group" ;;
	*) die "unknown test group '$group' (host, vm, kernel)" ;;
	esac
done
echo "$passed passed, $failed failed"
touch "$logdir/.counted"
[ "$failed" -eq 0 ]
