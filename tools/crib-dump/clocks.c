// SPDX-License-Identifier: GPL-2.0
/*
 * The tree's clocks (spec §5.6): CLOCK_MONOTONIC and CLOCK_BOOTTIME as its
 * processes see them, read once every process is stopped, and the boot
 * they belong to.  crib-restore makes a tree restored in another boot go
 * on from these values (its clocks.c).
 *
 * Our own clocks are shifted by the offsets of the root's time namespace,
 * less those of ours, both from /proc/PID/timens_offsets.  That file shows
 * the namespace a process's next children get, which is its own unless it
 * is between unshare(CLONE_NEWTIME) and its first fork, which
 * namespaces.c refuses.  The root's offsets go into the snapshot too, so
 * that a restore in the same boot can make the same namespace again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "crib-dump.h"

#define NSEC_PER_SEC	1000000000LL

/* One value of the tree's clocks per snapshot: refuse a tree that has two. */
static int check_one_time_ns(struct dump_tree *tree)
{
	const struct dump_job *root = tree_root(tree);
	uint32_t want = root->task.ns.ino[DUMP_NS_TIME];

	for (size_t i = 0; i < tree->procs.n; i++) {
		const struct dump_job *job = tree->procs.items[i];

		if (job->zombie)
			continue;
		if (job->task.ns.ino[DUMP_NS_TIME] != want)
			return tool_fail(&tree->err, 0, "process %d is in another time namespace "
					 "(time:[%u]) than %d (time:[%u]): a snapshot holds one "
					 "value of the clocks", (int)job->pid,
					 job->task.ns.ino[DUMP_NS_TIME], (int)root->pid, want);
	}
	return 0;
}

static uint64_t clock_ns(clockid_t clock, int64_t shift)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)((int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec + shift);
}

int clocks_read(struct dump_tree *tree, struct dump_clocks *c)
{
	struct timens_offsets theirs, ours;
	char root[16];

	snprintf(root, sizeof(root), "%d", (int)tree_root(tree)->pid);
	if (check_one_time_ns(tree) || timens_offsets_read(root, &theirs, &tree->err) ||
	    timens_offsets_read("self", &ours, &tree->err) ||
	    boot_id_read(c->boot_id, sizeof(c->boot_id), &tree->err))
		return -1;
	c->monotonic_ns = clock_ns(CLOCK_MONOTONIC, theirs.monotonic_ns - ours.monotonic_ns);
	c->boottime_ns = clock_ns(CLOCK_BOOTTIME, theirs.boottime_ns - ours.boottime_ns);
	c->timens_monotonic_ns = theirs.monotonic_ns;
	c->timens_boottime_ns = theirs.boottime_ns;
	return 0;
}
