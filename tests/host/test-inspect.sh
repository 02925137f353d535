#!/bin/sh
# crib-inspect against the golden snapshots; TAP output.
# Usage: test-inspect.sh CRIB_INSPECT GOLDEN_DIR
set -u
inspect=$1 golden=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

check() {	# check DESCRIPTION EXPECTED_EXIT COMMAND...
	desc=$1 want=$2
	shift 2
	"$@" > "$tmp/out" 2> "$tmp/err"
	got=$?
	n=$((n + 1))
	if [ "$got" -eq "$want" ]; then
		echo "ok $n - $desc"
	else
		failed=$((failed + 1))
		echo "not ok $n - $desc (exit $got, expected $want)"
		sed 's/^/# /' "$tmp/err" | head -5
	fi
}

grep_check() {	# grep_check DESCRIPTION PATTERN: last stdout or stderr contains PATTERN
	n=$((n + 1))
	if cat "$tmp/out" "$tmp/err" | grep -q -- "$2"; then
		echo "ok $n - $1"
	else
		failed=$((failed + 1))
		echo "not ok $n - $1 (no '$2' in output)"
	fi
}

nogrep_check() {
	n=$((n + 1))
	if grep -q -- "$2" "$tmp/out"; then
		failed=$((failed + 1))
		echo "not ok $n - $1 ('$2' in output)"
	else
		echo "ok $n - $1"
	fi
}

s=$golden/sample.crib
check "--help exits 0" 0 "$inspect" --help
grep_check "--help documents exit codes" "Exit status"
check "no arguments is a usage error" 2 "$inspect"
check "unknown option is a usage error" 2 "$inspect" --frobnicate "$s"
check "no arguments says what is missing" 2 "$inspect"
grep_check "the missing snapshot is named before the usage" "^crib-inspect: no snapshot given"
check "two modes are a usage error" 2 "$inspect" --files --verify "$s"
grep_check "two modes: said in one line" "^crib-inspect: --verify, --hexdump, --diff, --ps-tree, --files, --sockets, --memory and --stats exclude each other"
check "--json with --verify is a usage error" 2 "$inspect" --json --verify "$s"
grep_check "--json: said where it applies" "^crib-inspect: --json applies to the records and the views"
check "--pid with --verify is a usage error" 2 "$inspect" --pid=100 --verify "$s"
grep_check "--pid: said where it does not apply" "^crib-inspect: --pid does not apply to --verify, --diff or --stats"
check "--pid with --stats is a usage error" 2 "$inspect" --pid=100 --stats "$s"
check "--pid that is not a number is a usage error" 2 "$inspect" --pid=init --files "$s"
check "-o without --extract is a usage error" 2 "$inspect" -o "$tmp/x" --memory "$s"
check "--ignore-volatile outside --diff is a usage error" 2 "$inspect" --ignore-volatile "$s"
check "--section with --verify is a usage error" 2 "$inspect" --section=mm --verify "$s"
check "--diff with one snapshot is a usage error" 2 "$inspect" --diff "$s"
grep_check "--diff: asks for both" "^crib-inspect: --diff compares two snapshots"
check "--version exits 0" 0 "$inspect" --version
grep_check "--version names the format" "snapshot format [0-9]*\.[0-9]*"
check "--json of a missing file is an I/O error" 3 "$inspect" --json "$tmp/does-not-exist"
cp "$tmp/out" "$tmp/missing.json"
check "--json of a missing file still gives its status as JSON" 0 python3 -c '
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["records"] == [] and doc["status"]["ok"] is False, doc
assert doc["status"]["error"] == "i/o error", doc' "$tmp/missing.json"
if command -v script >/dev/null; then
	check "- on a terminal is refused" 2 script -qec "$inspect -" /dev/null
	grep_check "- on a terminal: says so" "standard input is a terminal"
fi
check "missing file is an I/O error" 3 "$inspect" "$tmp/does-not-exist"

