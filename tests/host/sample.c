// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sample snapshot: a tree of three processes (one stopped, one a zombie)
 * sharing a pipe, an open file and shared memory, every resource kind, an
 * unknown record.
 */
#include <stdlib.h>
#include <string.h>

#include "membuf.h"
#include "sample.h"

#define HEAP_START 0x555555560000ull
#define DATA_PAGES 3
#define BIG_PAGES 300		/* 1.2 MB: spans two pages records */
#define SHARED_START 0x7ffff7a00000ull	/* shared with the child: shmem 1 */
#define SHARED_PAGES 2

void sample_header(struct crib_header *hdr)
{
	*hdr = (struct crib_header){
		.kernel_release = "6.8.0-crib",
		.arch = "x86_64",
		.page_size = SAMPLE_PAGE_SIZE,
		.tool_name = "crib-test",
		.tool_version = "1.0.0",
		.time_ns = 1700000000123456789ull,
		.hostname = "sample-host",
		.root_pid = 100,
		.monotonic_ns = 86400123456789ull,
		.boottime_ns = 86405123456789ull,
		.boot_id = "8f4c1d2e-0b7a-4c3e-9d61-5a2f0e7b9c14",
		.timens_monotonic_ns = -3600000000000ll,
		.timens_boottime_ns = 7200000000000ll,
	};
}

uint8_t sample_page_byte(uint64_t addr, size_t i)
{
	return (uint8_t)((addr >> 12) * 7 + i * 13);
}

static const uint64_t groups[] = { 4, 24, 27, 1000 };
static const struct crib_rlimit rlimits[] = {
	{ .resource = 3, .cur = 8 << 20, .max = UINT64_MAX },	/* RLIMIT_STACK */
	{ .resource = 7, .cur = 1024, .max = 524288 },		/* RLIMIT_NOFILE */
};

static int write_process(struct crib_writer *w, uint64_t pid, uint64_t ppid, const char *comm,
			 uint64_t uid)
{
	struct crib_process p = {
		.pid = pid, .tgid = pid, .ppid = ppid, .sid = 100, .pgid = pid == 100 ? 100 : 101,
		.comm = comm,
		.uid = uid, .gid = 1000, .euid = 1000, .egid = 1000,
		.suid = 1000, .sgid = 1000, .fsuid = 1000, .fsgid = 1000,
		.groups = groups, .n_groups = 4,
		.cap_bnd = 0x1ffffffffffull,
		.sched_policy = 0, .sched_priority = 0, .nice = -5,
		.umask = 022,
		.rlimits = rlimits, .n_rlimits = 2,
		.cwd = pid == 101 ? "/tmp/gone" : "/home/user", .cwd_unlinked = pid == 101,
		.root = "/", .exe = "/usr/bin/sample",
		.no_new_privs = true, .dumpable = 1, .start_time = 123456789,
		.child_subreaper = pid == 100,
		.stop_signal = pid == 101 ? 19 : 0,	/* SIGSTOP */
		.oom_score_adj = pid == 101 ? -500 : 300,
		.cpus = 0x5, .timer_slack_ns = 50000,
		.sched_reset_on_fork = pid == 100,
		.membarrier = pid == 100 ? 16 : 0,	/* MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED */
	};

	return crib_write_process(w, &p);
}

/* A child of 101 that exited with status 3, not waited for: its process record alone. */
static int write_zombie(struct crib_writer *w)
{
	struct crib_process p = {
		.pid = 103, .tgid = 103, .ppid = 101, .sid = 100, .pgid = 101,
		.comm = "zombie", .start_time = 123456999,
		.zombie = true, .exit_status = 3 << 8,
	};

	return crib_write_process(w, &p);
}

