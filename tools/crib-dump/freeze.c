// SPDX-License-Identifier: GPL-2.0
/*
 * Freezing a process: every thread is seized with ptrace and interrupted,
 * so it sits in a ptrace stop for the whole dump and can neither run nor
 * change its address space.  ptrace rather than the cgroup freezer: it
 * needs no cgroup of the process's own, and the registers have to be read
 * through ptrace anyway.
 *
 * New threads can appear while the first ones are being stopped, so the
 * thread list is read again until a pass finds nobody new; a stopped
 * thread cannot clone, so this ends.
 *
 * A thread ptrace refuses (without CAP_SYS_PTRACE, one whose ids are not
 * crib-dump's, or whose process is not dumpable) stops the dump with the
 * reason, read from procfs, rather than a bare EPERM.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crib-dump.h"
#include "kabi.h"

static bool is_frozen(const struct freezer *fz, pid_t tid)
{
	size_t i;

	for (i = 0; i < fz->threads.n; i++)
		if (fz->threads.items[i].tid == tid)
			return true;
	return false;
}

static int add_thread(struct freezer *fz, pid_t tid, int pending_signal)
{
	struct frozen_thread *t = array_push(&fz->threads);

	if (!t)
		return -ENOMEM;
	t->tid = tid;
	t->pending_signal = pending_signal;
	return 0;
}

/* The "Uid:" or "Gid:" line of /proc/@pid/task/@tid/status, without its name. */
static int status_ids(pid_t pid, pid_t tid, const char *key, char *buf, size_t size)
{
	char path[64], line[256];
	size_t len = strlen(key);
	int ret = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, len))
			continue;
		line[strcspn(line, "\n")] = '\0';
		for (char *c = line; *c; c++)
			if (*c == '\t')
				*c = ' ';
		snprintf(buf, size, "%s", line + len + strspn(line + len, " "));
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

/* Whether all four ids of an "Uid:"/"Gid:" line are @id. */
static bool ids_all(const char *ids, unsigned long id)
{
	unsigned long v[4];

	return sscanf(ids, "%lu %lu %lu %lu", &v[0], &v[1], &v[2], &v[3]) == 4 &&
	       v[0] == id && v[1] == id && v[2] == id && v[3] == id;
}

/* Whether crib-dump has CAP_SYS_PTRACE, which lets it attach to any thread. */
static bool may_ptrace_any(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = { { 0 } };

	if (syscall(SYS_capget, &hdr, data))
		return false;
	return data[CAP_SYS_PTRACE / 32].effective & (1u << (CAP_SYS_PTRACE % 32));
}

/*
 * Why ptrace refused @tid (kernel/ptrace.c, __ptrace_may_access()): its
 * ids are not all crib-dump's real ones, or its process is not dumpable,
 * and crib-dump lacks CAP_SYS_PTRACE; or a security module said no.
 */
static int refuse_attach(struct freezer *fz, pid_t tid, int errnum, struct tool_error *err)
{
	char uids[128] = "?", gids[128] = "?", leader[128] = "?", other[160] = "";

	if (may_ptrace_any())
		return tool_fail(err, errnum, "process %d, thread %d: ptrace refuses to attach "
				 "although crib-dump has CAP_SYS_PTRACE (a security module?)",
				 (int)fz->pid, (int)tid);
	status_ids(fz->pid, tid, "Uid:", uids, sizeof(uids));
	status_ids(fz->pid, tid, "Gid:", gids, sizeof(gids));
	status_ids(fz->pid, fz->pid, "Uid:", leader, sizeof(leader));
	if (strcmp(uids, leader))
		snprintf(other, sizeof(other), ", not its leader's uids %s,", leader);
	if (!ids_all(uids, getuid()) || !ids_all(gids, getgid()))
		return tool_fail(err, errnum, "process %d, thread %d: it runs with uids %s and "
				 "gids %s%s not crib-dump's %d and %d, and crib-dump lacks "
				 "CAP_SYS_PTRACE to attach to it", (int)fz->pid, (int)tid, uids,
				 gids, other, (int)getuid(), (int)getgid());
	return tool_fail(err, errnum, "process %d, thread %d: the process is not dumpable "
			 "(prctl(PR_SET_DUMPABLE), or a thread changed its ids), and crib-dump "
			 "lacks CAP_SYS_PTRACE to attach to it", (int)fz->pid, (int)tid);
}

