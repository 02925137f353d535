// SPDX-License-Identifier: GPL-2.0
/*
 * A workload in seccomp sandboxes, which checks them itself on SIGUSR1:
 *
 *  - a child forked first runs in strict mode, echoing the bytes it reads
 *    from one pipe to another;
 *  - the process sets no_new_privs and installs filter A (logged), which
 *    fails sysfs(2) with errno 42, then starts two threads, which inherit
 *    it: "shared" and "own", which installs filter B of its own, failing
 *    ustat(2) with errno 43.
 *
 * The check asks each thread to make both calls, reads the modes and
 * filter counts in procfs, and tries a SECCOMP_FILTER_FLAG_TSYNC install
 * from the leader: it must fail on "own", whose filter B the leader does
 * not run under, and not on "shared", which only shares A with it when A
 * is one filter object (as it was before a dump), not two alike.  Writes
 * "CHILD SHARED OWN" (the child's pid and the threads' ids) to
 * DIR/ready, and the check's report to DIR/check.
 *
 * Usage: seccomp DIR
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "selfcheck.h"

#define ERRNO_A	42
#define ERRNO_B	43

/* A filter failing system call @call with @err, allowing the others. */
#define FAIL_CALL(call, err) {						\
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)), \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 3),	\
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)), \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (call), 0, 1),		\
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (err)),		\
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),			\
}

static struct sock_filter filter_a[] = FAIL_CALL(__NR_sysfs, ERRNO_A);
static struct sock_filter filter_b[] = FAIL_CALL(__NR_ustat, ERRNO_B);
static struct sock_filter allow_all[] = { BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };

static long install(struct sock_filter *insns, unsigned short n, unsigned int flags)
{
	struct sock_fprog prog = { .len = n, .filter = insns };

	return syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
}

/* A thread that makes both calls whenever asked, and says what they did. */
struct probe_thread {
	const char *name;
	struct sock_filter *own;	/* its own filter, or NULL */
	unsigned short n_own;
	pid_t tid;
	int ask[2], answer[2];
	int errno_sysfs, errno_ustat;
};

/* The errno of @nr with arguments that make it fail at once, 0 if it did not. */
static int call_errno(long nr)
{
	errno = 0;
	if (nr == __NR_sysfs)
		return syscall(nr, 99, 0, 0) < 0 ? errno : 0;
	return syscall(nr, 0, NULL) < 0 ? errno : 0;
}

static void *probe_main(void *arg)
{
	struct probe_thread *p = arg;
	char c;

	if (p->own && install(p->own, p->n_own, 0))
		return NULL;
	p->tid = (pid_t)syscall(__NR_gettid);
	if (write(p->answer[1], "r", 1) != 1)
		return NULL;
	while (read(p->ask[0], &c, 1) == 1) {
		p->errno_sysfs = call_errno(__NR_sysfs);
		p->errno_ustat = call_errno(__NR_ustat);
		if (write(p->answer[1], "a", 1) != 1)
			break;
	}
	return NULL;
}

static int start_probe(struct probe_thread *p)
{
	pthread_t th;
	char c;

	if (pipe(p->ask) || pipe(p->answer) || pthread_create(&th, NULL, probe_main, p))
		return -1;
	return read(p->answer[0], &c, 1) == 1 ? 0 : -1;
}

/* The strict child: echoes bytes until its pipe closes, with read and write only. */
static pid_t start_strict_child(int to_child[2], int from_child[2])
{
	pid_t pid;
	char c;

	if (pipe(to_child) || pipe(from_child))
		return -1;
	pid = fork();
	if (pid) {
		close(to_child[0]);
		close(from_child[1]);
		return pid;
	}
	/* It ends when the workload does: no write end of its pipe is left open. */
	close(to_child[1]);
	close(from_child[0]);
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT))
		_exit(1);
	while (read(to_child[0], &c, 1) == 1)
		if (write(from_child[1], &c, 1) != 1)
			break;
	syscall(__NR_exit, 0);
	return 0;
}

