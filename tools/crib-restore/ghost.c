// SPDX-License-Identifier: GPL-2.0
/*
 * Ghosts: memfds and files unlinked while open or mapped, carried whole
 * in the snapshot.  Each is made once for the tree and held by
 * crib-restore; every descriptor of it is opened again through
 * /proc/self/fd/N (a description of its own, as open() made it), and every
 * process that maps it opens it likewise before its restorer maps it.
 *
 * As the snapshot is read, each ghost's contents go into a memfd
 * (ghost_take(), ghost_take_data()), so that nothing is made on a file
 * system from a stream that turns out corrupt.  A memfd ghost is that
 * memfd, with its name.  ghosts_make() then, before the first process
 * exists, makes each unlinked file again: created at its former path (a
 * new name in the same directory when that one is taken), filled, given
 * its mode and owner, opened, and unlinked.  Seals come last
 * (ghosts_finish()), once every process maps what it mapped.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "filetime.h"
#include "ghost.h"
#include "plan.h"

/* memfd_create(2): the longest name, without "memfd:" and the NUL. */
#define MEMFD_NAME_MAX	249

struct plan_ghost *ghost_find(const struct restore_tree *tree, uint64_t id)
{
	for (size_t i = 0; i < tree->ghosts.n; i++)
		if (tree->ghosts.items[i].g.ghost_id == id)
			return &tree->ghosts.items[i];
	return NULL;
}

int ghost_take(struct restore_tree *tree, const struct crib_ghost *g, struct tool_error *err)
{
	const char *name = g->kind == CRIB_GHOST_MEMFD ? g->path : "crib-ghost";
	struct plan_ghost *pg;
	int fd;

	if (ghost_find(tree, g->ghost_id))
		return tool_fail(err, 0, "ghost %llu is in the snapshot twice",
				 (unsigned long long)g->ghost_id);
	if (g->kind != CRIB_GHOST_MEMFD && g->kind != CRIB_GHOST_UNLINKED)
		return tool_fail(err, 0, "ghost %llu is of kind %llu, which crib-restore does not "
				 "know", (unsigned long long)g->ghost_id,
				 (unsigned long long)g->kind);
	if (!S_ISREG(g->mode) || g->size > (uint64_t)INT64_MAX)
		return tool_fail(err, 0, "ghost %llu (%s) is not a regular file",
				 (unsigned long long)g->ghost_id, g->path);
	if (g->kind == CRIB_GHOST_MEMFD ? strlen(g->path) > MEMFD_NAME_MAX : g->path[0] != '/')
		return tool_fail(err, 0, "ghost %llu has no usable %s: %s",
				 (unsigned long long)g->ghost_id,
				 g->kind == CRIB_GHOST_MEMFD ? "memfd name" : "path", g->path);
	fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0 || ftruncate(fd, (off_t)g->size)) {
		tool_fail(err, errno, "cannot hold ghost %llu (%s, %llu bytes)",
			  (unsigned long long)g->ghost_id, g->path, (unsigned long long)g->size);
		goto fail;
	}
	pg = array_push(&tree->ghosts);
	if (!pg) {
		tool_fail(err, 0, "out of memory");
		goto fail;
	}
	*pg = (struct plan_ghost){ .g = *g, .fd = fd };
	pg->g.path = strdup(g->path);
	if (!pg->g.path) {
		tree->ghosts.n--;
		tool_fail(err, 0, "out of memory");
		goto fail;
	}
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

int ghost_take_data(struct restore_tree *tree, const struct crib_ghost_data *d,
		    struct tool_error *err)
{
	const struct plan_ghost *pg = ghost_find(tree, d->ghost_id);
	size_t done = 0;
	ssize_t n;

	if (!pg)
		return tool_fail(err, 0, "contents of ghost %llu before its ghost record",
				 (unsigned long long)d->ghost_id);
	if (d->offset > pg->g.size || d->data.len > pg->g.size - d->offset)
		return tool_fail(err, 0, "contents of ghost %llu (%s) past its %llu bytes",
				 (unsigned long long)d->ghost_id, pg->g.path,
				 (unsigned long long)pg->g.size);
	while (done < d->data.len) {
		n = pwrite(pg->fd, (const char *)d->data.data + done, d->data.len - done,
			   (off_t)(d->offset + done));
		if (n <= 0)
			return tool_fail(err, n ? errno : ENOSPC, "cannot hold the contents of "
					 "ghost %llu (%s)", (unsigned long long)d->ghost_id,
					 pg->g.path);
		done += (size_t)n;
	}
	return 0;
}

int ghost_check_dir(const struct plan_ghost *pg, struct tool_error *err)
{
	char dir[PATH_MAX];
	struct stat st;

	if (pg->g.kind != CRIB_GHOST_UNLINKED)
		return 0;
	snprintf(dir, sizeof(dir), "%s", pg->g.path);
	if (stat(dirname(dir), &st) || !S_ISDIR(st.st_mode))
		return tool_fail(err, 0, "cannot make the unlinked file %s again: its directory %s "
				 "is missing", pg->g.path, dir);
	return 0;
}

/* A descriptor or mapping of a ghost: the snapshot holds it, and it can be made. */
int ghost_check(const struct restore_tree *tree, uint64_t id, const char *what,
		struct tool_error *err)
{
	const struct plan_ghost *pg = ghost_find(tree, id);

