#!/bin/sh
# crib-inspect on crafted snapshots (gen-hostile.c) built to cost a reader:
# each view must finish in bounded time and memory and keep the terminal
# safe.  TAP output.
# With CRIB_RESTORE, the same bombs given to crib-restore, which refuses
# them before it creates anything.
# Usage: test-hostile.sh GEN_HOSTILE CRIB_INSPECT [CRIB_RESTORE]
set -u
gen=$1 inspect=$2 restore=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

ok() {	# ok CONDITION-STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - $2"
		sed 's/^/# /' "$tmp/err" 2>/dev/null | head -5
	fi
}

# run EXPECTED_EXIT SECONDS COMMAND...: the exit status, and not killed by the clock
run() {
	want=$1 secs=$2
	shift 2
	timeout "$secs" "$@" > "$tmp/out" 2> "$tmp/err"
	[ $? -eq "$want" ]
}

has() { grep -q -- "$1" "$tmp/out" "$tmp/err"; }

"$gen" "$tmp" 2> "$tmp/err"
ok $? "the crafted snapshots are written"
ls -l "$tmp" | sed 's/^/# /'

# cpu SECONDS COMMAND...: run with a bound on its processor time, which a
# loaded machine stretches far less than the time on the clock.
cpu() {
	secs=$1
	shift
	(ulimit -t "$secs"; exec "$@") > "$tmp/out" 2> "$tmp/err"
}

# Linear, not quadratic: a summary that scans its tables per record takes
# 15 to 25 s of processor time on these; indexed, under one.
cpu 6 "$inspect" "$tmp/many-vmas.crib"
ok $? "summary of 65,536 vmas and 200,000 page runs finishes"
has "total: 65536 vmas, 1.0G mapped, 0B dumped, 781.2M zero"
ok $? "every page run is counted in its vma"
cpu 6 "$inspect" "$tmp/many-procs.crib"
ok $? "summary of 65,536 processes and 200,000 threads finishes"
has "^    65635 many (3 threads, pgid 65635"
ok $? "the last process is in the tree with its threads"
[ "$(grep -c ' many (' "$tmp/out")" -eq 65536 ]
ok $? "the tree shows every process"

run 0 30 "$inspect" --section=proc "$tmp/tree.crib"
ok $? "summary of a deep tree with a cycle of parents"
has "\[depth 99\] 199 chain (0 threads"
ok $? "the tree goes on past any depth"
[ "$(grep -c ' chain (' "$tmp/out")" -eq 100 ]
ok $? "every process of the chain is shown once"
has "already shown: the parents form a cycle"
ok $? "a cycle of parents is marked"
has "503 loop-kid"
ok $? "a child of the cycle is shown"

run 0 30 "$inspect" "$tmp/escapes.crib"
ok $? "summary of names with terminal escapes"
! grep -q "$(printf '\033')" "$tmp/out"
ok $? "no escape byte reaches the output"
for what in "process 100 \"x\\\\x1b]0;owned\\\\x07" "thread 100 \"t\\\\x1b" \
	    "host h\\\\x1b" "by crib\\\\x1b" "note: n\\\\x1b]0;owned\\\\x07\\\\x1b\[2J = v\\\\x1b" \
	    "/tmp/\\\\x1b"; do
	has "$what"
	ok $? "shown escaped: $what"
done

run 0 30 "$inspect" --json "$tmp/escapes.crib"
! grep -q "$(printf '\033')" "$tmp/out"
ok $? "--json: no escape byte reaches the output"
run 1 30 "$inspect" --diff "$tmp/escapes.crib" "$tmp/precopy.crib"
! grep -q "$(printf '\033')" "$tmp/out"
ok $? "--diff: no escape byte reaches the output"

run 0 30 "$inspect" "$tmp/precopy.crib"
ok $? "summary of pages written after every process"
has "total: 1 vmas, 32.0K mapped, 12.0K dumped, 0B zero"
ok $? "the first process's pages are in its memory map"
has "total: 1 vmas, 32.0K mapped, 8.0K dumped, 16.0K zero"
ok $? "the second process's pages are in its memory map"
! has "outside any vma"
ok $? "no page is left outside its vma"

