#!/usr/bin/env bash
# Boot the CRIB kernel with the guest image under QEMU (TCG) and run one
# command in it, or an interactive shell.
#
#   dev/vm.sh [--debug] [--timeout SECONDS] [-- CMD [ARGS...]]
#
# The checkout is visible in the guest at the same absolute path and is the
# starting directory (the current one, when that lies inside the checkout).
# The command's output is streamed; its exit status is ours.  A boot that
# never reaches our /init is retried; a guest that outlives the timeout is
# killed; a kernel splat in the guest log fails the run and is printed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavour=${CRIB_KERNEL:-release}
timeout=${CRIB_VM_TIMEOUT:-900}
boot_timeout=${CRIB_VM_BOOT_TIMEOUT:-120}
boot_tries=3
mem=${CRIB_VM_MEM:-1G}
cpus=${CRIB_VM_CPUS:-2}

while [ $# -gt 0 ]; do
	case "$1" in
	--debug) flavour=debug; shift ;;
	--timeout) timeout=${2:?}; shift 2 ;;
	--) shift; break ;;
	*) break ;;
	esac
done
[ "$flavour" = debug ] && { mem=${CRIB_VM_MEM:-2G}; boot_timeout=${CRIB_VM_BOOT_TIMEOUT:-300}; }

# What a kernel splat looks like in the guest log.
splat_re='BUG:|WARNING:|KASAN:|UBSAN:|Oops|Kernel panic|general protection fault|'
splat_re+='possible (recursive|circular) locking|inconsistent lock state|'
splat_re+='suspicious RCU usage|sleeping function called from invalid context|'
splat_re+='INFO: task .* blocked|rcu_.*detected stall|Call Trace:'

bzimage=$(kernel_image "$flavour")
initrd=$(guest_initrd)
[ -f "$bzimage" ] || die "no $flavour kernel at $bzimage: run ./crib-dev kernel"
[ -f "$initrd" ] || die "no guest image at $initrd: run ./crib-dev image"