static int write_thread(struct crib_writer *w, uint64_t pid, uint64_t tid)
{
	static uint8_t xstate[832];	/* legacy FXSAVE area plus header */
	static uint8_t siginfo[128] = { 10, 0, 0, 0 };
	struct crib_siginfo pending = { .signo = 10, .info = { siginfo, sizeof(siginfo) } };
	struct crib_thread t = {
		.pid = pid, .tid = tid, .comm = tid == pid ? "sample" : "worker",
		.regs_x86_64 = {
			.rip = 0x555555555123ull + tid, .rsp = 0x7ffffffde000ull, .rax = 0,
			.orig_rax = 230, .cs = 0x33, .ss = 0x2b, .eflags = 0x246,
			.fs_base = 0x7ffff7d8a740ull,
		},
		.xstate = { xstate, sizeof(xstate) },
		.sigmask = 1ull << (15 - 1),
		.sigaltstack = { .sp = 0, .size = 0, .flags = 2 },	/* SS_DISABLE */
		.pending = &pending, .n_pending = tid == pid ? 1 : 0,
		.clear_child_tid = 0x7ffff7d8aa10ull,
		.robust_list = 0x7ffff7d8aa20ull, .robust_list_len = 24,
		.pdeath_signal = tid == 101 ? 15 : 0,	/* SIGTERM */
	};
	/* The worker dropped its privileges alone, with the raw system calls. */
	if (tid == 102) {
		t.own_creds = true;
		t.creds = (struct crib_creds){
			.uid = 2000, .gid = 2000, .euid = 2000, .egid = 2000, .suid = 2000,
			.sgid = 2000, .fsuid = 2000, .fsgid = 2000, .cap_bnd = 0x1ffffffffffull,
		};
		/* and set its own securebits, I/O priority and speculation controls */
		t.securebits = 0x30;		/* SECBIT_KEEP_CAPS, locked */
		t.ioprio = 2 << 13 | 7;		/* best effort, lowest */
		t.spec_store_bypass = 16;	/* PR_SPEC_DISABLE_NOEXEC */
		t.spec_indirect_branch = 8;	/* PR_SPEC_FORCE_DISABLE */
	}

	for (size_t i = 0; i < sizeof(xstate); i++)
		xstate[i] = (uint8_t)i;
	return crib_write_thread(w, &t);
}

/*
 * Seccomp: the sample and its worker share a filter that allows every
 * call and logs; the worker added one of its own, which fails getpid()
 * with EPERM.  The child runs in strict mode.
 */
static int write_seccomp(struct crib_writer *w, uint64_t pid)
{
	static const uint8_t allow[] = {	/* ret ALLOW */
		0x06, 0, 0, 0, 0x00, 0x00, 0xff, 0x7f,
	};
	static const uint8_t no_getpid[] = {	/* ld nr; jeq 39; ret ERRNO|1; ret ALLOW */
		0x20, 0, 0, 0, 0, 0, 0, 0,
		0x15, 0, 0, 1, 39, 0, 0, 0,
		0x06, 0, 0, 0, 0x01, 0x00, 0x05, 0x00,
		0x06, 0, 0, 0, 0x00, 0x00, 0xff, 0x7f,
	};
	static const uint64_t shared[] = { 1 }, own[] = { 1, 2 };

	if (pid != 100)
		return crib_write_seccomp(w, &(struct crib_seccomp) {
			.pid = pid, .tid = pid, .mode = CRIB_SECCOMP_STRICT,
		});
	return crib_write_seccomp_filter(w, &(struct crib_seccomp_filter) {
			.filter_id = 1, .log = true, .insns = { allow, sizeof(allow) } }) ||
	       crib_write_seccomp_filter(w, &(struct crib_seccomp_filter) {
			.filter_id = 2, .insns = { no_getpid, sizeof(no_getpid) } }) ||
	       crib_write_seccomp(w, &(struct crib_seccomp) {
			.pid = 100, .tid = 100, .mode = CRIB_SECCOMP_FILTER,
			.filters = shared, .n_filters = 1 }) ||
	       crib_write_seccomp(w, &(struct crib_seccomp) {
			.pid = 100, .tid = 102, .mode = CRIB_SECCOMP_FILTER,
			.filters = own, .n_filters = 2 });
}