check "summary of the sample" 0 "$inspect" "$s"
grep_check "summary shows the header" "format 1.10"
grep_check "summary shows affinity, timer slack and oom_score_adj" "cpus 0x5  timer slack 50000 ns  oom_score_adj -500"
grep_check "summary shows SCHED_RESET_ON_FORK and membarrier registrations" "SCHED_RESET_ON_FORK  membarrier registrations 0x10"
grep_check "summary shows a thread's securebits, I/O priority and speculation controls" "securebits 0x30  ioprio 0x4007  speculation controls: store bypass 16, indirect branch 8"
grep_check "summary shows the time namespace offsets" "time namespace offsets: monotonic -3600.000 s, boottime +7200.000 s"
grep_check "summary shows the process tree" "process tree"
grep_check "summary shows the child under its parent" "    101 child (1 thread, pgid 101, sid 100, stopped (signal 19))"
grep_check "summary shows a zombie under its parent" "      103 zombie (0 threads, pgid 101, sid 100, zombie (exit status 3))"
grep_check "summary shows a zombie's wait status" "zombie: wait status 0x300"
grep_check "summary shows a child subreaper" "child subreaper"
grep_check "summary shows a thread's own credentials" "own credentials: uid 2000/2000/2000/2000"
grep_check "summary shows the parent-death signal" "parent-death signal 15"
grep_check "summary shows a description shared after dup()" "fd 8   regular   flags 0100002  pos 4096     desc 2 "
grep_check "summary shows a FIFO opened for reading and writing" "pipe fd 9: pipe 2, read and write"
grep_check "summary shows the other end of a pipe in the child" "pipe fd 4: pipe 1, write end, 20 bytes queued"
grep_check "summary shows the shared memory object" "shmem: shmem_id=1 size=8192"
grep_check "summary shows which mappings map it" "shared-anon shmem 1"
grep_check "summary shows a memfd carried in the snapshot" "ghost 1: memfd sample, 8192 bytes, mode 100777, owner 1000:1000, seals shrink,grow"
grep_check "summary shows an unlinked file carried in the snapshot" "ghost 2: unlinked /tmp/scratch.log, 11 bytes"
grep_check "summary shows how much of a ghost is carried" "contents: 11B in 1 chunk"
grep_check "summary shows which descriptor opens a ghost" "/memfd:sample (deleted)  ghost 1"
grep_check "summary shows which mapping maps a ghost" "file        ghost 2 /tmp/scratch.log (deleted)"
grep_check "summary shows a removed working directory" "cwd /tmp/gone (removed)"
grep_check "summary shows the memory map" "memory map of 100"
grep_check "summary shows dumped sizes" "12.0K"
grep_check "summary shows an eventfd's count" "count 3 (semaphore)"
grep_check "summary shows a signalfd's mask" "mask 0x4002"
grep_check "summary shows a timerfd's timer" "timerfd fd 10: monotonic, next in 250000000 ns, every 1000000000 ns, 2 expirations unread"
grep_check "summary shows what an epoll watches" "epoll fd 12: watches fd 4 (pid 100 fd 4), events 0x80000001, data 0x1234"
grep_check "summary shows an epoll item under a closed descriptor" "epoll fd 12: watches fd 7 (pid 100 fd 6)"
grep_check "summary shows a flock()" "lock fd 3: FLOCK WRITE"
grep_check "summary shows a POSIX lock's range" "lock fd 3: POSIX READ, bytes 0-99"
grep_check "summary shows a lock to the end of the file" "lock fd 3: POSIX WRITE, bytes 4096-EOF"
grep_check "summary shows an OFD lock" "lock fd 13: OFD WRITE, bytes 10-29"
grep_check "summary shows a netlink socket" "socket fd 18: netlink raw proto 0 connected portid:4242 -> portid:0,group:1"
grep_check "summary names the netlink groups joined and flags" "NETLINK_LIST_MEMBERSHIPS=1 NETLINK_EXT_ACK=1"
grep_check "summary shows a pidfd of a process" "pidfd fd 15: process 101"
grep_check "summary shows a pidfd of a reaped process" "pidfd fd 16: a process that had exited and was reaped"
grep_check "summary shows a pseudo-terminal master" "pty fd 17: master of pair 1 (pts 3), 40x132, lflag 0, packet mode, controls session 100, foreground group 101"
grep_check "summary shows its slave" "pty fd 6: slave of pair 1 (pts 3)"
grep_check "summary shows an inotify instance" "fd 14  inotify   flags 04000 "
grep_check "summary shows an inotify watch" "inotify fd 14: watch 3 on /etc/sample.conf, mask 0x80000002 (MODIFY,ONESHOT)"
grep_check "summary names a watch's flags" "inotify fd 14: watch 1 on /home/user/drop, mask 0x4000388 (CLOSE_WRITE,MOVED_TO,CREATE,DELETE,EXCL_UNLINK)"
grep_check "summary shows the events left behind" "note: crib-dump.inotify = process 100, fd 14: 2 queued events not carried"
grep_check "summary shows sockets" "127.0.0.1:40000 -> 127.0.0.1:8080"
grep_check "summary shows the TCP state" "tcp snd_una 1000 snd_nxt 1010"
grep_check "summary shows socket options by name" "TCP_NODELAY=1"
grep_check "summary shows queue sizes" "receive queue of 5151, record 0: 1 chunk, 5 bytes"
grep_check "summary shows a datagram's source" "2 chunks, 9 bytes, first from @sample"
grep_check "summary shows unknown records as opaque" "unknown ancillary record 0x8123"
grep_check "summary shows signal handlers" "signal handlers"
grep_check "summary shows a handler's flags by name" "flags 0x14000000 (RESTORER,RESTART)"
grep_check "summary shows an ignored signal" "PIPE    ignore"
grep_check "summary shows the process's pending signals" "pending for the process: 1 signal"
grep_check "summary decodes a pending signal" "CHLD  SI_USER from pid 0 uid 0"
grep_check "summary shows the interval timers" "ITIMER_REAL: 2.000000000 s left"
grep_check "summary shows a POSIX timer" "POSIX timer 0: CLOCK_MONOTONIC, signal ALRM to the process, value 0xdead"

