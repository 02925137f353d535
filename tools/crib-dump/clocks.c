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
 * is between unshare(CLONE_NEWTIME) and its first fork; a stopped process
 * of the tree is not.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "crib-dump.h"

#define NSEC_PER_SEC	1000000000LL

struct time_offsets {
	int64_t monotonic_ns;
	int64_t boottime_ns;
};

/* The clock named by a line of timens_offsets: a name or a clock id. */
static int offset_clock(const char *name)
{
	if (!strcmp(name, "monotonic") || !strcmp(name, "1"))
		return CLOCK_MONOTONIC;
	if (!strcmp(name, "boottime") || !strcmp(name, "7"))
		return CLOCK_BOOTTIME;
	return -1;
}

/*
 * The offsets of @pid's time namespace ("self" for ours); all zero on a
 * kernel without time namespaces.
 */
static int read_offsets(struct dump_tree *tree, const char *pid, struct time_offsets *off)
{
	char path[64], name[16];
	long long sec;
	long nsec;
	FILE *f;

	*off = (struct time_offsets){ 0 };
	snprintf(path, sizeof(path), "/proc/%s/timens_offsets", pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : tool_fail(&tree->err, errno, "cannot open %s", path);
	while (fscanf(f, "%15s %lld %ld", name, &sec, &nsec) == 3) {
		int64_t ns = (int64_t)sec * NSEC_PER_SEC + nsec;

		switch (offset_clock(name)) {
		case CLOCK_MONOTONIC:
			off->monotonic_ns = ns;
			break;
		case CLOCK_BOOTTIME:
			off->boottime_ns = ns;
			break;
		}
	}
	fclose(f);
	return 0;
}

/* The inode of @pid's time namespace; 0 without time namespaces. */
static int time_ns_of(struct dump_tree *tree, pid_t pid, ino_t *ino)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/ns/time", (int)pid);
	if (stat(path, &st)) {
		*ino = 0;
		return errno == ENOENT ? 0 : tool_fail(&tree->err, errno, "cannot stat %s", path);
	}
	*ino = st.st_ino;
	return 0;
}

/* One value of the tree's clocks per snapshot: refuse a tree that has two. */
static int check_one_time_ns(struct dump_tree *tree)
{
	pid_t root = tree_root(tree)->pid;
	ino_t want, ino;

	if (time_ns_of(tree, root, &want))
		return -1;
	for (size_t i = 0; i < tree->procs.n; i++) {
		const struct dump_job *job = tree->procs.items[i];

		if (job->zombie)
			continue;
		if (time_ns_of(tree, job->pid, &ino))
			return -1;
		if (ino != want)
			return tool_fail(&tree->err, 0, "process %d is in another time namespace "
					 "than %d: a snapshot holds one value of the clocks",
					 (int)job->pid, (int)root);
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
	struct time_offsets theirs, ours;
	char root[16];

	snprintf(root, sizeof(root), "%d", (int)tree_root(tree)->pid);
	if (check_one_time_ns(tree) || read_offsets(tree, root, &theirs) ||
	    read_offsets(tree, "self", &ours) ||
	    boot_id_read(c->boot_id, sizeof(c->boot_id), &tree->err))
		return -1;
	c->monotonic_ns = clock_ns(CLOCK_MONOTONIC, theirs.monotonic_ns - ours.monotonic_ns);
	c->boottime_ns = clock_ns(CLOCK_BOOTTIME, theirs.boottime_ns - ours.boottime_ns);
	return 0;
}