static int write_memory(struct crib_writer *w, uint64_t pid, bool big)
{
	static const uint8_t auxv[32] = { 6, 0, 0, 0, 0, 0, 0, 0, 0, 0x10 };
	struct crib_mm mm = {
		.pid = pid,
		.start_code = 0x555555554000ull, .end_code = 0x555555556000ull,
		.start_data = 0x555555557000ull, .end_data = 0x555555558000ull,
		.start_brk = HEAP_START, .brk = HEAP_START + 0x21000,
		.start_stack = 0x7ffffffde000ull,
		.arg_start = 0x7ffffffdf000ull, .arg_end = 0x7ffffffdf010ull,
		.env_start = 0x7ffffffdf010ull, .env_end = 0x7ffffffdf100ull,
		.auxv = { auxv, sizeof(auxv) },
		.exe = "/usr/bin/sample",
		.flags = 0x8d,
		.nr_vmas = 5,
	};
	struct crib_vma vmas[] = {
		{ .pid = pid, .start = 0x555555554000ull, .end = 0x555555556000ull, .prot = 5,
		  .flags = CRIB_MAP_PRIVATE, .path = "/usr/bin/sample", .dev = 0x801,
		  .inode = 1234, .kind = CRIB_VMA_FILE, .vm_flags = 0x875 },
		{ .pid = pid, .start = HEAP_START, .end = HEAP_START + 0x200000 /* 512 pages */,
		  .prot = 3, .flags = CRIB_MAP_PRIVATE, .kind = CRIB_VMA_HEAP, .vm_flags = 0x100073 },
		{ .pid = pid, .start = 0x7ffffffde000ull, .end = 0x7ffffffff000ull, .prot = 3,
		  .flags = CRIB_MAP_PRIVATE | CRIB_MAP_GROWSDOWN, .kind = CRIB_VMA_STACK,
		  .vm_flags = 0x100173 },
		{ .pid = pid, .start = SHARED_START, .end = SHARED_START + SHARED_PAGES * 4096,
		  .prot = 3, .flags = CRIB_MAP_SHARED, .path = "/dev/zero (deleted)",
		  .inode = 2020, .kind = CRIB_VMA_SHARED_ANON, .vm_flags = 0x1000fb,
		  .shmem_id = 1 },
		{ .pid = pid, .start = 0x7ffff7fc1000ull, .end = 0x7ffff7fc3000ull, .prot = 5,
		  .flags = CRIB_MAP_PRIVATE, .path = "[vdso]", .kind = CRIB_VMA_VDSO },
	};
	uint64_t npages = big ? BIG_PAGES : DATA_PAGES;
	uint8_t *data;
	int ret;

	if (crib_write_mm(w, &mm))
		return -1;
	for (size_t i = 0; i < sizeof(vmas) / sizeof(vmas[0]); i++)
		if (crib_write_vma(w, &vmas[i]))
			return -1;
	data = malloc(npages * SAMPLE_PAGE_SIZE);
	if (!data)
		return -1;
	for (uint64_t pg = 0; pg < npages; pg++)
		for (size_t i = 0; i < SAMPLE_PAGE_SIZE; i++)
			data[pg * SAMPLE_PAGE_SIZE + i] =
				sample_page_byte(HEAP_START + pg * SAMPLE_PAGE_SIZE, i);
	ret = crib_write_pages(w, pid, HEAP_START, npages, data);
	free(data);
	if (ret)
		return -1;
	/* The rest of the heap was touched but is zero. */
	if (crib_write_pages(w, pid, HEAP_START + npages * SAMPLE_PAGE_SIZE, 16, NULL))
		return -1;
	/* The first page of shmem 1: recorded here, under its first vma, only. */
	data = malloc(SAMPLE_PAGE_SIZE);
	if (!data)
		return -1;
	for (size_t i = 0; i < SAMPLE_PAGE_SIZE; i++)
		data[i] = sample_page_byte(SHARED_START, i);
	ret = crib_write_pages(w, pid, SHARED_START, 1, data);
	free(data);
	return ret;
}

/* The child's address space: only shmem 1, at the same address, inherited. */
static int write_child_memory(struct crib_writer *w, uint64_t pid)
{
	struct crib_mm mm = { .pid = pid, .exe = "/usr/bin/sample", .nr_vmas = 2 };
	struct crib_vma shared = {
		.pid = pid, .start = SHARED_START, .end = SHARED_START + SHARED_PAGES * 4096,
		.prot = 3, .flags = CRIB_MAP_SHARED, .path = "/dev/zero (deleted)",
		.inode = 2020, .kind = CRIB_VMA_SHARED_ANON, .vm_flags = 0x1000fb, .shmem_id = 1,
	};
	/* ghost 2, the unlinked log, mapped read-only */
	struct crib_vma unlinked = {
		.pid = pid, .start = SHARED_START + 0x100000, .end = SHARED_START + 0x101000,
		.prot = 1, .flags = CRIB_MAP_SHARED, .path = "/tmp/scratch.log (deleted)",
		.dev = 0x801, .inode = 779, .kind = CRIB_VMA_FILE, .vm_flags = 0xf1, .ghost_id = 2,
		.advice = CRIB_ADV_RANDOM | CRIB_ADV_DONTDUMP,
	};

	return crib_write_mm(w, &mm) || crib_write_vma(w, &shared) ||
	       crib_write_vma(w, &unlinked) ? -1 : 0;
}

