// SPDX-License-Identifier: GPL-2.0
/*
 * Pidfds (spec §5.3, pidfd).  A pidfd is known by its name,
 * "anon_inode:[pidfd]" (6.12's pidfds live on pidfs and are S_IFREG, so
 * their type bits do not tell).  What it refers to is read from the "Pid:"
 * line of /proc/PID/fdinfo/FD: the PID (or, opened with PIDFD_THREAD, the
 * TID) in crib-dump's pid namespace, which is the tree's (namespaces.c),
 * or -1 once that process or thread has exited and been reaped.
 * PIDFD_THREAD is O_EXCL among the description's status flags.
 *
 * A pidfd of a process or thread of the tree is written as such, and so
 * is one of a reaped process (dead): a restore can make both again.  One
 * of a live process outside the tree is refused, naming the process, the
 * descriptor and its target: a restore could make a pidfd of that PID
 * only if the same process were still there, and a pidfd of another
 * process with its PID would be a different, wrong one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crib-dump.h"
#include "kabi.h"

#define PIDFD_THREAD_FLAG	O_EXCL	/* PIDFD_THREAD, as the file's flags keep it */

/* One pidfd descriptor of the process. */
struct held_pidfd {
	int fd;
	pid_t target;			/* PID or TID; -1: exited and reaped */
	bool thread;
};

struct pidfd_list {
	ARRAY(struct held_pidfd) items;
};

bool pidfd_is_pidfd(const char *path)
{
	return !strcmp(path, "anon_inode:[pidfd]");
}

/* The "Pid:" line of the descriptor's fdinfo. */
static int read_target(struct dump_job *job, int fd, pid_t *target)
{
	char name[64], line[128];
	bool found = false;
	long long pid;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/fdinfo/%d", (int)job->pid, fd);
	f = fopen(name, "re");
	if (!f)
		return tool_fail(&job->err, errno, "process %d, fd %d (pidfd): cannot read its "
				 "fdinfo", (int)job->pid, fd);
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "Pid:\t%lld", &pid) == 1;
	fclose(f);
	if (!found || pid < -1 || pid == 0)
		return tool_fail(&job->err, 0, "process %d, fd %d (pidfd): its fdinfo names no "
				 "process in crib-dump's pid namespace", (int)job->pid, fd);
	*target = (pid_t)pid;
	return 0;
}

int pidfd_read(struct dump_job *job, const struct dump_file_rec *k)
{
	struct held_pidfd *h;
	pid_t target = 0;

	if (read_target(job, k->fd, &target))
		return -1;
	if (!job->pidfds) {
		job->pidfds = calloc(1, sizeof(*job->pidfds));
		if (!job->pidfds)
			return tool_fail(&job->err, 0, "out of memory");
	}
	h = array_push(&job->pidfds->items);
	if (!h)
		return tool_fail(&job->err, 0, "out of memory");
	*h = (struct held_pidfd){ .fd = k->fd, .target = target,
				  .thread = !!(k->f_flags & PIDFD_THREAD_FLAG) };
	return 0;
}

int pidfd_check(struct dump_tree *tree)
{
	const struct held_pidfd *h;
	const struct dump_job *job;
	size_t i, j;

	for (i = 0; i < tree->procs.n; i++) {
		job = tree->procs.items[i];
		for (j = 0; job->pidfds && j < job->pidfds->items.n; j++) {
			h = &job->pidfds->items.items[j];
			if (h->target == -1 ||
			    tree_holds(tree, h->thread ? PIDTYPE_PID : PIDTYPE_TGID, h->target))
				continue;
			return tool_fail(&tree->err, 0, "process %d, fd %d (pidfd): it refers to "
					 "%s %d, which is outside the tree and has not exited: "
					 "a restore cannot make a pidfd that refers to that same "
					 "process again", (int)job->pid, h->fd,
					 h->thread ? "thread" : "process", (int)h->target);
		}
	}
	return 0;
}

int pidfd_write(struct dump_job *job)
{
	const struct held_pidfd *h;
	struct crib_pidfd p;
	size_t i;

	for (i = 0; job->pidfds && i < job->pidfds->items.n; i++) {
		h = &job->pidfds->items.items[i];
		p = (struct crib_pidfd){
			.pid = (uint64_t)job->pid, .fd = (uint64_t)h->fd,
			.target = h->target > 0 ? (uint64_t)h->target : 0,
			.dead = h->target == -1, .thread = h->thread,
		};
		if (crib_write_pidfd(job->writer, &p))
			return tool_fail(&job->err, 0, "writing the pidfd of fd %d: %s", h->fd,
					 crib_writer_error(job->writer)->msg);
	}
	return 0;
}

void pidfd_free(struct dump_job *job)
{
	if (!job->pidfds)
		return;
	array_free(&job->pidfds->items);
	free(job->pidfds);
	job->pidfds = NULL;
}
