#!/usr/bin/env bash
# Build the CRIB kernel selftests (tools/testing/selftests/crib of the
# patched kernel tree) into OUTDIR, against the vmlinux.h of the release
# kernel build, with the system libbpf, bpftool and clang.
#
# usage: kernel/selftests.sh OUTDIR
# The binaries (test_dump_task, test_dump_all_socket,
# test_restore_udp_socket) print TAP (kselftest harness) and must run as
# root on the CRIB kernel.
set -eu
. "$(dirname "$0")/../dev/lib.sh"

out=${1:?usage: $0 OUTDIR}
src=$(kernel_src)
vmlinux_h=$(vmlinux_h)

[ -d "$src/tools/testing/selftests/crib" ] ||
	{ echo "$0: no CRIB selftests in $src (run kernel/build.sh)" >&2; exit 1; }
[ -f "$vmlinux_h" ] ||
	{ echo "$0: no $vmlinux_h (run kernel/build.sh)" >&2; exit 1; }

mkdir -p "$out"
out=$(cd "$out" && pwd)
bpftool=$(command -v bpftool || echo /usr/sbin/bpftool)
# vmlinux.h changes with the kernel: take the current one when it differs
cmp -s "$vmlinux_h" "$out/vmlinux.h" || rm -f "$out/vmlinux.h"
make -s -C "$src/tools/testing/selftests/crib" OUTPUT="$out" \
	VMLINUX_H="$vmlinux_h" BPFTOOL="$bpftool" CLANG="${CLANG:-clang}"