check "summary of a 1.1 snapshot" 0 "$inspect" "$golden/sample-1.1.crib"
grep_check "a 1.1 snapshot is read" "format 1.1"
check "summary of a 1.2 snapshot" 0 "$inspect" "$golden/sample-1.2.crib"
grep_check "a 1.2 snapshot is read" "format 1.2"
check "--verify of a 1.2 snapshot" 0 "$inspect" --verify "$golden/sample-1.2.crib"
check "summary of a 1.3 snapshot" 0 "$inspect" "$golden/sample-1.3.crib"
grep_check "a 1.3 snapshot is read" "format 1.3"
check "--verify of a snapshot with stored pages" 0 "$inspect" --verify "$golden/sample-stored.crib"
check "--json of a snapshot with stored pages" 0 "$inspect" --json "$golden/sample-stored.crib"
grep_check "stored pages read as a pages record" '"type":"pages"'
nogrep_check "no stored_pages record is handed out" 'stored_pages'

check "--section=mm" 0 "$inspect" --section=mm "$s"
grep_check "--section=mm shows the memory map" "memory map"
nogrep_check "--section=mm hides files" "/dev/pts/0"
check "--section=files,net" 0 "$inspect" --section=files,net "$s"
grep_check "--section=files,net shows files" "/dev/pts/0"
nogrep_check "--section=files,net hides the memory map" "memory map"
grep_check "--section=files,net: a file's line carries its pid" "^pid 100 fd 0   chardev"
grep_check "--section=files,net: a socket's line carries its pid" "^pid 10[01] socket fd"
grep_check "--section=files,net: an epoll's line carries its pid" "^pid 100 epoll fd 12"

check "--json" 0 "$inspect" --json "$s"
if cmp -s "$tmp/out" "$golden/sample.json"; then
	n=$((n + 1)); echo "ok $n - --json output matches golden/sample.json"
else
	n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - --json output differs from golden/sample.json"
	diff "$golden/sample.json" "$tmp/out" | head -10 | sed 's/^/# /'
