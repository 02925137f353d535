#!/bin/sh
# Run a libFuzzer target for a bounded time on a copy of its seed corpus.
# Usage: run-fuzz.sh FUZZER CORPUS_DIR SECONDS
# A crash leaves its input in the current directory (crash-*, leak-*, oom-*).
set -eu
fuzzer=$1 corpus=$2 seconds=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$corpus"/. "$work"/
# -malloc_limit_mb turns any single large allocation into a failure: the
# reader must never size an allocation from an unchecked length.
exec "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=512 \
	-malloc_limit_mb=64 -print_final_stats=1 "$work"