/*
 * Seize @tid and wait until it is in a stop.  Returns 0, 1 when the
 * thread is already gone, or -1 with @err set.
 */
static int stop_thread(struct freezer *fz, pid_t tid, struct tool_error *err)
{
	int status, sig = 0;

	if (ptrace(PTRACE_SEIZE, tid, 0, 0)) {
		if (errno == ESRCH)
			return 1;
		if (errno == EPERM)
			return refuse_attach(fz, tid, errno, err);
		return tool_fail(err, errno, "cannot attach to thread %d of process %d", (int)tid,
				 (int)fz->pid);
	}
	if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) && errno != ESRCH)
		goto detach;
	if (waitpid(tid, &status, __WALL) != tid)
		goto detach;
	if (!WIFSTOPPED(status))
		return 1;	/* it exited (killed) before it stopped */
	/*
	 * A signal-delivery-stop instead of our interrupt's event stop: the
	 * thread is stopped all the same; the signal goes back on release.
	 */
	if (status >> 16 != PTRACE_EVENT_STOP)
		sig = WSTOPSIG(status);
	if (add_thread(fz, tid, sig)) {
		ptrace(PTRACE_DETACH, tid, 0, sig);
		return tool_fail(err, 0, "out of memory");
	}
	return 0;
detach:
	tool_fail(err, errno, "cannot stop thread %d", (int)tid);
	ptrace(PTRACE_DETACH, tid, 0, 0);
	return -1;
}

/* One pass over /proc/PID/task; returns how many threads it stopped, or -1. */
static int stop_new_threads(struct freezer *fz, struct tool_error *err)
{
	struct dirent *de;
	char path[64];
	int stopped = 0, ret;
	pid_t tid;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)fz->pid);
	dir = opendir(path);
	if (!dir && errno == ENOENT)
		return tool_fail(err, 0, "no process with pid %d", (int)fz->pid);
	if (!dir)
		return tool_fail(err, errno, "cannot list the threads of %d", (int)fz->pid);
	while ((de = readdir(dir))) {
		tid = (pid_t)strtol(de->d_name, NULL, 10);
		if (tid <= 0 || is_frozen(fz, tid))
			continue;
		ret = stop_thread(fz, tid, err);
		if (ret < 0) {
			stopped = -1;
			break;
		}
		if (ret == 0)
			stopped++;
	}
	closedir(dir);
	return stopped;
}

static int leader_first(const void *a, const void *b, void *pid)
{
	const struct frozen_thread *x = a, *y = b;
	pid_t leader = *(pid_t *)pid;

	if (x->tid == leader || y->tid == leader)
		return x->tid == leader ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

int freeze_process(struct freezer *fz, pid_t pid, struct tool_error *err)
{
	int ret;

	memset(fz, 0, sizeof(*fz));
	fz->pid = pid;
	do {
		ret = stop_new_threads(fz, err);
		if (ret < 0)
			goto fail;
	} while (ret > 0);
	if (!is_frozen(fz, pid)) {
		tool_fail(err, 0, "no process with pid %d", (int)pid);
		goto fail;
	}
	qsort_r(fz->threads.items, fz->threads.n, sizeof(*fz->threads.items), leader_first, &pid);
	return 0;
fail:
	freeze_release(fz);
	return -1;
}

/*
 * PF_EXITING is set as soon as a process starts to exit, before its
 * memory and files go away.
 */
bool freeze_process_gone(const struct freezer *fz)
{
	struct proc_stat st;

	return proc_stat_read(fz->pid, &st) || st.state == 'Z' || st.state == 'X' ||
	       (st.flags & PF_EXITING);
}

void freeze_release(struct freezer *fz)
{
	size_t i;

	for (i = 0; i < fz->threads.n; i++)
		ptrace(PTRACE_DETACH, fz->threads.items[i].tid, 0,
		       fz->threads.items[i].pending_signal);
	array_free(&fz->threads);
}

void freeze_kill(struct freezer *fz)
{
	int status;
	pid_t tid;
	size_t i;

	kill(fz->pid, SIGKILL);
	/*
	 * Collect the exit of every traced thread, so none is left behind:
	 * the other threads first, as the leader's exit is only reported
	 * once they are all reaped.
	 */
	for (i = fz->threads.n; i-- > 0;) {
		tid = fz->threads.items[i].tid;
		while (waitpid(tid, &status, __WALL) == tid && !WIFEXITED(status) &&
		       !WIFSIGNALED(status))
			;
	}
	array_free(&fz->threads);
}