fi
if command -v python3 > /dev/null; then
	cp "$tmp/out" "$tmp/json"
	check "--json is valid JSON" 0 python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/json"
fi
check "--json --section=net" 0 "$inspect" --json --section=net "$s"
nogrep_check "--json --section=net has no vma" '"type":"vma"'
grep_check "--json --section=net has sockets" '"type":"socket"'

check "--verify sample" 0 "$inspect" --verify "$s"
check "--verify from stdin" 0 sh -c '"$1" --verify - < "$2"' sh "$inspect" "$s"
check "--verify truncated" 5 "$inspect" --verify "$golden/truncated.crib"
grep_check "truncation error names offsets" "file offset"
check "--verify corrupt" 5 "$inspect" --verify "$golden/corrupt.crib"
check "--verify newer major" 4 "$inspect" --verify "$golden/newer-major.crib"
check "--verify unknown critical" 4 "$inspect" --verify "$golden/unknown-critical.crib"
check "--verify newer minor" 0 "$inspect" --verify "$golden/newer-minor.crib"
check "--verify of a 1.0 snapshot" 0 "$inspect" --verify "$golden/real-idle.crib"
check "summary of a 1.0 snapshot" 0 "$inspect" "$golden/real-idle.crib"
grep_check "a 1.0 snapshot says so" "format 1.0"
check "summary of newer minor" 0 "$inspect" "$golden/newer-minor.crib"
grep_check "newer minor: unknown record shown" "unknown ancillary record 0x8abc"
check "summary of a truncated file shows what it can, then fails" 5 "$inspect" "$golden/truncated.crib"
grep_check "the error says truncated" "truncated"
check "not a snapshot" 4 "$inspect" --verify "$golden/sample.json"

check "--hexdump at the heap" 0 "$inspect" --hexdump=0x555555560000:32 "$s"
grep_check "--hexdump prints the bytes" "0000555555560000  a0 ad ba c7"
check "--hexdump of a zero run" 0 "$inspect" --hexdump=0x555555563000:16 --pid=100 "$s"
grep_check "--hexdump zero run" "zero pages"
check "--hexdump where nothing is dumped" 1 "$inspect" --hexdump=0x1000 "$s"
check "--hexdump bad argument" 2 "$inspect" --hexdump=zzz "$s"