/*
 * One end of the sample's pseudo-terminal: raw-ish, 40x132, in packet
 * mode, the controlling terminal of session 100 with group 101 in front.
 */
static int write_tty(struct crib_writer *w, uint64_t pid, uint64_t fd, uint64_t end)
{
	static const uint8_t cc[CRIB_TTY_NCCS] = { 3, 28, 127, 21, 4, 0, 1, 0, 17, 19, 26 };
	struct crib_tty t = {
		.pid = pid, .fd = fd, .tty_id = 1, .end = end, .index = 3,
		.iflag = 0, .oflag = 05, .cflag = 0277, .lflag = 0, .cc = { cc, sizeof(cc) },
		.ispeed = 38400, .ospeed = 38400, .rows = 40, .cols = 132, .packet = true,
		.sid = 100, .fg_pgrp = 101,
	};

	return crib_write_tty(w, &t);
}

static int write_files(struct crib_writer *w, uint64_t pid)
{
	static const char pipe_bytes[] = "hello through a pipe";
	struct crib_file files[] = {
		{ .pid = pid, .fd = 0, .type = CRIB_FILE_CHARDEV, .flags = 02, .path = "/dev/pts/0",
		  .dev = 0x18, .inode = 3, .mode = 020620, .mnt_id = 25, .desc = 1 },
		{ .pid = pid, .fd = 3, .cloexec = true, .type = CRIB_FILE_REGULAR, .flags = 0100002,
		  .pos = 4096, .path = "/tmp/data \xff.bin", .dev = 0x801, .inode = 777,
		  .size = 10000, .mode = 0100644, .mnt_id = 30, .desc = 2 },
		{ .pid = pid, .fd = 4, .type = CRIB_FILE_PIPE, .flags = 0, .inode = 4242,
		  .mode = 010600, .desc = 3 },
		/* signal-driven I/O: O_ASYNC, its SIGIO as SIGRTMIN to the process */
		{ .pid = pid, .fd = 5, .type = CRIB_FILE_SOCKET, .flags = 020002, .inode = 5151,
		  .mode = 0140777, .desc = 4, .owner_pid = pid, .owner_type = 1, .signal = 34 },
		{ .pid = pid, .fd = 6, .type = CRIB_FILE_EVENTFD, .flags = 02, .eventfd_count = 3,
		  .desc = 5, .eventfd_semaphore = true },
		/* dup(3): the same description, offset and flags */
		{ .pid = pid, .fd = 8, .type = CRIB_FILE_REGULAR, .flags = 0100002,
		  .pos = 4096, .path = "/tmp/data \xff.bin", .dev = 0x801, .inode = 777,
		  .size = 10000, .mode = 0100644, .mnt_id = 30, .desc = 2 },
		{ .pid = pid, .fd = 9, .type = CRIB_FILE_FIFO, .flags = 04002,
		  .path = "/tmp/sample.fifo", .dev = 0x801, .inode = 778, .mode = 010644,
		  .mnt_id = 30, .desc = 6 },
		{ .pid = pid, .fd = 10, .cloexec = true, .type = CRIB_FILE_TIMERFD, .flags = 04002,
		  .path = "anon_inode:[timerfd]", .desc = 7 },
		{ .pid = pid, .fd = 11, .type = CRIB_FILE_SIGNALFD, .flags = 02,
		  .path = "anon_inode:[signalfd]", .sigmask = 0x4002, .desc = 8 },
		{ .pid = pid, .fd = 12, .cloexec = true, .type = CRIB_FILE_EVENTPOLL, .flags = 02,
		  .path = "anon_inode:[eventpoll]", .desc = 9 },
		{ .pid = pid, .fd = 13, .type = CRIB_FILE_MEMFD, .flags = 0100002, .pos = 5,
		  .path = "/memfd:sample (deleted)", .dev = 0x1, .inode = 1030, .size = 8192,
		  .mode = 0100777, .desc = 10, .ghost_id = 1 },
		{ .pid = pid, .fd = 14, .cloexec = true, .type = CRIB_FILE_INOTIFY, .flags = 04000,
		  .path = "anon_inode:inotify", .desc = 11 },
		/* pidfds: of the child, non-blocking; of a process since reaped */
		{ .pid = pid, .fd = 15, .cloexec = true, .type = CRIB_FILE_PIDFD, .flags = 04002,
		  .path = "anon_inode:[pidfd]", .desc = 12 },
		{ .pid = pid, .fd = 16, .type = CRIB_FILE_PIDFD, .flags = 02,
		  .path = "anon_inode:[pidfd]", .desc = 13 },
		/* a pseudo-terminal master, its slave the child's fd 6 */
		{ .pid = pid, .fd = 17, .cloexec = true, .type = CRIB_FILE_CHARDEV, .flags = 0100002,
		  .path = "/dev/ptmx", .dev = 0x6, .inode = 87, .mode = 020666, .desc = 16 },
	};
	struct crib_pidfd pidfds[] = {
		{ .pid = pid, .fd = 15, .target = 101 },
		{ .pid = pid, .fd = 16, .dead = true },
	};
	struct crib_timerfd timer = {
		.pid = pid, .fd = 10, .clockid = 1, .ticks = 2, .value_ns = 250000000,
		.interval_ns = 1000000000,
	};
	struct crib_epoll_item items[] = {
		/* the pipe's read end, edge-triggered */
		{ .pid = pid, .fd = 12, .tfd = 4, .target_pid = pid, .target_fd = 4,
		  .events = 0x80000001, .data = 0x1234 },
		/* the eventfd, added under a descriptor since closed: dup(6) was 7 */
		{ .pid = pid, .fd = 12, .tfd = 7, .target_pid = pid, .target_fd = 6,
		  .events = 0x40000001, .data = 0xffffffffffffffff },
	};
	/* in the kernel's order, the newest watch first; wd 2 was removed */
	struct crib_inotify_watch watches[] = {
		/* IN_MODIFY | IN_ONESHOT */
		{ .pid = pid, .fd = 14, .wd = 3, .mask = 0x80000002, .path = "/etc/sample.conf",
		  .dev = 0x801, .inode = 881 },
		/* IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_EXCL_UNLINK */
		{ .pid = pid, .fd = 14, .wd = 1, .mask = 0x04000388, .path = "/home/user/drop",
		  .dev = 0x801, .inode = 880 },
	};
	/* fd 3's description (shared with fd 8 and the child) holds a flock() */
	struct crib_file_lock locks[] = {
		{ .pid = pid, .fd = 3, .kind = CRIB_LOCK_FLOCK, .type = CRIB_LOCK_WRITE },
		{ .pid = pid, .fd = 3, .kind = CRIB_LOCK_POSIX, .type = CRIB_LOCK_READ,
		  .start = 0, .len = 100 },
		{ .pid = pid, .fd = 3, .kind = CRIB_LOCK_POSIX, .type = CRIB_LOCK_WRITE,
		  .start = 4096 },
		{ .pid = pid, .fd = 13, .kind = CRIB_LOCK_OFD, .type = CRIB_LOCK_WRITE,
		  .start = 10, .len = 20 },
	};
	struct crib_pipe pipes[] = {
		{ .pid = pid, .fd = 4, .pipe_id = 1, .end = CRIB_PIPE_READ, .pipe_size = 65536,
		  .queued = sizeof(pipe_bytes) - 1 },
		{ .pid = pid, .fd = 9, .pipe_id = 2, .end = CRIB_PIPE_BOTH, .pipe_size = 65536,
		  .mtime_ns = 1700000000000000001ull },
	};

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (crib_write_file(w, &files[i]))
			return -1;
	if (crib_write_pipe(w, &pipes[0]) ||
	    crib_write_pipe_data(w, 1, pipe_bytes, sizeof(pipe_bytes) - 1) ||
	    crib_write_pipe(w, &pipes[1]) || crib_write_timerfd(w, &timer))
		return -1;
	for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++)
		if (crib_write_epoll_item(w, &items[i]))
			return -1;
	for (size_t i = 0; i < sizeof(watches) / sizeof(watches[0]); i++)
		if (crib_write_inotify_watch(w, &watches[i]))
			return -1;
	for (size_t i = 0; i < sizeof(locks) / sizeof(locks[0]); i++)
		if (crib_write_file_lock(w, &locks[i]))
			return -1;
	for (size_t i = 0; i < sizeof(pidfds) / sizeof(pidfds[0]); i++)
		if (crib_write_pidfd(w, &pidfds[i]))
			return -1;
	if (write_tty(w, pid, 17, CRIB_TTY_MASTER))
		return -1;
	return crib_write_note(w, "crib-dump.inotify",
			       "process 100, fd 14: 2 queued events not carried");
}