	if (!pg)
		return tool_fail(err, 0, "%s is ghost %llu, which the snapshot does not hold",
				 what, (unsigned long long)id);
	if (ghost_check_dir(pg, err)) {
		char text[sizeof(err->msg)];

		snprintf(text, sizeof(text), "%s: %.*s", what, (int)sizeof(text) - 64, err->msg);
		memcpy(err->msg, text, sizeof(err->msg));
		return -1;
	}
	return 0;
}

/* Copy the runs of data of @from into @to, holes left as holes. */
static int copy_contents(int from, int to, off_t size)
{
	off_t at = 0, start, end;
	char buf[65536];
	ssize_t n;

	while (at < size) {
		start = lseek(from, at, SEEK_DATA);
		if (start < 0)
			return errno == ENXIO ? 0 : -1;
		end = lseek(from, start, SEEK_HOLE);
		if (end < 0)
			return -1;
		for (at = start; at < end; at += n) {
			n = pread(from, buf, end - at < (off_t)sizeof(buf) ? (size_t)(end - at) :
				  sizeof(buf), at);
			if (n <= 0 || pwrite(to, buf, (size_t)n, at) != n)
				return -1;
		}
	}
	return 0;
}

/* Create the file of @pg: at its path, or at PATH.crib-ghost-N when that is taken. */
static int create_file(const struct plan_ghost *pg, char *made, size_t size)
{
	int fd;

	snprintf(made, size, "%s", pg->g.path);
	for (int i = 1; i < 1000; i++) {
		fd = open(made, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
		if (snprintf(made, size, "%s.crib-ghost-%d", pg->g.path, i) >= (int)size) {
			errno = ENAMETOOLONG;
			return -1;
		}
	}
	return -1;
}

/* An unlinked file again, in place of the memfd that held its contents. */
static int make_unlinked(struct plan_ghost *pg, struct tool_error *err)
{
	char made[PATH_MAX];
	int fd = create_file(pg, made, sizeof(made));

	if (fd < 0) {
		if (errno == ENOENT)
			return ghost_check_dir(pg, err) ? -1 :
				tool_fail(err, ENOENT, "cannot make the unlinked file %s again",
					  pg->g.path);
		return tool_fail(err, errno, "cannot make the unlinked file %s again",
				 pg->g.path);
	}
	if (copy_contents(pg->fd, fd, (off_t)pg->g.size) || ftruncate(fd, (off_t)pg->g.size) ||
	    fchown(fd, (uid_t)pg->g.uid, (gid_t)pg->g.gid) ||
	    fchmod(fd, (mode_t)(pg->g.mode & 07777))) {
		tool_fail(err, errno, "cannot fill the unlinked file %s again (made as %s)",
			  pg->g.path, made);
		goto fail;
	}
	if (unlink(made)) {
		tool_fail(err, errno, "cannot unlink %s again", made);
		goto fail;
	}
	/* the same number: what files_park_base() counted */
	if (dup3(fd, pg->fd, O_CLOEXEC) < 0) {
		close(fd);
		return tool_fail(err, errno, "cannot keep the unlinked file %s", pg->g.path);
	}
	close(fd);
	return 0;
fail:
	unlink(made);
	close(fd);
	return -1;
}

int ghosts_make(const struct restore_tree *tree, struct tool_error *err)
{
	struct plan_ghost *pg;

	for (size_t i = 0; i < tree->ghosts.n; i++) {
		pg = &tree->ghosts.items[i];
		if (pg->g.kind == CRIB_GHOST_UNLINKED) {
			if (make_unlinked(pg, err))
				return -1;
		} else if (fchmod(pg->fd, (mode_t)(pg->g.mode & 07777))) {
			return tool_fail(err, errno, "cannot give memfd %s its mode %llo",
					 pg->g.path, (unsigned long long)(pg->g.mode & 07777));
		}
	}
	return 0;
}

int ghosts_finish(const struct restore_tree *tree, struct tool_error *err)
{
	const struct plan_ghost *pg;

	for (size_t i = 0; i < tree->ghosts.n; i++) {
		pg = &tree->ghosts.items[i];
		if (file_set_mtime(pg->fd, pg->g.mtime_ns))
			return tool_fail(err, errno, "cannot give %s its modification time again",
					 pg->g.path);
		if (pg->g.kind != CRIB_GHOST_MEMFD || !pg->g.seals)
			continue;
		if (fcntl(pg->fd, F_ADD_SEALS, (int)pg->g.seals))
			return tool_fail(err, errno, "cannot seal memfd %s (seals %#llx)",
					 pg->g.path, (unsigned long long)pg->g.seals);
	}
	return 0;
}

int ghost_open(const struct restore_tree *tree, uint64_t id, int flags)
{
	const struct plan_ghost *pg = ghost_find(tree, id);
	char path[64];

	if (!pg) {
		errno = ENOENT;
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", pg->fd);
	return open(path, flags);
}

void ghosts_free(struct restore_tree *tree)
{
	for (size_t i = 0; i < tree->ghosts.n; i++) {
		close(tree->ghosts.items[i].fd);
		free((char *)tree->ghosts.items[i].g.path);
	}
	array_free(&tree->ghosts);
}
