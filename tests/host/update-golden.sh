#!/bin/sh
# Regenerate tests/host/golden/ (snapshots and the expected --json output).
# Usage: update-golden.sh GEN_GOLDEN CRIB_INSPECT GOLDEN_DIR
set -eu
gen=$1 inspect=$2 dir=$3
mkdir -p "$dir"
"$gen" "$dir"
"$inspect" --json "$dir/sample.crib" > "$dir/sample.json"
echo "golden files written to $dir"