check "--diff of a snapshot with itself" 0 "$inspect" --diff "$s" "$s"
check "--diff volatile-only changes" 1 "$inspect" --diff "$s" "$golden/sample-volatile.crib"
grep_check "--diff shows the volatile field" "time_ns"
check "--diff --ignore-volatile" 0 "$inspect" --diff --ignore-volatile "$s" "$golden/sample-volatile.crib"
check "--diff --ignore-volatile with a real change" 1 "$inspect" --diff --ignore-volatile "$s" "$golden/sample-changed.crib"
grep_check "--diff names the changed field" "uid: 1000 -> 0"
nogrep_check "--diff --ignore-volatile hides volatile fields" "time_ns"
check "--diff with a records only on one side" 1 "$inspect" --diff "$s" "$golden/newer-minor.crib"
grep_check "--diff lists records only in A" "only in A"
check "--diff of a 1.1 snapshot with its 1.2 successor" 1 "$inspect" --diff "$golden/sample-1.1.crib" "$golden/sample-1.2.crib"
grep_check "--diff shows the version change" "format version 1.1 -> 1.2"
grep_check "--diff matches epoll items by their ids" "only in B: epoll_item pid=100 fd=12 tfd=7 target_pid=100 target_fd=6"
grep_check "--diff lists a new timerfd record" "only in B: timerfd pid=100 fd=10"
grep_check "--diff shows a new file key" "eventfd_semaphore: false -> true"
check "--diff of a 1.2 snapshot with its 1.3 successor" 1 "$inspect" --diff "$golden/sample-1.2.crib" "$golden/sample-1.3.crib"
grep_check "--diff shows the version change to 1.3" "format version 1.2 -> 1.3"
grep_check "--diff lists a new inotify watch by its ids" "only in B: inotify_watch pid=100 fd=14 wd=3"
grep_check "--diff lists the inotify instance's file" "only in B: file pid=100 fd=14"
check "--diff of a 1.3 snapshot with its 1.4 successor" 1 "$inspect" --diff "$golden/sample-1.3.crib" "$golden/sample-1.4.crib"
grep_check "--diff shows the version change to 1.4" "format version 1.3 -> 1.4"
nogrep_check "--diff finds no record added or removed" "^only in"
check "--diff of a 1.4 snapshot with its 1.5 successor" 1 "$inspect" --diff "$golden/sample-1.4.crib" "$golden/sample-1.5.crib"
grep_check "--diff shows the version change to 1.5" "format version 1.4 -> 1.5"
grep_check "--diff shows the time namespace offsets added" "timens_monotonic_ns"
check "--diff of a 1.5 snapshot with its 1.6 successor" 1 "$inspect" --diff "$golden/sample-1.5.crib" "$golden/sample-1.6.crib"
grep_check "--diff shows the version change to 1.6" "format version 1.5 -> 1.6"
grep_check "--diff shows the process's oom_score_adj added" "oom_score_adj"
grep_check "--diff shows a mapping's advice added" "advice"
check "--diff of a 1.6 snapshot with its 1.7 successor" 1 "$inspect" --diff "$golden/sample-1.6.crib" "$golden/sample-1.7.crib"
grep_check "--diff shows the version change to 1.7" "format version 1.6 -> 1.7"
check "--diff of a 1.7 snapshot with its 1.8 successor" 1 "$inspect" --diff "$golden/sample-1.7.crib" "$golden/sample-1.8.crib"
grep_check "--diff shows the version change to 1.8" "format version 1.7 -> 1.8"
grep_check "--diff lists the seccomp filters added" "only in B: seccomp_filter filter_id=1"
grep_check "--diff lists a thread's seccomp mode added" "only in B: seccomp pid=100 tid=102"
grep_check "--diff lists the socket filter added" "only in B: socket_filter"
grep_check "--diff lists a new lock by its ids" "only in B: file_lock pid=100 fd=13 kind=1 start=10"
grep_check "--diff shows the dump_stats record added" "only in B: dump_stats"
check "summary of a 1.7 snapshot" 0 "$inspect" "$golden/sample-1.7.crib"
nogrep_check "a 1.7 snapshot has no locks" "lock fd"
check "--diff --ignore-volatile of a 1.7 snapshot with its 1.8 successor" 1 "$inspect" --diff --ignore-volatile "$golden/sample-1.7.crib" "$golden/sample-1.8.crib"
nogrep_check "--diff --ignore-volatile leaves the dump's statistics out" "dump_stats"
check "summary of a 1.8 snapshot" 0 "$inspect" "$golden/sample-1.8.crib"
nogrep_check "a 1.8 snapshot has no pidfds" "pidfd fd"
nogrep_check "a 1.8 snapshot has no pseudo-terminal" "pty"
check "--diff of a 1.8 snapshot with its 1.9 successor" 1 "$inspect" --diff "$golden/sample-1.8.crib" "$golden/sample-1.9.crib"
grep_check "--diff shows the version change to 1.9" "format version 1.8 -> 1.9"
grep_check "--diff lists a new pidfd by its ids" "only in B: pidfd pid=100 fd=15"
grep_check "--diff lists a pseudo-terminal end by its ids" "only in B: tty pid=101 fd=6"
check "summary of a 1.9 snapshot" 0 "$inspect" "$golden/sample-1.9.crib"
nogrep_check "a 1.9 snapshot has no netlink socket" "netlink"
check "--diff of a 1.9 snapshot with its 1.10 successor" 1 "$inspect" --diff "$golden/sample-1.9.crib" "$s"
grep_check "--diff shows the version change to 1.10" "format version 1.9 -> 1.10"
grep_check "--diff lists the netlink socket by its ids" "only in B: socket pid=100 fd=18"
check "--diff of a snapshot with stored pages" 1 "$inspect" --diff "$s" "$golden/sample-stored.crib"
grep_check "--diff lists the stored run as pages" "only in B: pages pid=101 addr=0x7f0000000000"
check "--diff against a corrupt file" 5 "$inspect" --diff "$s" "$golden/corrupt.crib"
grep_check "--diff against a corrupt file names it and the offset" "corrupt.crib: .*(file offset [0-9]*"

