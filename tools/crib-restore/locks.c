// SPDX-License-Identifier: GPL-2.0
/*
 * File locks and leases (spec §5.3, file_lock), taken again by the
 * restored process itself once its descriptors are in place and before
 * its restorer runs: a POSIX lock belongs to the process's descriptor
 * table (F_SETLK there makes it the process's, with its PID), an OFD
 * lock, a flock() and a lease to the description (taken once, through
 * the descriptor the snapshot lists it under; every descriptor sharing
 * the description, in any process, then holds it).
 *
 * Nothing waits: a lock someone else holds now is a conflict that fails
 * the restore, naming the process, the descriptor and the range, rather
 * than two processes both believing they hold it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>

#include "locks.h"
#include "plan.h"

int locks_take_record(struct restore_tree *tree, const struct crib_file_lock *l,
		      struct tool_error *err)
{
	struct crib_file_lock *slot = array_push(&tree->file_locks);

	if (!slot)
		return tool_fail(err, 0, "out of memory");
	*slot = *l;
	return 0;
}

void locks_free(struct restore_tree *tree)
{
	array_free(&tree->file_locks);
}

static const char *kind_name(uint64_t kind)
{
	static const char *const names[] = { "POSIX", "OFD" };

	return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "unknown";
}

/* "POSIX write lock on bytes 0-99 of" and the like, into @buf. */
static void describe(const struct crib_file_lock *l, char *buf, size_t size)
{
	const char *type = l->type == CRIB_LOCK_WRITE ? "write" : "read";

	if (l->kind == CRIB_LOCK_FLOCK)
		snprintf(buf, size, "%s flock() lock", type);
	else if (l->kind == CRIB_LOCK_LEASE)
		snprintf(buf, size, "%s lease", type);
	else if (l->len)
		snprintf(buf, size, "%s %s lock on bytes %llu-%llu", kind_name(l->kind), type,
			 (unsigned long long)l->start,
			 (unsigned long long)(l->start + l->len - 1));
	else
		snprintf(buf, size, "%s %s lock on bytes %llu-EOF", kind_name(l->kind), type,
			 (unsigned long long)l->start);
}

int locks_check(const struct restore_tree *tree, struct tool_error *err)
{
	const struct crib_file_lock *l;
	size_t i;

	for (i = 0; i < tree->file_locks.n; i++) {
		l = &tree->file_locks.items[i];
		if (!plan_find_fd(tree, l->pid, l->fd))
			return tool_fail(err, 0, "process %llu, fd %llu: a lock on a descriptor "
					 "the snapshot does not have", (unsigned long long)l->pid,
					 (unsigned long long)l->fd);
		if (l->kind > CRIB_LOCK_LEASE || l->type > CRIB_LOCK_WRITE ||
		    l->start > INT64_MAX || l->len > INT64_MAX ||
		    l->start + l->len > (uint64_t)INT64_MAX + 1)
			return tool_fail(err, 0, "process %llu, fd %llu: a lock no kernel takes "
					 "(kind %llu, type %llu)", (unsigned long long)l->pid,
					 (unsigned long long)l->fd, (unsigned long long)l->kind,
					 (unsigned long long)l->type);
	}
	return 0;
}

/* The one call that takes @l through @fd: 0, or -1 with errno. */
static int take_one(int fd, const struct crib_file_lock *l)
{
	short type = l->type == CRIB_LOCK_WRITE ? F_WRLCK : F_RDLCK;
	struct flock fl = {
		.l_type = type, .l_whence = SEEK_SET,
		.l_start = (off_t)l->start, .l_len = (off_t)l->len,
	};

	switch (l->kind) {
	case CRIB_LOCK_POSIX:
		return fcntl(fd, F_SETLK, &fl);
	case CRIB_LOCK_OFD:
		return fcntl(fd, F_OFD_SETLK, &fl);	/* l_pid 0, as it must be */
	case CRIB_LOCK_FLOCK:
		return flock(fd, (l->type == CRIB_LOCK_WRITE ? LOCK_EX : LOCK_SH) | LOCK_NB);
	default:
		return fcntl(fd, F_SETLEASE, type);
	}
}

int locks_take(const struct restore_tree *tree, const struct restore_plan *plan,
	       struct tool_error *err)
{
	const struct crib_file_lock *l;
	const struct plan_fd *pf;
	const char *path;
	char what[96];
	size_t i;

	for (i = 0; i < tree->file_locks.n; i++) {
		l = &tree->file_locks.items[i];
		if (l->pid != plan->proc.pid || !take_one((int)l->fd, l))
			continue;
		pf = plan_find_fd(tree, l->pid, l->fd);
		path = pf ? tree->descs.items[pf->desc].file->path : NULL;
		describe(l, what, sizeof(what));
		if (errno == EAGAIN || errno == EACCES)
			return tool_fail(err, 0, "process %llu, fd %llu (%s): cannot take its %s: "
					 "another holds a conflicting one now",
					 (unsigned long long)l->pid, (unsigned long long)l->fd,
					 path && path[0] ? path : "no path", what);
		return tool_fail(err, errno, "process %llu, fd %llu (%s): cannot take its %s",
				 (unsigned long long)l->pid, (unsigned long long)l->fd,
				 path && path[0] ? path : "no path", what);
	}
	return 0;
}
