// SPDX-License-Identifier: GPL-2.0
/*
 * A workload with the thread and process attributes only the thread itself
 * can read back, which it checks itself on SIGUSR1:
 *
 *  - its address space registered with membarrier(2) for global
 *    expedited, private expedited and private expedited sync-core
 *    barriers (not rseq);
 *  - every thread runs SCHED_BATCH at nice 3 with SCHED_RESET_ON_FORK,
 *    which each sets for itself (a thread made by one that has it would
 *    not);
 *  - the leader has SECBIT_NOROOT; the second thread, "locked", has
 *    SECBIT_KEEP_CAPS and SECBIT_NO_CAP_AMBIENT_RAISE with both their lock
 *    bits (CAP_NET_BIND_SERVICE raised ambient before them, and
 *    CAP_SYS_BOOT dropped from its bounding set), the best-effort I/O
 *    priority 6, and its speculative store bypass
 *    disabled until exec and indirect branch speculation force-disabled.
 *    Where the kernel or the CPU offers no I/O priority or speculation
 *    control, it says so in the ready file and checks that it still has
 *    none.
 *
 * The check reads back each thread's own (PR_CAPBSET_READ,
 * PR_CAP_AMBIENT_IS_SET, PR_GET_SECUREBITS,
 * sched_getscheduler, getpriority, ioprio_get, PR_GET_SPECULATION_CTRL),
 * the registrations (MEMBARRIER_CMD_GET_REGISTRATIONS) and whether a
 * private expedited barrier is allowed.  Writes "LOCKED IOPRIO SPEC" (the
 * second thread's id, and "ioprio"/"spec" or "-" for what could be set)
 * to DIR/ready, the check's report to DIR/check.
 *
 * Usage: threadattrs DIR
 */
#include <errno.h>
#include <linux/capability.h>
#include <linux/membarrier.h>
#include <linux/securebits.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "selfcheck.h"

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK	0x40000000
#endif
#ifndef MEMBARRIER_CMD_GET_REGISTRATIONS
#define MEMBARRIER_CMD_GET_REGISTRATIONS	(1 << 9)
#endif
#define IOPRIO_WHO_PROCESS	1
#define IOPRIO_BE_6		(2 << 13 | 6)	/* IOPRIO_CLASS_BE, level 6 */
#define NICE			3

#define MEMBARRIERS	(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED | \
			 MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED | \
			 MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE)
#define LEADER_BITS	SECBIT_NOROOT
#define LOCKED_BITS	(SECBIT_KEEP_CAPS | SECBIT_KEEP_CAPS_LOCKED | \
			 SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED)

/* What a thread should read back of itself. */
struct want {
	const char *who;
	long securebits;
	long ioprio;		/* 0: none set, not checked */
	long store_bypass;	/* PR_GET_SPECULATION_CTRL; -1: not checked */
	long indirect_branch;
	bool own_caps;		/* CAP_SYS_BOOT dropped from its bounding set,
				   CAP_NET_BIND_SERVICE ambient */
};

/* The second thread: set up, then a check whenever asked. */
struct locked_thread {
	pid_t tid;
	int ask[2], answer[2];
	struct want want;
	char settable[16];	/* "ioprio spec", "-" for each it could not set */
	struct check_report report;
};

static long membarrier(int cmd)
{
	return syscall(__NR_membarrier, cmd, 0, 0);
}

static int reset_on_fork(void)
{
	struct sched_param sp = { 0 };

	return sched_setscheduler(0, SCHED_BATCH | SCHED_RESET_ON_FORK, &sp);
}

/* The speculation controls as PR_GET_SPECULATION_CTRL reports them, -1 on error. */
static long spec_ctrl(int which)
{
	return prctl(PR_GET_SPECULATION_CTRL, which, 0, 0, 0);
}

/* Set them; 0 when the CPU or its mitigations offer no control for prctl. */
static int set_spec_ctrl(struct want *w)
{
	if (prctl(PR_SET_SPECULATION_CTRL, PR_SPEC_STORE_BYPASS, PR_SPEC_DISABLE_NOEXEC, 0, 0) ||
	    prctl(PR_SET_SPECULATION_CTRL, PR_SPEC_INDIRECT_BRANCH, PR_SPEC_FORCE_DISABLE, 0, 0)) {
		w->store_bypass = spec_ctrl(PR_SPEC_STORE_BYPASS);
		w->indirect_branch = spec_ctrl(PR_SPEC_INDIRECT_BRANCH);
		return errno == ENXIO || errno == EPERM ? 0 : -1;
	}
	w->store_bypass = PR_SPEC_PRCTL | PR_SPEC_DISABLE_NOEXEC;
	w->indirect_branch = PR_SPEC_PRCTL | PR_SPEC_FORCE_DISABLE;
	return 1;
}

/* Set the I/O priority; 0 when the kernel has none (no block layer). */
static int set_ioprio(struct want *w)
{
	if (syscall(__NR_ioprio_set, IOPRIO_WHO_PROCESS, 0, IOPRIO_BE_6))
		return errno == ENOSYS ? 0 : -1;
	w->ioprio = IOPRIO_BE_6;
	return 1;
}

/*
 * The bounding set without CAP_SYS_BOOT, and CAP_NET_BIND_SERVICE
 * inheritable and ambient: before securebits forbid raising it.
 */
static int set_own_caps(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (prctl(PR_CAPBSET_DROP, CAP_SYS_BOOT, 0, 0, 0) || syscall(SYS_capget, &h, d))
		return -1;
	d[CAP_NET_BIND_SERVICE / 32].inheritable |= 1u << (CAP_NET_BIND_SERVICE % 32);
	if (syscall(SYS_capset, &h, d))
		return -1;
	return prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_BIND_SERVICE, 0, 0);
}