/* The child: the parent's fd 3, inherited, and the pipe's write end. */
static int write_child_files(struct crib_writer *w, uint64_t pid)
{
	struct crib_file files[] = {
		{ .pid = pid, .fd = 3, .cloexec = true, .type = CRIB_FILE_REGULAR, .flags = 0100002,
		  .pos = 4096, .path = "/tmp/data \xff.bin", .dev = 0x801, .inode = 777,
		  .size = 10000, .mode = 0100644, .mnt_id = 30, .desc = 2 },
		{ .pid = pid, .fd = 4, .type = CRIB_FILE_PIPE, .flags = 01, .inode = 4242,
		  .mode = 010600, .desc = 14 },
		{ .pid = pid, .fd = 5, .type = CRIB_FILE_REGULAR, .flags = 0102001, .pos = 11,
		  .path = "/tmp/scratch.log (deleted)", .dev = 0x801, .inode = 779, .size = 11,
		  .mode = 0100600, .desc = 15, .ghost_id = 2 },
		{ .pid = pid, .fd = 6, .type = CRIB_FILE_CHARDEV, .flags = 0100002,
		  .path = "/dev/pts/3", .dev = 0x18, .inode = 6, .mode = 020620, .desc = 17 },
	};
	struct crib_pipe pipe = { .pid = pid, .fd = 4, .pipe_id = 1, .end = CRIB_PIPE_WRITE,
				  .pipe_size = 65536, .queued = 20 };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (crib_write_file(w, &files[i]))
			return -1;
	return crib_write_pipe(w, &pipe) || write_tty(w, pid, 6, CRIB_TTY_SLAVE) ? -1 : 0;
}

