// SPDX-License-Identifier: GPL-2.0
/*
 * Inotify instances, made by files_make() (through events_make()) with
 * every watch the snapshot lists for their description, each by its path
 * and with its own watch descriptor.
 *
 * The kernel gives a new watch the descriptor after the last one it gave
 * (idr_alloc_cyclic()), from 1 in a new instance.  So the watches are
 * added in ascending order of their descriptors, and while a watch gets
 * a lower descriptor than its record's, it is removed and added again.
 * Each removal queues an IN_IGNORED event: the queue is drained before
 * the instance is handed over.  Events the instance held at the dump are
 * not in the snapshot (a note there says how many).
 *
 * A path is added with IN_DONT_FOLLOW: it names the watched inode itself.
 * A watch whose path reaches nothing stops the restore before anything
 * is made (inotify_check()).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inotify.h"
#include "plan.h"

/* The kernel's own bits a mask may carry; IN_MASK_ADD, IN_MASK_CREATE never. */
#define WATCH_MASK	(IN_ALL_EVENTS | IN_ONESHOT | IN_EXCL_UNLINK)

int inotify_take_watch(struct restore_tree *tree, const struct crib_inotify_watch *w,
		       struct tool_error *err)
{
	struct crib_inotify_watch *slot = array_push(&tree->inotify_watches);

	if (!slot)
		return tool_fail(err, 0, "out of memory");
	*slot = *w;
	slot->path = strdup(w->path);
	if (!slot->path) {
		tree->inotify_watches.n--;
		return tool_fail(err, 0, "out of memory");
	}
	return 0;
}

void inotify_free(struct restore_tree *tree)
{
	for (size_t i = 0; i < tree->inotify_watches.n; i++)
		free((char *)tree->inotify_watches.items[i].path);
	array_free(&tree->inotify_watches);
}

int inotify_check(const struct restore_tree *tree, struct tool_error *err)
{
	const struct crib_inotify_watch *w;
	const struct plan_fd *pf;
	struct stat st;

	for (size_t i = 0; i < tree->inotify_watches.n; i++) {
		w = &tree->inotify_watches.items[i];
		pf = plan_find_fd(tree, w->pid, w->fd);
		if (!pf || tree->descs.items[pf->desc].file->type != CRIB_FILE_INOTIFY)
			return tool_fail(err, 0, "process %llu, fd %llu: an inotify watch of a file "
					 "that is no inotify in the snapshot",
					 (unsigned long long)w->pid, (unsigned long long)w->fd);
		if (!w->wd || w->wd > INT_MAX || (w->mask & ~(uint64_t)WATCH_MASK) ||
		    w->path[0] != '/')
			return tool_fail(err, 0, "process %llu, fd %llu (inotify): watch %llu is "
					 "not one inotify_add_watch() makes",
					 (unsigned long long)w->pid, (unsigned long long)w->fd,
					 (unsigned long long)w->wd);
		if (lstat(w->path, &st))
			return tool_fail(err, errno, "process %llu, fd %llu (inotify): watch %llu: "
					 "%s", (unsigned long long)w->pid,
					 (unsigned long long)w->fd, (unsigned long long)w->wd,
					 w->path);
	}
	return 0;
}

/* Watch @w added to @fd under its own descriptor; @what names the instance. */
static int add_watch(int fd, const struct crib_inotify_watch *w, const char *what,
		     struct tool_error *err)
{
	int want = (int)w->wd, wd;

	for (;;) {
		wd = inotify_add_watch(fd, w->path, (uint32_t)w->mask | IN_DONT_FOLLOW);
		if (wd < 0)
			return tool_fail(err, errno, "%s: watch %d: %s", what, want, w->path);
		if (wd == want)
			return 0;
		if (wd > want)
			return tool_fail(err, 0, "%s: watch %d: %s is already watched, as %d",
					 what, want, w->path, wd);
		if (inotify_rm_watch(fd, wd))
			return tool_fail(err, errno, "%s: watch %d: cannot remove %d on the way",
					 what, want, wd);
	}
}

static int by_wd(const void *a, const void *b)
{
	const struct crib_inotify_watch *x = *(const struct crib_inotify_watch *const *)a;
	const struct crib_inotify_watch *y = *(const struct crib_inotify_watch *const *)b;

	return x->wd < y->wd ? -1 : x->wd > y->wd;
}

/* The IN_IGNORED events of the watches removed on the way. */
static int drain(int fd, const char *what, struct tool_error *err)
{
	char buf[4096];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
	if (errno != EAGAIN)
		return tool_fail(err, errno, "%s: cannot drain its events", what);
	return 0;
}

int inotify_make(const struct restore_tree *tree, const struct plan_desc *d,
		 struct tool_error *err)
{
	const struct crib_inotify_watch **watches;
	uint64_t pid = d->owner->proc.pid, fd = d->file->fd;
	size_t n = 0, i;
	char what[64];
	int ifd;

	snprintf(what, sizeof(what), "process %llu, fd %llu (inotify)", (unsigned long long)pid,
		 (unsigned long long)fd);
	watches = calloc(tree->inotify_watches.n + 1, sizeof(*watches));
	if (!watches)
		return tool_fail(err, 0, "out of memory");
	for (i = 0; i < tree->inotify_watches.n; i++)
		if (tree->inotify_watches.items[i].pid == pid &&
		    tree->inotify_watches.items[i].fd == fd)
			watches[n++] = &tree->inotify_watches.items[i];
	qsort(watches, n, sizeof(*watches), by_wd);
	ifd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (ifd < 0) {
		tool_fail(err, errno, "%s: cannot make it again", what);
		goto out;
	}
	for (i = 0; i < n; i++)
		if (add_watch(ifd, watches[i], what, err))
			break;
	if (i < n || drain(ifd, what, err)) {
		close(ifd);
		ifd = -1;
	}
out:
	free(watches);
	return ifd;
}