/* "Seccomp:" and "Seccomp_filters:" of /proc/PID/task/TID/status. */
static int read_seccomp_status(pid_t pid, pid_t tid, int *mode, int *filters)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	*mode = *filters = -1;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "Seccomp: %d", mode);
		sscanf(line, "Seccomp_filters: %d", filters);
	}
	fclose(f);
	return 0;
}

static void check_status(struct check_report *r, pid_t pid, pid_t tid, const char *who,
			 int want_mode, int want_filters)
{
	int mode, filters;

	if (read_seccomp_status(pid, tid, &mode, &filters))
		check_fail(r, "%s: no status", who);
	else if (mode != want_mode || filters != want_filters)
		check_fail(r, "%s: seccomp mode %d with %d filters, not %d with %d", who, mode,
			   filters, want_mode, want_filters);
}

static void check_probe(struct check_report *r, struct probe_thread *p, int want_ustat)
{
	char c;

	if (write(p->ask[1], "q", 1) != 1 || read(p->answer[0], &c, 1) != 1) {
		check_fail(r, "thread %s: no answer", p->name);
		return;
	}
	if (p->errno_sysfs != ERRNO_A)
		check_fail(r, "thread %s: sysfs failed with %d, not %d (filter A)", p->name,
			   p->errno_sysfs, ERRNO_A);
	if ((p->errno_ustat == ERRNO_B) != (want_ustat == ERRNO_B))
		check_fail(r, "thread %s: ustat failed with %d (filter B is %s)", p->name,
			   p->errno_ustat, want_ustat == ERRNO_B ? "its own" : "not its");
	check_status(r, getpid(), p->tid, p->name, SECCOMP_MODE_FILTER, p->own ? 2 : 1);
}

static void check_strict_child(struct check_report *r, pid_t child, int to, int from)
{
	struct pollfd pfd = { .fd = from, .events = POLLIN };
	char c = 'p';

	if (write(to, &c, 1) != 1 || poll(&pfd, 1, 30000) != 1 || read(from, &c, 1) != 1 ||
	    c != 'p')
		check_fail(r, "the strict child does not echo");
	check_status(r, child, child, "the strict child", SECCOMP_MODE_STRICT, 0);
}

int main(int argc, char **argv)
{
	struct probe_thread shared = { .name = "shared" };
	struct probe_thread own = { .name = "own", .own = filter_b,
				    .n_own = sizeof(filter_b) / sizeof(filter_b[0]) };
	int to_child[2], from_child[2];
	struct check_report r;
	char line[64], path[1024];
	pid_t child;
	long ret;

	if (argc != 2) {
		fprintf(stderr, "usage: seccomp DIR\n");
		return 2;
	}
	check_on_request();
	child = start_strict_child(to_child, from_child);
	if (child < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    install(filter_a, sizeof(filter_a) / sizeof(filter_a[0]), SECCOMP_FILTER_FLAG_LOG) ||
	    start_probe(&shared) || start_probe(&own)) {
		perror("seccomp: setting up");
		return 1;
	}
	snprintf(line, sizeof(line), "%d %d %d\n", (int)child, (int)shared.tid, (int)own.tid);
	snprintf(path, sizeof(path), "%s/ready", argv[1]);
	if (write_ready(path, line))
		return 1;
	for (;;) {
		check_wait_for_request();
		check_requested = 0;
		memset(&r, 0, sizeof(r));
		if (call_errno(__NR_sysfs) != ERRNO_A)
			check_fail(&r, "leader: sysfs not failed by filter A");
		check_status(&r, getpid(), getpid(), "leader", SECCOMP_MODE_FILTER, 1);
		check_probe(&r, &shared, 0);
		check_probe(&r, &own, ERRNO_B);
		ret = install(allow_all, 1, SECCOMP_FILTER_FLAG_TSYNC);
		if (ret != own.tid)
			check_fail(&r, "a TSYNC install returned %ld, not thread own's id %d "
				   "(shared: %d)", ret, (int)own.tid, (int)shared.tid);
		check_strict_child(&r, child, to_child[1], from_child[0]);
		if (check_write(&r, argv[1]))
			return 1;
	}
}
