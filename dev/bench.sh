#!/usr/bin/env bash
# Benchmarks: each boots the guest once, runs there, and writes its results
# into the checkout (the guest sees it at the same path).
#
#   dev/bench.sh dump [--quick]
#       the CRIB programs against procfs, crib-dump against criu dump
#       (bench/README.md); results in bench/results/dump.md, or with
#       --quick (tiny cases, once: a functional check) in the build
#       directory
#
# Timings are never asserted: the guest is emulated and the host shared.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# What the results file says about where it was measured.
host_context() {
	local cpu
	cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
	printf '%s, %s CPUs, %s' "${cpu:-unknown CPU}" "$(nproc)" "$(qemu-system-x86_64 --version | head -n 1)"
}

load_average() { cut -d' ' -f1-3 /proc/loadavg; }

bench_dump() {
	local out=$CRIB_ROOT/bench/results/dump.md args=()
	case "${1:-}" in
	"") ;;
	--quick) args+=(--quick); out=$CRIB_BUILD/bench-dump-quick.md ;;
	*) die "bench dump: unknown argument '$1'" ;;
	esac
	mkdir -p "$(dirname "$out")"
	# 512 MiB of memory, CRIU's images of it and crib-dump's snapshot all
	# live in the guest's RAM (tmpfs), so that no disk or 9p share times them.
	export CRIB_VM_MEM=${CRIB_VM_MEM:-3G} CRIB_VM_CPUS=${CRIB_VM_CPUS:-2}
	export CRIB_VM_TIMEOUT=${CRIB_VM_TIMEOUT:-1800}
	CRIB_BENCH_WHEN=$(date -u '+%Y-%m-%d %H:%M UTC')
	CRIB_BENCH_COMMIT=$(git -C "$CRIB_ROOT" describe --always --dirty 2>/dev/null || echo unknown)
	CRIB_BENCH_HOST="$(host_context); host load average $(load_average) at the start"
	export CRIB_BENCH_WHEN CRIB_BENCH_COMMIT CRIB_BENCH_HOST
	log "dump benchmark: one guest boot, about 10 minutes (results: $out)"
	"$CRIB_ROOT/dev/vm.sh" -- /usr/local/libexec/crib/bench/dump.py "${args[@]}" --output "$out"
	printf '\nHost load average at the end: %s.\n' "$(load_average)" >>"$out"
	log "results written to $out"
}

[ $# -gt 0 ] || die "usage: dev/bench.sh dump [--quick]"
what=$1
shift
case "$what" in
dump) "bench_$what" "$@" ;;
*) die "unknown benchmark '$what' (dump)" ;;
esac