# The views, on the sample: text, --pid, and --json (valid, with its status).
check "--ps-tree of the sample" 0 "$inspect" --ps-tree "$s"
grep_check "--ps-tree shows the root running with its threads and command" "^100 .* running  *2  sample (/usr/bin/sample)$"
grep_check "--ps-tree shows the stopped child, indented" "^101 .* stopped(19)  *1    child (/usr/bin/sample)$"
grep_check "--ps-tree shows the zombie grandchild" "^103 .* zombie(3)  *0      zombie$"
check "--ps-tree --pid of the child" 0 "$inspect" --ps-tree --pid=101 "$s"
nogrep_check "--ps-tree --pid leaves out the parent" "^100 "
grep_check "--ps-tree --pid starts from that process" "^101 .*  1  child"
check "--ps-tree --pid of no process" 1 "$inspect" --ps-tree --pid=5 "$s"
grep_check "--ps-tree --pid of no process says so" "no process 5 in the snapshot"
check "--files of the sample" 0 "$inspect" --files "$s"
grep_check "--files: pid, fd, kind, flags, offset, desc, path" "^100 *3 *regular *rdwr,largefile *4096 *2  /tmp/data .xff.bin  \[cloexec\]$"
grep_check "--files marks a description shared in one process" "^100 *8 .*\[shared with pid 100 fd 3\]"
grep_check "--files marks a description shared across processes" "^101 *3 .*\[shared with pid 100 fd 3\]"
grep_check "--files shows a ghost" "^101 *5 .*(deleted)  \[ghost 2\]"
grep_check "--files shows what a pidfd refers to" "^100 *15 *pidfd .*\[pidfd of process 101\]  \[cloexec\]$"
grep_check "--files shows a pidfd of a reaped process" "^100 *16 *pidfd .*\[pidfd of a reaped process\]$"
grep_check "--files keeps the next process's lines after the pidfds" "^101 *3 *regular"
grep_check "--files shows a pseudo-terminal master's line" "^100 *17 *pty *master of pair 1 (pts 3), 40x132, packet mode, controls session 100, group 101 in front$"
grep_check "--files shows its slave's" "^101 *6 *pty *slave of pair 1"
check "--files --json" 0 "$inspect" --files --json "$s"
grep_check "--files --json has the pseudo-terminal" '"kind":"pty","end":"master","pair":1,"pts":3,"rows":40,"cols":132,"packet":true,"session":100,"foreground_group":101'
check "--files --pid" 0 "$inspect" --files --pid=101 "$s"
nogrep_check "--files --pid leaves out the other processes" "^100 "
grep_check "--files --pid keeps that process's" "^101 *4 *pipe"
check "--sockets of the sample" 0 "$inspect" --sockets "$s"
grep_check "--sockets shows a TCP connection" "^100 *5 *tcp *ESTABLISHED *127.0.0.1:40000 *127.0.0.1:8080 *5 *10  rdwr,async$"
grep_check "--sockets shows an abstract UNIX socket" "^100 *7 *unix/dgram .*@sample-abstract"
grep_check "--sockets shows a netlink socket's port id and the group it is connected to" "^100 *18 *netlink/0 *connected *portid:4242 *portid:0,group:1 "
check "--sockets --pid of a process without any" 0 "$inspect" --sockets --pid=101 "$s"
grep_check "--sockets --pid says there are none" "(no sockets of that process)"
check "--memory of the sample" 0 "$inspect" --memory "$s"
grep_check "--memory: mapped, dumped, zero per process" "^100 *5 *2.2M *16.0K *64.0K *0B *[0-9.]*[BK]$"
grep_check "--memory totals the processes" "^total *7 *2.2M"
check "--memory of stored pages" 0 "$inspect" --memory "$golden/sample-stored.crib"
grep_check "--memory counts stored pages as dumped and stored" "^101 *2 *12.0K *132.0K *0B *132.0K *0B$"
check "--memory --pid" 0 "$inspect" --memory --pid=101 "$s"
nogrep_check "--memory --pid leaves out the other processes" "^100 "
check "--memory --pid of no process" 1 "$inspect" --memory --pid=7 "$s"
check "--stats of the sample" 0 "$inspect" --stats "$s"
grep_check "--stats shows the phases" "^  read  *45.000 ms$"
grep_check "--stats shows how long the tree was frozen" "^frozen:  *128.000 ms$"
grep_check "--stats shows the processes and threads" "^dump of 3 processes, 3 threads$"
check "--stats of a 1.7 snapshot" 1 "$inspect" --stats "$golden/sample-1.7.crib"
grep_check "--stats says why there are none" "no dump statistics in this snapshot"
check "--summary --pid" 0 "$inspect" --pid=101 "$s"
nogrep_check "--summary --pid leaves out the other processes' records" "^process 100 "
grep_check "--summary --pid keeps that process" "^process 101 "
for view in --ps-tree --files --sockets --memory --stats "--memory --search=IVcp"; do
	check "$view --json" 0 "$inspect" $view --json "$s"
	grep_check "$view --json ends with the stream's status" '"status":{"ok":true}}$'
	cp "$tmp/out" "$tmp/view.json"
	check "$view --json is valid JSON" 0 python3 -m json.tool "$tmp/view.json"
	check "$view --json of a missing file" 3 "$inspect" $view --json "$tmp/does-not-exist"
	grep_check "$view --json of a missing file says so" '"ok":false'
	cp "$tmp/out" "$tmp/view.json"
	check "$view --json of a missing file is valid JSON" 0 python3 -m json.tool "$tmp/view.json"
	check "$view --json of a corrupt file" 5 "$inspect" $view --json "$golden/corrupt.crib"
	cp "$tmp/out" "$tmp/view.json"
	check "$view --json of a corrupt file is valid JSON" 0 python3 -m json.tool "$tmp/view.json"