run=$(mktemp -d /tmp/crib-vm.XXXXXX)
qemu_pid=
cleanup() {
	[ -n "$qemu_pid" ] && kill "$qemu_pid" 2>/dev/null
	rm -rf "$run"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

interactive=0
if [ $# -eq 0 ]; then
	interactive=1
	[ -t 0 ] || die "an interactive shell needs a terminal; give a command after --"
else
	printf '%s\0' "$@" >"$run/cmd"
fi
echo "$CRIB_ROOT" >"$run/repo"
# The guest reports its tasks a minute before the timeout kills it.
[ "$timeout" -gt 120 ] && echo $((timeout - 60)) >"$run/stuck"
case "$PWD/" in
"$CRIB_ROOT"/*) echo "$PWD" >"$run/cwd" ;;
*) echo "$CRIB_ROOT" >"$run/cwd" ;;
esac
: >"$run/env"
while IFS= read -r -d '' kv; do
	case "$kv" in CRIB_*=* | TERM=* | V=*) printf '%s\0' "$kv" >>"$run/env" ;; esac
done < <(env -0)

# The host's TSC frequency in kHz, as its kernel measured it, if it says.
host_tsc_khz() {
	dmesg 2>/dev/null | sed -nE \
		's/.*tsc: (Refined TSC clocksource calibration:|Detected) ([0-9]+)\.([0-9]{3}) MHz.*/\2\3/p' |
		tail -n 1
}

# TCG's TSC is the host's.  Without tsc=reliable the clocksource watchdog
# drops it; and the guest, which has neither HPET nor PM timer (no ACPI),
# calibrates it against the PIT, which fails when the host is busy.
# Either way the guest falls back to jiffies: timings lose their
# resolution and the clock loses time whenever a tick comes late.  Telling
# the guest the host's TSC frequency spares the calibration.
cmdline="console=ttyS0 rdinit=/init panic=-1 printk.devkmsg=on tsc=reliable"
tsc_khz=$(host_tsc_khz)
[ -n "$tsc_khz" ] && cmdline+=" tsc_early_khz=$tsc_khz"
# More kernel arguments, for a boot that needs them (lockdown=integrity).
[ -n "${CRIB_VM_APPEND:-}" ] && cmdline+=" $CRIB_VM_APPEND"

# TCG runs "rep movsb" and "rep stosb" a byte per step.  With ERMS or
# FSRM the guest kernel copies (read(), process_vm_readv(), splice(),
# UFFDIO_COPY) and clears pages with them, which made every copy in the
# kernel four to five times slower than a memcpy() in user space (2.5
# against 0.5 ms per MiB); without, it copies eight bytes per step, as
# the hardware's relative costs would have it (bench/README.md has the
# measurements).
cpu_model=max,erms=off,fsrm=off

qemu_args=(
	-accel tcg -cpu "$cpu_model" -smp "$cpus" -m "$mem"
	-nodefaults -no-reboot -display none -monitor none
	-kernel "$bzimage" -initrd "$initrd"
	-append "$cmdline"
	-serial "file:$run/console.log"
	-virtfs "local,path=$CRIB_ROOT,mount_tag=repo,security_model=none"
	-virtfs "local,path=$run,mount_tag=run,security_model=none"
)

# The size of the guest's kernel log, 0 before it has one.
console_size() { stat -c %s "$run/console.log" 2>/dev/null || echo 0; }

# One boot; sets $boot_result: ok, noboot (never reached /init), timeout.
# A boot that has not reached /init is given up once its kernel log has
# been silent for $boot_timeout seconds (a boot that died early, under
# TCG), or after five times that: a loaded host slows a boot down, and a
# boot that still makes progress is not dead.
boot_once() {
	rm -f "$run/started" "$run/status" "$run/console.log" "$run/output"
	local tail_pid= start=$SECONDS progress=$SECONDS size=0 now_size
	if [ "$interactive" = 1 ]; then
		qemu-system-x86_64 "${qemu_args[@]}" \
			-chardev stdio,id=out,signal=off -serial chardev:out &
	else
		: >"$run/output"
		qemu-system-x86_64 "${qemu_args[@]}" \
			-chardev "file,id=out,path=$run/output" -serial chardev:out </dev/null &
	fi
	qemu_pid=$!
	[ "$interactive" = 1 ] || { tail -c +1 -F --pid="$qemu_pid" "$run/output" 2>/dev/null & tail_pid=$!; }
	boot_result=ok
	while kill -0 "$qemu_pid" 2>/dev/null; do
		if [ ! -e "$run/started" ]; then
			now_size=$(console_size)
			[ "$now_size" -gt "$size" ] && { size=$now_size; progress=$SECONDS; }
			if [ $((SECONDS - progress)) -ge "$boot_timeout" ] ||
			   [ $((SECONDS - start)) -ge $((boot_timeout * 5)) ]; then
				boot_result=noboot
				break
			fi
		fi
		if [ "$interactive" = 0 ] && [ $((SECONDS - start)) -ge "$timeout" ]; then
			boot_result=timeout
			break
		fi
		sleep 0.2
	done
	if [ "$boot_result" != ok ]; then
		kill "$qemu_pid" 2>/dev/null || true
	fi
	wait "$qemu_pid" 2>/dev/null || true
	qemu_pid=
	[ -n "$tail_pid" ] && wait "$tail_pid" 2>/dev/null || true
	[ "$boot_result" = ok ] && [ ! -e "$run/started" ] && boot_result=noboot
	return 0
}

for ((try = 1; try <= boot_tries; try++)); do
	boot_once
	[ "$boot_result" = noboot ] || break
	log "guest did not reach /init (boot $try of $boot_tries); console tail:"
	tail -n 15 "$run/console.log" >&2 2>/dev/null || true
done

status=125
case "$boot_result" in
noboot) die "guest never reached /init after $boot_tries boots" ;;
timeout) log "guest still running after ${timeout}s: killed"; status=124 ;;
ok)
	if [ -s "$run/status" ]; then
		status=$(cat "$run/status")
	else
		log "guest ended without an exit status (kernel panic or crash?)"
	fi
	;;
esac

if grep -qE "$splat_re" "$run/console.log"; then
	log "kernel splat in the guest log:"
	grep -E -B5 -A30 "$splat_re" "$run/console.log" | head -n 120 >&2
	status=125
fi
# Keep the guest's kernel log where asked (tests archive it).
if [ -n "${CRIB_VM_CONSOLE:-}" ]; then
	cp "$run/console.log" "$CRIB_VM_CONSOLE"
fi
exit "$status"