static int write_sockets(struct crib_writer *w, uint64_t pid)
{
	static const uint8_t lo[4] = { 127, 0, 0, 1 };
	static const uint8_t nodelay[4] = { 1, 0, 0, 0 };
	static const char unix_path[] = "\0sample-abstract";
	struct crib_sockopt opts[] = {
		{ .level = 6, .name = 1, .value = { nodelay, 4 } },	/* TCP_NODELAY */
	};
	struct crib_socket tcp = {
		.pid = pid, .fd = 5, .sock_id = 5151, .family = 2, .type = 1, .protocol = 6,
		.state = 1,	/* TCP_ESTABLISHED */
		.local = { .family = 2, .addr = { lo, 4 }, .port = 40000 },
		.peer = { .family = 2, .addr = { lo, 4 }, .port = 8080 },
		.options = opts, .n_options = 1,
		.tcp = { .snd_una = 1000, .snd_nxt = 1010, .rcv_nxt = 5000, .snd_wnd = 65535,
			 .rcv_wnd = 65483, .max_window = 65535, .rcv_wup = 5000, .mss_clamp = 65483,
			 .snd_wscale = 7, .rcv_wscale = 7, .timestamps = true, .ts_val = 99999,
			 .sack = true, .unsent = 0, .nodelay = true },
		.recv_queued = 5, .send_queued = 10,
	};
	struct crib_socket udx = {
		.pid = pid, .fd = 7, .sock_id = 6161, .family = 1, .type = 2,
		.local = { .family = 1, .addr = { unix_path, sizeof(unix_path) - 1 } },
		.recv_queued = 9,
	};
	struct crib_sock_chunk dgrams[] = {
		{ .data = { "ping", 4 }, .src = { .family = 1, .addr = { unix_path, 7 } } },
		{ .data = { "hello", 5 }, .src = { .family = 1 } },
	};
	struct crib_socket_queue q = { .sock_id = 6161, .queue = CRIB_QUEUE_RECV,
				       .chunks = dgrams, .n_chunks = 2 };
	/* ld len; ret A: every datagram whole, locked */
	static const uint8_t keep_all[] = {
		0x80, 0, 0, 0, 0, 0, 0, 0,
		0x16, 0, 0, 0, 0, 0, 0, 0,
	};
	struct crib_socket_filter filter = { .sock_id = 6161,
					     .insns = { keep_all, sizeof(keep_all) },
					     .locked = true };
	/* 1.10: a NETLINK_ROUTE socket, port id 4242, in RTMGRP_LINK, with NETLINK_EXT_ACK */
	static const uint8_t link_group[4] = { 1, 0, 0, 0 };
	static const uint8_t on[4] = { 1, 0, 0, 0 };
	struct crib_sockopt nl_opts[] = {
		{ .level = 270, .name = 9, .value = { link_group, 4 } },
		{ .level = 270, .name = 11, .value = { on, 4 } },
	};
	struct crib_socket nl = {
		.pid = pid, .fd = 18, .sock_id = 7171, .family = 16, .type = 3, .protocol = 0,
		.state = 1,	/* connected: to the kernel, group 1 */
		.local = { .family = 16, .port = 4242 },
		.peer = { .family = 16, .port = 0, .group = 1 },
		.options = nl_opts, .n_options = 2,
	};

	if (crib_write_socket(w, &tcp) ||
	    crib_write_socket_stream(w, 5151, CRIB_QUEUE_RECV, "abcde", 5) ||
	    crib_write_socket_stream(w, 5151, CRIB_QUEUE_SEND, "0123456789", 10) ||
	    crib_write_socket(w, &udx))
		return -1;
	return crib_write_socket_queue(w, &q) || crib_write_socket_filter(w, &filter) ||
	       crib_write_socket(w, &nl);
}

