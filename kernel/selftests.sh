#!/usr/bin/env bash
# Build the CRIB kernel selftests of the patched kernel tree into OUTDIR,
# against the vmlinux.h of the release kernel build:
#
#  - tools/testing/selftests/crib, with the system libbpf, bpftool and
#    clang: test_dump_task, test_dump_all_socket, test_restore_udp_socket;
#  - the CRIB tests of tools/testing/selftests/bpf (prog_tests/crib*.c,
#    progs/crib*.c) and the series' verifier tests of upstream iterators
#    (iter_element_life.c) in its test_progs runner, linked as
#    test_bpf_crib with tests/kernel/test_progs_tap.c, which prints their
#    results as TAP.
#    Only what those tests need is built: the runner and its helpers, the
#    tree's libbpf (which knows the CRIB program type), the CRIB programs.
#    All of test_progs, with its hundreds of programs, would take far
#    longer than the rest of the project.
#
# usage: kernel/selftests.sh OUTDIR
# The test_* programs print TAP and must run as root on the CRIB kernel.
set -eu
. "$(dirname "$0")/../dev/lib.sh"

out=${1:?usage: $0 OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
src=$(kernel_src)
vmlinux_h=$(vmlinux_h)
jobs=${CRIB_JOBS:-$(nproc)}

[ -d "$src/tools/testing/selftests/crib" ] ||
	{ echo "$0: no CRIB selftests in $src (run kernel/build.sh)" >&2; exit 1; }
[ -f "$vmlinux_h" ] ||
	{ echo "$0: no $vmlinux_h (run kernel/build.sh)" >&2; exit 1; }

mkdir -p "$out"
out=$(cd "$out" && pwd)
bpftool=$(command -v bpftool || echo /usr/sbin/bpftool)
clang=${CLANG:-clang}
# vmlinux.h changes with the kernel: take the current one when it differs
cmp -s "$vmlinux_h" "$out/vmlinux.h" || rm -f "$out/vmlinux.h"
make -s -C "$src/tools/testing/selftests/crib" OUTPUT="$out" \
	VMLINUX_H="$vmlinux_h" BPFTOOL="$bpftool" CLANG="$clang"

# test_progs with the CRIB tests only.
sel=$src/tools/testing/selftests/bpf
tp=$out/bpf-build
mkdir -p "$tp/libbpf" "$tp/prog_tests"
make -s -C "$src/tools/lib/bpf" OUTPUT="$tp/libbpf/" DESTDIR="$tp/root" prefix= \
	-j"$jobs" "$tp/libbpf/libbpf.a" install_headers
cp "$vmlinux_h" "$tp/vmlinux.h"

# The series' tests: CRIB's and the verifier's rules on upstream iterators.
tests="$sel/prog_tests/crib*.c $sel/prog_tests/iter_element_life.c"
progs="$sel/progs/crib*.c $sel/progs/iter_element_life.c"
# The list of tests the runner knows: those of the series' prog_tests.
# shellcheck disable=SC2086
sed -n 's/^void \(serial_\)\{0,1\}test_\([a-z0-9_]*\)(void)$/DEFINE_TEST(\2)/p' \
	$tests >"$tp/prog_tests/tests.h.new"
cmp -s "$tp/prog_tests/tests.h.new" "$tp/prog_tests/tests.h" 2>/dev/null ||
	mv "$tp/prog_tests/tests.h.new" "$tp/prog_tests/tests.h"
rm -f "$tp/prog_tests/tests.h.new"

# shellcheck disable=SC2086
for prog in $progs; do
	name=$(basename "$prog" .c)
	"$clang" -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_x86 \
		-I"$tp" -I"$tp/root/include" -I"$sel" -I"$src/tools/include/uapi" \
		-c "$prog" -o "$tp/$name.bpf.o"
	"$bpftool" gen skeleton "$tp/$name.bpf.o" name "$name" >"$tp/$name.skel.h"
done

# The runner's own sources, as the selftests Makefile lists them.
cflags="-g -O2 -fno-omit-frame-pointer -I$sel -I$tp/root/include -I$src/tools/lib
	-I$src/tools/include -I$src/tools/arch/x86/include -I$src/tools/include/uapi -I$tp"
objs='' pids=''
for c in test_progs.c cgroup_helpers.c trace_helpers.c network_helpers.c \
	 testing_helpers.c btf_helpers.c cap_helpers.c unpriv_helpers.c \
	 netlink_helpers.c jit_disasm_helpers.c test_loader.c xsk.c disasm.c \
	 disasm_helpers.c json_writer.c $tests; do
	c=${c#"$sel"/}
	o=$tp/$(echo "$c" | tr / _ | sed 's/\.c$/.o/')
	# shellcheck disable=SC2086
	cc $cflags -Dmain=test_progs_main -c "$sel/$c" -o "$o" &
	objs="$objs $o"
	pids="$pids $!"
done
for pid in $pids; do
	wait "$pid"
done
# shellcheck disable=SC2086
cc $cflags -I"$here/../tests/lib" -c "$here/../tests/kernel/test_progs_tap.c" \
	-o "$tp/test_progs_tap.o"
# shellcheck disable=SC2086
cc -rdynamic -o "$out/test_bpf_crib" "$tp/test_progs_tap.o" $objs \
	"$tp/libbpf/libbpf.a" -lelf -lz -lrt -lpthread
