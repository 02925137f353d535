#!/usr/bin/env bash
# Benchmarks: each boots the guest once, runs there, and writes its results
# into the checkout (the guest sees it at the same path).
#
#   dev/bench.sh dump [--quick | --large]
#       the CRIB programs against procfs, crib-dump against criu dump
#       (bench/README.md); results in bench/results/dump.md, or with
#       --quick (tiny cases, once: a functional check) in the build
#       directory; --large: the dumps of 4 GiB alone, in a guest with the
#       RAM for them, results in bench/results/dump-4g.md
#   dev/bench.sh restore [--quick]
#       crib-restore against criu restore (bench/README.md); results in
#       bench/results/restore.md, or with --quick in the build directory
#   dev/bench.sh sockets [--quick]
#       the dump_sockets CRIB program against procfs, sock_diag and
#       getsockopt() (bench/README.md); results in bench/results/sockets.md,
#       or with --quick in the build directory
#   dev/bench.sh tcp [--quick]
#       crib-dump and crib-restore against criu dump and restore with
#       --tcp-established, on established connections to a running peer
#       (bench/README.md); results in bench/results/tcp.md, or with --quick
#       in the build directory
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

# run_bench NAME MINUTES [--quick | --large]: boot the guest once and run
# bench/NAME.py there; results in bench/results/NAME.md, or with --quick in
# the build directory, or with --large in bench/results/NAME-4g.md.
run_bench() {
	local name=$1 minutes=$2 out args=()
	shift 2
	out=$CRIB_ROOT/bench/results/$name.md
	case "${1:-}" in
	"") ;;
	--quick) args+=(--quick); out=$CRIB_BUILD/bench-$name-quick.md ;;
	--large)
		[ "$name" = dump ] || die "bench $name: --large is for the dump benchmark"
		# 4 GiB of memory, crib-dump's copy of it (--pre-copy), the
		# snapshot or CRIU's images, all in RAM at once.
		args+=(--large); out=$CRIB_ROOT/bench/results/$name-4g.md
		export CRIB_VM_MEM=${CRIB_VM_MEM:-15G} ;;
	*) die "bench $name: unknown argument '$1'" ;;
	esac
	mkdir -p "$(dirname "$out")"
	# 512 MiB of memory, CRIU's images of it and crib-dump's snapshot all
	# live in the guest's RAM (tmpfs), so that no disk or 9p share times them.
	export CRIB_VM_MEM=${CRIB_VM_MEM:-4G} CRIB_VM_CPUS=${CRIB_VM_CPUS:-2}
	export CRIB_VM_TIMEOUT=${CRIB_VM_TIMEOUT:-1800}
	CRIB_BENCH_WHEN=$(date -u '+%Y-%m-%d %H:%M UTC')
	CRIB_BENCH_COMMIT=$(git -C "$CRIB_ROOT" describe --always --dirty 2>/dev/null || echo unknown)
	CRIB_BENCH_HOST="$(host_context); host load average $(load_average) at the start"
	export CRIB_BENCH_WHEN CRIB_BENCH_COMMIT CRIB_BENCH_HOST
	log "$name benchmark: one guest boot, about $minutes minutes (results: $out)"
	"$CRIB_ROOT/dev/vm.sh" -- "/usr/local/libexec/crib/bench/$name.py" "${args[@]}" --output "$out"
	printf '\nHost load average at the end: %s.\n' "$(load_average)" >>"$out"
	log "results written to $out"
}

bench_dump() { run_bench dump 10 "$@"; }
bench_restore() { run_bench restore 6 "$@"; }
bench_sockets() { run_bench sockets 4 "$@"; }
bench_tcp() { run_bench tcp 8 "$@"; }

[ $# -gt 0 ] || die "usage: dev/bench.sh dump|restore|sockets|tcp [--quick] | dump --large"
what=$1
shift
case "$what" in
dump | restore | sockets | tcp) "bench_$what" "$@" ;;
*) die "unknown benchmark '$what' (dump, restore, sockets, tcp)" ;;
esac