static int write_signals(struct crib_writer *w, uint64_t pid)
{
	static uint8_t siginfo[128] = { 17 };
	struct crib_sigaction actions[] = {
		{ .signo = 2, .handler = 0x555555555200ull, .flags = 0x14000000,
		  .restorer = 0x7ffff7dd1520ull, .mask = 0 },
		{ .signo = 13, .handler = 1 },	/* SIGPIPE ignored */
	};
	struct crib_siginfo shared = { .signo = 17, .info = { siginfo, sizeof(siginfo) } };
	struct crib_posix_timer pt = { .id = 0, .clockid = 1, .signo = 14, .notify = 0,
				       .sigev_value = 0xdead, .interval_ns = 1000000,
				       .value_ns = 500000 };
	struct crib_sighand sh = { .pid = pid, .actions = actions, .n_actions = 2 };
	struct crib_sigpending sp = { .pid = pid, .signals = &shared, .n_signals = 1 };
	struct crib_timers t = { .pid = pid, .real = { .interval_ns = 0, .value_ns = 2000000000 },
				 .posix = &pt, .n_posix = 1 };

	if (crib_write_sighand(w, &sh) || crib_write_sigpending(w, &sp))
		return -1;
	return crib_write_timers(w, &t);
}

/* How long the dump took (1.8), last before the trailer as crib-dump writes it. */
static int write_dump_stats(struct crib_writer *w)
{
	static const struct crib_dump_phase phases[] = {
		{ "load", 120000000 }, { "freeze", 3000000 }, { "read", 45000000 },
		{ "write", 80000000 },
	};
	struct crib_dump_stats stats = {
		.phases = phases, .n_phases = 4, .frozen_ns = 128000000, .total_ns = 250000000,
		.processes = 3, .threads = 3,
	};

	return crib_write_dump_stats(w, &stats);
}