static void check_caps(struct check_report *r, const struct want *w)
{
	long bounded = prctl(PR_CAPBSET_READ, CAP_SYS_BOOT, 0, 0, 0);
	long ambient = prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_NET_BIND_SERVICE, 0, 0);

	if (bounded != !w->own_caps)
		check_fail(r, "%s: CAP_SYS_BOOT %s the bounding set", w->who,
			   bounded ? "in" : "not in");
	if (ambient != w->own_caps)
		check_fail(r, "%s: CAP_NET_BIND_SERVICE %s ambient", w->who,
			   ambient ? "is" : "is not");
}

static void check_thread(struct check_report *r, const struct want *w)
{
	long v;

	check_caps(r, w);
	v = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
	if (v != w->securebits)
		check_fail(r, "%s: securebits %#lx, not %#lx", w->who, v, w->securebits);
	v = sched_getscheduler(0);
	if (v != (SCHED_BATCH | SCHED_RESET_ON_FORK))
		check_fail(r, "%s: policy %#lx, not SCHED_BATCH with SCHED_RESET_ON_FORK",
			   w->who, v);
	errno = 0;
	v = getpriority(PRIO_PROCESS, 0);
	if (v != NICE || errno)
		check_fail(r, "%s: nice %ld, not %d", w->who, v, NICE);
	v = syscall(__NR_ioprio_get, IOPRIO_WHO_PROCESS, 0);
	if (w->ioprio && v != w->ioprio)
		check_fail(r, "%s: I/O priority %#lx, not %#lx", w->who, v, w->ioprio);
	v = spec_ctrl(PR_SPEC_STORE_BYPASS);
	if (w->store_bypass != -1 && v != w->store_bypass)
		check_fail(r, "%s: store bypass control %#lx, not %#lx", w->who, v,
			   w->store_bypass);
	v = spec_ctrl(PR_SPEC_INDIRECT_BRANCH);
	if (w->indirect_branch != -1 && v != w->indirect_branch)
		check_fail(r, "%s: indirect branch control %#lx, not %#lx", w->who, v,
			   w->indirect_branch);
}

static void *locked_main(void *arg)
{
	struct locked_thread *l = arg;
	char c = 'r';
	int io, spec;

	l->tid = (pid_t)syscall(__NR_gettid);
	io = set_ioprio(&l->want);
	spec = set_spec_ctrl(&l->want);
	if (io < 0 || spec < 0 || reset_on_fork() || set_own_caps() ||
	    prctl(PR_SET_SECUREBITS, LOCKED_BITS, 0, 0, 0)) {
		perror("threadattrs: setting up the second thread");
		c = 'f';
	}
	snprintf(l->settable, sizeof(l->settable), "%s %s", io ? "ioprio" : "-",
		 spec ? "spec" : "-");
	if (write(l->answer[1], &c, 1) != 1 || c != 'r')
		return NULL;
	while (read(l->ask[0], &c, 1) == 1) {
		memset(&l->report, 0, sizeof(l->report));
		check_thread(&l->report, &l->want);
		if (write(l->answer[1], "a", 1) != 1)
			break;
	}
	return NULL;
}

static int start_locked(struct locked_thread *l)
{
	pthread_t th;
	char c;

	if (pipe(l->ask) || pipe(l->answer) || pthread_create(&th, NULL, locked_main, l))
		return -1;
	return read(l->answer[0], &c, 1) == 1 && c == 'r' ? 0 : -1;
}

static void check_process(struct check_report *r, struct locked_thread *l,
			  const struct want *leader)
{
	char c;
	long v;

	v = membarrier(MEMBARRIER_CMD_GET_REGISTRATIONS);
	if (v != MEMBARRIERS)
		check_fail(r, "membarrier registrations %#lx, not %#x", v, MEMBARRIERS);
	if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED))
		check_fail(r, "a private expedited barrier fails (%s)", strerror(errno));
	check_thread(r, leader);
	if (write(l->ask[1], "q", 1) != 1 || read(l->answer[0], &c, 1) != 1)
		check_fail(r, "locked: no answer");
	else if (l->report.text[0])
		check_fail(r, "%s", l->report.text);
}

int main(int argc, char **argv)
{
	struct want leader = { .who = "leader", .securebits = LEADER_BITS,
			       .store_bypass = -1, .indirect_branch = -1 };
	struct locked_thread locked = { .want = { .who = "locked", .securebits = LOCKED_BITS,
						  .own_caps = true,
						  .store_bypass = -1, .indirect_branch = -1 } };
	struct check_report r;
	char line[96], path[1024];

	if (argc != 2) {
		fprintf(stderr, "usage: threadattrs DIR\n");
		return 2;
	}
	check_on_request();
	/* The leader's controls are as it started: checked, not set. */
	leader.store_bypass = spec_ctrl(PR_SPEC_STORE_BYPASS);
	leader.indirect_branch = spec_ctrl(PR_SPEC_INDIRECT_BRANCH);
	if (membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) ||
	    membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) ||
	    membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE) ||
	    setpriority(PRIO_PROCESS, 0, NICE) || start_locked(&locked) || reset_on_fork() ||
	    prctl(PR_SET_SECUREBITS, LEADER_BITS, 0, 0, 0)) {
		perror("threadattrs: setting up");
		return 1;
	}
	snprintf(line, sizeof(line), "%d %s\n", (int)locked.tid, locked.settable);
	snprintf(path, sizeof(path), "%s/ready", argv[1]);
	if (write_ready(path, line))
		return 1;
	for (;;) {
		check_wait_for_request();
		check_requested = 0;
		memset(&r, 0, sizeof(r));
		check_process(&r, &locked, &leader);
		if (check_write(&r, argv[1]))
			return 1;
	}
}