# The views: as bounded as the summary, as safe for a terminal.
cpu 6 "$inspect" --ps-tree "$tmp/many-procs.crib"
ok $? "--ps-tree of 65,536 processes and 200,000 threads finishes"
[ "$(grep -c ' many$' "$tmp/out")" -eq 65536 ]
ok $? "--ps-tree shows every process"
has "^65635 .* running .*  3    many$"
ok $? "--ps-tree: the last process with its state and threads"
cpu 6 "$inspect" --ps-tree --pid=65635 "$tmp/many-procs.crib"
ok $? "--ps-tree --pid finishes"
[ "$(wc -l < "$tmp/out")" -eq 2 ]
ok $? "--ps-tree --pid shows that process alone (and the heading)"
cpu 6 "$inspect" --memory "$tmp/many-vmas.crib"
ok $? "--memory of 65,536 vmas and 200,000 page runs finishes"
has "^100 .* 65536 .* 1.0G .* 0B .* 781.2M"
ok $? "--memory counts every vma and zero run"
cpu 10 "$inspect" --memory --json "$tmp/many-procs.crib"
ok $? "--memory --json of 65,536 processes finishes"
python3 -m json.tool "$tmp/out" > /dev/null
ok $? "... and is valid JSON"
run 0 30 "$inspect" --ps-tree "$tmp/tree.crib"
ok $? "--ps-tree of parents that form a cycle"
has "already shown: the parents form a cycle"
ok $? "--ps-tree marks the cycle"
for view in --ps-tree --files --memory --stats; do
	run_any=0
	timeout 30 "$inspect" $view "$tmp/escapes.crib" > "$tmp/out" 2> "$tmp/err" || run_any=$?
	! grep -q "$(printf '\033')" "$tmp/out" "$tmp/err"
	ok $? "$view: no escape byte reaches the terminal"
	timeout 30 "$inspect" $view --json "$tmp/escapes.crib" > "$tmp/out" 2> "$tmp/err"
	python3 -m json.tool "$tmp/out" > /dev/null
	ok $? "$view --json of the escapes is valid JSON"
done
run 0 30 "$inspect" --memory "$tmp/precopy.crib"
ok $? "--memory of pages written after every process"
has "^100 .* 32.0K .* 12.0K .* 0B"
ok $? "--memory: the first process's pages counted"
has "^101 .* 32.0K .* 8.0K .* 16.0K"
ok $? "--memory: the second process's pages counted"
run 5 30 "$inspect" --memory --max-size=64M "$tmp/bomb.crib"
ok $? "--memory: a stream inflating past --max-size is refused"
run 5 30 "$inspect" --memory --search=zzz --max-size=64M "$tmp/bomb.crib"
ok $? "--memory --search: likewise"

# --memory --search and --extract on memory.crib: "split-needle" spans two runs.
run 0 30 "$inspect" --memory --search=split-needle "$tmp/memory.crib"
ok $? "--search finds a string across two runs"
has "^pid 100 .* 0x0000000000010ff8$"
ok $? "--search gives the address where it starts"
[ "$(wc -l < "$tmp/out")" -eq 1 ]
ok $? "--search: the child's copy holds only half of it, so no other match"
run 0 30 "$inspect" --memory --search=split-ne "$tmp/memory.crib"
[ "$(wc -l < "$tmp/out")" -eq 2 ]
ok $? "--search finds it in both processes"
run 0 30 "$inspect" --memory --search=split-ne --pid=101 "$tmp/memory.crib"
has "^pid 101 .* 0x0000000000040ff8$" && [ "$(wc -l < "$tmp/out")" -eq 1 ]
ok $? "--search --pid: that process only"
run 0 30 "$inspect" --memory --search=split-needle --json "$tmp/memory.crib"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["matches"]==[{"pid":100,"addr":0x10ff8}], d' "$tmp/out"
ok $? "--search --json lists the match"
run 1 30 "$inspect" --memory --search=absent "$tmp/memory.crib"
ok $? "--search: not found is exit 1"
run 0 30 "$inspect" --memory --extract=0x10ff8:16 --pid=100 -o - "$tmp/memory.crib"
[ "$(cat "$tmp/out")" = "split-needle and" ]
ok $? "--extract -o - writes the bytes across two runs"
run 0 30 "$inspect" --memory --extract=0x12000 --pid=100 -o "$tmp/zero.bin" "$tmp/memory.crib"
[ "$(wc -c < "$tmp/zero.bin")" -eq 4096 ] && ! tr -d '\000' < "$tmp/zero.bin" | grep -q .
ok $? "--extract of a zero run writes a page of zeros to a new file"
run 1 30 "$inspect" --memory --extract=0x12000 --pid=100 -o "$tmp/zero.bin" "$tmp/memory.crib"
ok $? "--extract never replaces a file (exit 1, as crib-dump without --force)"
run 1 30 "$inspect" --memory --extract=0x12ff0:32 --pid=100 -o "$tmp/gap.bin" "$tmp/memory.crib"
has "nothing dumped at 0x13000" && [ ! -e "$tmp/gap.bin" ]
ok $? "--extract past what was dumped says where, and writes nothing"
run 2 10 "$inspect" --memory --extract=0x10000 -o - "$tmp/memory.crib"
ok $? "--extract without --pid is a usage error"
run 2 10 "$inspect" --memory --extract=0x10000 --pid=100 "$tmp/memory.crib"
ok $? "--extract without -o is a usage error"
run 2 10 "$inspect" --search=x "$tmp/memory.crib"
ok $? "--search without --memory is a usage error"

