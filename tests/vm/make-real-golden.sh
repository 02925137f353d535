#!/bin/bash
# Run in the guest (./crib-dev vm -- tests/vm/make-real-golden.sh): dump
# the idle workload with crib-dump into tests/host/golden/real-idle.crib,
# the real snapshot the host tests read back offline.  Regenerate it when
# crib-dump's output changes on purpose.
set -eu
golden=$(cd "$(dirname "$0")/../host/golden" && pwd)
work=$(mktemp -d)
/usr/local/libexec/crib/workloads/idle "$work/ready" "$work/file" &
pid=$!
for _ in $(seq 100); do [ -e "$work/ready" ] && break; sleep 0.05; done
[ -e "$work/ready" ] || { echo "the idle workload did not start" >&2; exit 1; }
crib-dump -p "$pid" --force -o "$golden/real-idle.crib"
wait "$pid" 2>/dev/null || true
crib-inspect --verify "$golden/real-idle.crib"
echo "wrote $golden/real-idle.crib ($(stat -c %s "$golden/real-idle.crib") bytes)"
