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
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

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
