// SPDX-License-Identifier: GPL-2.0
/*
 * What is checked before anything is created: that this machine can take
 * the snapshot (architecture, page size, kernel: check_header(), which
 * snapshot.c calls as soon as the header is read), that the restorer is
 * root, that the PIDs are free (tree.c), and, each by the file of its kind, that the sockets, event
 * files and inotify watches can be made, and that every directory, file
 * and mapping a process had is still there as it was (task.c, files.c,
 * mm.c).  A restore that would fail half-way is refused here, with the
 * reason, while nothing exists yet.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "check.h"
#include "events.h"
#include "files.h"
#include "inotify.h"
#include "locks.h"
#include "tty.h"
#include "mm.h"
#include "plan.h"
#include "sockets.h"
#include "task.h"
#include "timers.h"
#include "tree.h"

int check_header(const struct crib_header *h, struct tool_error *err)
{
	struct utsname u;

	if (uname(&u))
		return tool_fail(err, errno, "uname");
	if (strcmp(h->arch, "x86_64") || strcmp(u.machine, "x86_64"))
		return tool_fail(err, 0, "the snapshot is for %s and this machine is %s; "
				 "only x86_64 is supported", h->arch, u.machine);
	if (h->page_size != (uint64_t)sysconf(_SC_PAGESIZE))
		return tool_fail(err, 0, "the snapshot has %llu-byte pages, this machine %ld",
				 (unsigned long long)h->page_size, sysconf(_SC_PAGESIZE));
	/*
	 * The restored process keeps using the vDSO it had, whose code comes
	 * with the kernel; another kernel's would sit at other offsets.
	 */
	if (strcmp(h->kernel_release, u.release))
		return tool_fail(err, 0, "the snapshot was taken on kernel %s and this is %s: "
				 "its vDSO would not match", h->kernel_release, u.release);
	return 0;
}

/* What a process of the tree needs; a zombie needs nothing but its PID. */
static int check_process(const struct restore_tree *tree, const struct restore_plan *plan,
			 struct tool_error *err)
{
	size_t i;

	if (plan->proc.zombie)
		return 0;
	if (task_check_dirs(plan, err) || timers_check(plan, err))
		return -1;
	for (i = 0; i < plan->fds.n; i++)
		if (files_check(tree, plan, &plan->fds.items[i], err))
			return -1;
	for (i = 0; i < plan->vmas.n; i++)
		if (mm_check_vma(tree, &plan->vmas.items[i], err))
			return -1;
	return 0;
}

/* The sentence of @err says which process, when the tree has several. */
static int in_process(const struct restore_tree *tree, const struct restore_plan *plan,
		      struct tool_error *err)
{
	char text[sizeof(err->msg)];

	if (tree->procs.n > 1) {
		snprintf(text, sizeof(text), "process %llu: %.*s",
			 (unsigned long long)plan->proc.pid, (int)sizeof(text) - 48, err->msg);
		memcpy(err->msg, text, sizeof(err->msg));
	}
	return -1;
}

int plan_check(const struct restore_tree *tree, struct tool_error *err)
{
	size_t i;

	/* PIDs (clone3 set_tid), credentials, TCP repair: root's alone */
	if (geteuid())
		return tool_fail(err, 0, "restoring needs root: it sets PIDs, credentials and "
				 "sockets' state, which only root may");
	/* the header was checked as it was read (plan_read()) */
	if (tree_check_pids(tree, err) || sockets_check(tree, err) ||
	    events_check_items(tree, err) || inotify_check(tree, err) ||
	    locks_check(tree, err) || tty_check(tree, err))
		return -1;
	for (i = 0; i < tree->procs.n; i++)
		if (check_process(tree, tree->procs.items[i], err))
			return in_process(tree, tree->procs.items[i], err);
	return 0;
}