done
check "--json --pid" 0 "$inspect" --json --pid=101 "$s"
cp "$tmp/out" "$tmp/view.json"
check "--json --pid: that process's records, and those of none" 0 python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert all(r.get("fields",{}).get("pid",101)==101 for r in d["records"]), d; assert any(r["type"]=="header" for r in d["records"])' "$tmp/view.json"
check "--ps-tree --json --pid" 0 "$inspect" --ps-tree --json --pid=101 "$s"
cp "$tmp/out" "$tmp/view.json"
check "--ps-tree --json: the subtree with depths and states" 0 python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [(p["pid"],p["depth"],p["state"]) for p in d["processes"]]==[(101,0,"stopped"),(103,1,"zombie")], d' "$tmp/view.json"
check "--files --json" 0 "$inspect" --files --json "$s"
cp "$tmp/out" "$tmp/view.json"
check "--files --json: a pidfd's target, and a reaped one" 0 python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); p={f["fd"]:f["pidfd"] for f in d["files"] if "pidfd" in f}; assert p=={15:{"target":101,"dead":False,"thread":False},16:{"target":0,"dead":True,"thread":False}}, p' "$tmp/view.json"
check "--memory --search --json on the sample" 0 "$inspect" --memory --search=IVcp --json --pid=100 "$s"
cp "$tmp/out" "$tmp/view.json"
check "--memory --search finds the sample's bytes" 0 python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert {"pid":100,"addr":0x55555556000d} in d["matches"], d' "$tmp/view.json"
check "--memory --extract of the sample" 0 "$inspect" --memory --extract=0x55555556000d:5 --pid=100 -o - "$s"
grep_check "--memory --extract writes the bytes" "^IVcp}$"
check "--memory --extract of a truncated snapshot" 5 "$inspect" --memory --extract=0x555555560000:16 --pid=100 -o "$tmp/part.bin" "$golden/truncated.crib"
check "--memory --extract writes nothing from a damaged snapshot" 1 test -e "$tmp/part.bin"

echo "1..$n"
[ "$failed" -eq 0 ]
