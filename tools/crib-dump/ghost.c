// SPDX-License-Identifier: GPL-2.0
/*
 * Ghosts: files no path reaches, whose contents the snapshot carries.  A
 * memfd, or a regular file unlinked while a process of the tree holds it
 * open or mapped, is found by files_share() and mm_share() through
 * ghost_note(), numbered once per file (by device and inode) however many
 * descriptors and VMAs name it, and written before the first process
 * (ghosts_write()): its ghost record, then its contents in chunks, holes
 * left out.  The contents are read through /proc/PID/fd/N or
 * /proc/PID/map_files, which open the file itself, unlinked or not.
 *
 * An unlinked file is carried only up to the tree's ghost limit
 * (--ghost-limit); a larger one stops the dump.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "crib-dump.h"
#include "filetime.h"

#define DELETED_SUFFIX	" (deleted)"
#define MEMFD_PREFIX	"/memfd:"
#define HUGETLBFS_MAGIC	0x958458f6	/* include/uapi/linux/magic.h */

struct ghost {
	uint64_t id;
	uint64_t kind;			/* enum crib_ghost_kind */
	struct stat st;
	char *path;			/* the former path, or the memfd's name */
	char *source;			/* /proc/PID/... that opens it */
	uint64_t seals;
};

struct ghost_table {
	ARRAY(struct ghost *) ghosts;
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static bool is_memfd(const char *path)
{
	return !strncmp(path, MEMFD_PREFIX, strlen(MEMFD_PREFIX));
}

/* What procfs shows, without its " (deleted)" and, for a memfd, its prefix. */
static char *bare_name(const char *path)
{
	size_t skip = is_memfd(path) ? strlen(MEMFD_PREFIX) : 0;
	size_t len = strlen(path) - skip;

	if (ends_with(path, DELETED_SUFFIX))
		len -= strlen(DELETED_SUFFIX);
	return strndup(path + skip, len);
}

bool ghost_path_unlinked(const char *path, const struct stat *st)
{
	return st->st_nlink == 0 && ends_with(path, DELETED_SUFFIX);
}

int ghost_strip_deleted(char *path)
{
	if (!ends_with(path, DELETED_SUFFIX))
		return -1;
	path[strlen(path) - strlen(DELETED_SUFFIX)] = '\0';
	return 0;
}

static struct ghost *find_ghost(struct ghost_table *gt, const struct stat *st)
{
	for (size_t i = 0; i < gt->ghosts.n; i++)
		if (gt->ghosts.items[i]->st.st_dev == st->st_dev &&
		    gt->ghosts.items[i]->st.st_ino == st->st_ino)
			return gt->ghosts.items[i];
	return NULL;
}

/* The memfd's seals, through a descriptor of its own. */
static int read_seals(struct dump_tree *tree, struct ghost *g)
{
	int fd = open(g->source, O_RDONLY | O_CLOEXEC);
	int seals;

	if (fd < 0)
		return tool_fail(&tree->err, errno, "cannot open %s", g->source);
	seals = fcntl(fd, F_GET_SEALS);
	close(fd);
	if (seals < 0)
		return tool_fail(&tree->err, errno, "cannot read the seals of %s", g->source);
	g->seals = (uint64_t)seals;
	return 0;
}

static struct ghost *add_ghost(struct dump_tree *tree, const struct stat *st,
			       const char *path, const char *source)
{
	struct ghost_table *gt = tree->ghosts;
	struct ghost **slot, *g = calloc(1, sizeof(*g));

	if (!g)
		goto nomem;
	g->st = *st;
	g->kind = is_memfd(path) ? CRIB_GHOST_MEMFD : CRIB_GHOST_UNLINKED;
	g->path = bare_name(path);
	g->source = strdup(source);
	slot = g->path && g->source ? array_push(&gt->ghosts) : NULL;
	if (!slot)
		goto nomem;
	g->id = gt->ghosts.n;
	*slot = g;
	if (g->kind == CRIB_GHOST_MEMFD && read_seals(tree, g))
		return NULL;
	return g;
nomem:
	if (g) {
		free(g->path);
		free(g->source);
	}
	free(g);
	tool_fail(&tree->err, 0, "out of memory");
	return NULL;
}

/*
 * What a ghost cannot be: a memfd of huge pages (it would come back as
 * one of small pages), a file whose name was unlinked while another link
 * remains (the snapshot would carry a copy, not the file its other name
 * reaches).  NULL when it can.
 */
static const char *not_a_ghost(const char *source, const char *path, const struct stat *st)
{
	struct statfs sfs;
	struct stat named;

	if (is_memfd(path))
		return statfs(source, &sfs) || sfs.f_type == HUGETLBFS_MAGIC ?
			"a memfd of huge pages (MFD_HUGETLB)" : NULL;
	if (st->st_nlink && ends_with(path, DELETED_SUFFIX) &&
	    (stat(path, &named) || named.st_ino != st->st_ino || named.st_dev != st->st_dev))
		return "a file unlinked under this name while another link to it remains";
	return NULL;
}

int ghost_note(struct dump_tree *tree, pid_t pid, const char *what, const char *path,
	       uint64_t *id)
{
	const char *why;
	char source[96];
	struct stat st;
	struct ghost *g;

	*id = 0;
	snprintf(source, sizeof(source), "/proc/%d/%s", (int)pid, what);
	if (stat(source, &st))
		return tool_fail(&tree->err, errno, "process %d: cannot stat %s (%s)", (int)pid,
				 source, path);
	if (!S_ISREG(st.st_mode))
		return 0;
	why = not_a_ghost(source, path, &st);
	if (why)
		return tool_fail(&tree->err, 0, "process %d: cannot dump %s, %s: %s is not "
				 "supported", (int)pid, what, path, why);
	if (!is_memfd(path) && !ghost_path_unlinked(path, &st))
		return 0;
	if (!tree->ghosts) {
		tree->ghosts = calloc(1, sizeof(*tree->ghosts));
		if (!tree->ghosts)
			return tool_fail(&tree->err, 0, "out of memory");
	}
	g = find_ghost(tree->ghosts, &st);
	if (!g && !is_memfd(path) && (uint64_t)st.st_size > tree->ghost_limit)
		return tool_fail(&tree->err, 0, "process %d: cannot dump %s, %s: the unlinked "
				 "file has %llu bytes, more than --ghost-limit (%llu)", (int)pid,
				 what, path, (unsigned long long)st.st_size,
				 (unsigned long long)tree->ghost_limit);
	if (!g)
		g = add_ghost(tree, &st, path, source);
	if (!g)
		return -1;
	*id = g->id;
	return 0;
}

/* The next run of data at or after @from, up to @size; false when none is left. */
static bool next_data(int fd, off_t from, off_t size, off_t *start, off_t *end)
{
	*start = lseek(fd, from, SEEK_DATA);
	if (*start < 0 && errno != ENXIO)
		*start = from;	/* no SEEK_DATA here: all of it is data */
	if (*start < 0 || *start >= size)
		return false;
	*end = lseek(fd, *start, SEEK_HOLE);
	if (*end < 0 || *end > size)
		*end = size;
	return true;
}

/* The contents of @g, a chunk at a time. */
static int write_contents(struct dump_tree *tree, struct crib_writer *w,
			  const struct ghost *g, int fd)
{
	off_t size = g->st.st_size, at = 0, start, end;
	char *buf = malloc(CRIB_CHUNK_MAX);
	int ret = -1;

	if (!buf)
		return tool_fail(&tree->err, 0, "out of memory");
	while (next_data(fd, at, size, &start, &end)) {
		for (at = start; at < end;) {
			size_t want = end - at < CRIB_CHUNK_MAX ? (size_t)(end - at) : CRIB_CHUNK_MAX;
			ssize_t n = pread(fd, buf, want, at);

			if (n <= 0) {
				tool_fail(&tree->err, n ? errno : 0, "reading %s (%s) at %lld: %s",
					  g->source, g->path, (long long)at,
					  n ? "read error" : "it shrank during the dump");
				goto out;
			}
			if (crib_write_ghost_data(w, g->id, (uint64_t)at, buf, (size_t)n)) {
				tool_fail(&tree->err, 0, "writing the contents of %s: %s", g->path,
					  crib_writer_error(w)->msg);
				goto out;
			}
			at += n;
		}
	}
	ret = 0;
out:
	free(buf);
	return ret;
}

static int write_ghost(struct dump_tree *tree, struct crib_writer *w, const struct ghost *g)
{
	struct crib_ghost rec = {
		.ghost_id = g->id, .kind = g->kind, .path = g->path,
		.size = (uint64_t)g->st.st_size, .mode = g->st.st_mode,
		.uid = g->st.st_uid, .gid = g->st.st_gid, .seals = g->seals,
		.dev = g->st.st_dev, .inode = g->st.st_ino,
		.mtime_ns = stat_mtime_ns(&g->st),
	};
	int fd, ret;

	if (crib_write_ghost(w, &rec))
		return tool_fail(&tree->err, 0, "writing ghost %llu (%s): %s",
				 (unsigned long long)g->id, g->path, crib_writer_error(w)->msg);
	fd = open(g->source, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tool_fail(&tree->err, errno, "cannot open %s (%s) to read it", g->source,
				 g->path);
	ret = write_contents(tree, w, g, fd);
	close(fd);
	return ret;
}

int ghosts_write(struct dump_tree *tree, struct crib_writer *w)
{
	if (!tree->ghosts)
		return 0;
	for (size_t i = 0; i < tree->ghosts->ghosts.n; i++)
		if (write_ghost(tree, w, tree->ghosts->ghosts.items[i]))
			return -1;
	return 0;
}

void ghosts_free(struct dump_tree *tree)
{
	struct ghost_table *gt = tree->ghosts;

	if (!gt)
		return;
	for (size_t i = 0; i < gt->ghosts.n; i++) {
		free(gt->ghosts.items[i]->path);
		free(gt->ghosts.items[i]->source);
		free(gt->ghosts.items[i]);
	}
	array_free(&gt->ghosts);
	free(gt);
	tree->ghosts = NULL;
}