int sample_write_uid(struct crib_writer *w, bool big, uint64_t uid)
{
	struct crib_shmem shmem = { .shmem_id = 1, .size = SHARED_PAGES * SAMPLE_PAGE_SIZE };
	struct crib_ghost memfd = {
		.ghost_id = 1, .kind = CRIB_GHOST_MEMFD, .path = "sample", .size = 8192,
		.mode = 0100777, .uid = 1000, .gid = 1000, .seals = 0x6 /* shrink, grow */,
		.dev = 0x1, .inode = 1030,
	};
	struct crib_ghost unlinked = {
		.ghost_id = 2, .kind = CRIB_GHOST_UNLINKED, .path = "/tmp/scratch.log", .size = 11,
		.mode = 0100600, .uid = 1000, .gid = 1000, .dev = 0x801, .inode = 779,
		.mtime_ns = 1700000000123456789ull,
	};

	if (crib_write_shmem(w, &shmem))
		return -1;
	/* The memfd's second page only: its first is a hole. */
	if (crib_write_ghost(w, &memfd) ||
	    crib_write_ghost_data(w, 1, 4096, "memfd bytes", 11) ||
	    crib_write_ghost(w, &unlinked) ||
	    crib_write_ghost_data(w, 2, 0, "log entries", 11))
		return -1;
	if (write_process(w, 100, 1, "sample", uid) || write_thread(w, 100, 100) ||
	    write_thread(w, 100, 102) || write_seccomp(w, 100) || write_memory(w, 100, big) || write_files(w, 100) ||
	    write_sockets(w, 100) || write_signals(w, 100))
		return -1;
	if (write_process(w, 101, 100, "child", 1000) || write_thread(w, 101, 101) ||
	    write_seccomp(w, 101) || write_child_memory(w, 101) || write_child_files(w, 101) || write_zombie(w))
		return -1;
	if (crib_write_note(w, "comment", "sample snapshot"))
		return -1;
	/* A record type from the future: ancillary, so readers skip it. */
	if (crib_writer_begin(w, SAMPLE_UNKNOWN_ANCILLARY) ||
	    crib_writer_put_uint(w, 1, 42) || crib_writer_put_text(w, 2, "from the future") ||
	    crib_writer_end(w))
		return -1;
	return write_dump_stats(w);
}

int sample_write(struct crib_writer *w, bool big)
{
	return sample_write_uid(w, big, 1000);
}

uint64_t sample_count(uint32_t type, bool big)
{
	switch (type) {
	case CRIB_REC_HEADER: return 1;
	case CRIB_REC_PROCESS: return 3;
	case CRIB_REC_THREAD: return 3;
	case CRIB_REC_SECCOMP_FILTER: return 2;
	case CRIB_REC_SECCOMP: return 3;
	case CRIB_REC_MM: return 2;
	case CRIB_REC_VMA: return 7;
	case CRIB_REC_PAGES: return big ? 4 : 3;
	case CRIB_REC_SHMEM: return 1;
	case CRIB_REC_FILE: return 19;
	case CRIB_REC_PIPE: return 3;
	case CRIB_REC_PIPE_DATA: return 1;
	case CRIB_REC_TIMERFD: return 1;
	case CRIB_REC_EPOLL_ITEM: return 2;
	case CRIB_REC_INOTIFY_WATCH: return 2;
	case CRIB_REC_FILE_LOCK: return 4;
	case CRIB_REC_PIDFD: return 2;
	case CRIB_REC_TTY: return 2;
	case CRIB_REC_GHOST: return 2;
	case CRIB_REC_GHOST_DATA: return 2;
	case CRIB_REC_SOCKET: return 3;
	case CRIB_REC_SOCKET_QUEUE: return 3;
	case CRIB_REC_SOCKET_FILTER: return 1;
	case CRIB_REC_SIGHAND: return 1;
	case CRIB_REC_SIGPENDING: return 1;
	case CRIB_REC_TIMERS: return 1;
	case CRIB_REC_NOTE: return 2;
	case CRIB_REC_DUMP_STATS: return 1;
	case SAMPLE_UNKNOWN_ANCILLARY: return 1;
	default: return 0;
	}
}

int sample_to_mem(bool big, int level, uint8_t **out, size_t *len)
{
	struct membuf mb = { 0 };
	struct crib_header hdr;
	struct crib_writer *w;

	sample_header(&hdr);
	w = crib_writer_open(-1, &hdr, MEMBUF_OPTS(&mb, level), NULL);
	if (!w)
		return -1;
	if (sample_write(w, big)) {
		crib_writer_abort(w);
		free(mb.data);
		return -1;
	}
	if (crib_writer_close(w, NULL)) {
		free(mb.data);
		return -1;
	}
	*out = mb.data;
	*len = mb.len;
	return 0;
}