# --diff orders records by their numbers, and totals them.
run 1 30 "$inspect" --diff "$tmp/order-a.crib" "$tmp/order-b.crib"
ok $? "--diff of three processes against none"
[ "$(grep '^only in A: process' "$tmp/out" | tr -d '\n')" = "only in A: process pid=9only in A: process pid=10only in A: process pid=100" ]
ok $? "--diff lists pid 9, 10, 100 in that order"
tail -n 1 "$tmp/out" | grep -q "^total: 0 records changed (0 differences), 3 only in A, 0 only in B$"
ok $? "--diff ends with the totals"

run 5 30 "$inspect" --max-size=64M "$tmp/bomb.crib"
ok $? "a stream inflating past --max-size is refused"
has "inflates past 67108864 bytes"
ok $? "the refusal says which limit"
run 0 60 "$inspect" --verify "$tmp/bomb.crib"
ok $? "the default limit takes the same stream"
run 2 10 "$inspect" --max-size=lots "$tmp/bomb.crib"
ok $? "a size that is not one is a usage error"

# Each side of the diff-bomb inflates to 240 MiB of ghost contents; kept
# whole, both take 480 MiB.  (Peak resident memory, measured rather than
# bounded with ulimit -v, which sanitizers cannot run under.)
python3 -c '
import resource, subprocess, sys
rc = subprocess.run(sys.argv[1:]).returncode
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print("peak resident memory: %d KiB" % peak, file=sys.stderr)
sys.exit(rc if rc else 0 if peak < 200 * 1024 else 100)
' timeout 120 "$inspect" --diff "$tmp/diff-bomb.crib" "$tmp/diff-bomb.crib" \
	> "$tmp/out" 2> "$tmp/err"
ok $? "--diff of two bombs holds digests, not contents (under 200 MiB)"
sed -n 's/^peak/# peak/p' "$tmp/err"
has "no differences"
ok $? "--diff of two bombs compares them"

if [ -n "$restore" ]; then
	# The header says another kernel: refused before a record is inflated,
	# so the tiny bound set here is never reached.
	run 1 30 "$restore" --max-size=1K -i "$tmp/bomb.crib"
	ok $? "crib-restore refuses a snapshot of another kernel"
	has "taken on kernel 6.8.0-crib"
	ok $? "crib-restore checks the header before the records"
	run 5 30 "$restore" --max-size=64M -i "$tmp/bomb-here.crib"
	ok $? "crib-restore refuses a stream inflating past --max-size (exit 5, as crib-inspect)"
	has "bomb-here.crib: the snapshot is damaged: .*(file offset [0-9]*)"
	ok $? "crib-restore names the snapshot and the offset"
	has "inflates past 67108864 bytes"
	ok $? "crib-restore says which limit"
	# The exit statuses crib-inspect gives the same snapshots (README.md).
	run 3 10 "$restore" -i "$tmp/does-not-exist.crib"
	ok $? "crib-restore: a snapshot that cannot be opened is exit 3"
	python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[8:10] = (2).to_bytes(2, "little"); open(sys.argv[2], "wb").write(b)' \
		"$tmp/bomb-here.crib" "$tmp/major-2.crib"
	run 4 10 "$restore" -i "$tmp/major-2.crib"
	ok $? "crib-restore: a newer major version is exit 4"
	run 4 10 "$inspect" --verify "$tmp/major-2.crib"
	ok $? "... as crib-inspect says"
	head -c 2000 "$tmp/bomb-here.crib" > "$tmp/short-here.crib"
	run 5 30 "$restore" -i "$tmp/short-here.crib"
	ok $? "crib-restore: a truncated snapshot is exit 5"
	run 5 30 "$inspect" --verify "$tmp/short-here.crib"
	ok $? "... as crib-inspect says"
	run 2 10 "$restore" --max-size=0 -i "$tmp/bomb-here.crib"
	ok $? "crib-restore: a size of 0 is a usage error"
	run 1 30 "$restore" -i "$tmp/no-cwd-here.crib"
	ok $? "crib-restore refuses a living process without a working directory"
	has "process record of 100 has no cwd key"
	ok $? "crib-restore names the missing key"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
