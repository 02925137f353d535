// SPDX-License-Identifier: GPL-2.0
/*
 * Inotify watches: dump_files tells an inotify instance from other
 * anonymous files and counts its watches and unread events; dump_inotify
 * (a sleepable CRIB program) lists each watch with its descriptor, mask,
 * inode and the path of that inode from the root of its filesystem.
 *
 * A watch holds an inode, not a mount, so the path a restore adds it by
 * is found here: among the mounts the process sees (/proc/PID/mountinfo)
 * of the inode's filesystem, the first whose root contains the path, and
 * where a stat() of the result finds the very inode (the mounts are read
 * once for all the watches of an instance).  A watch no mounted
 * path reaches stops the dump.  Unread events are not carried: a note
 * says how many were left behind.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <bpf/libbpf.h>

#include "crib-dump.h"
#include "dump_files.skel.h"

struct inotify_watch {
	int fd;				/* the instance */
	int wd;
	uint32_t mask;
	dev_t dev;			/* the watched inode */
	uint64_t ino;
	char *path;			/* where it is mounted */
};

struct inotify_watches {
	ARRAY(struct inotify_watch) items;
	ARRAY(char *) notes;		/* unread events left behind, per instance */
};

/* One line of /proc/PID/mountinfo: which filesystem, which of its directories, where. */
struct mount {
	unsigned int major, minor;
	char *root;
	char *point;
};

struct mount_table {
	ARRAY(struct mount) items;
};

static uint64_t after_watch(const void *last)
{
	return ((const struct dump_inotify_watch_rec *)last)->index + 1;
}

/* Undo mountinfo's octal escapes (\040 for a space, ...) in place. */
static void unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

static void mounts_free(struct mount_table *mt)
{
	for (size_t i = 0; i < mt->items.n; i++) {
		free(mt->items.items[i].root);
		free(mt->items.items[i].point);
	}
	array_free(&mt->items);
}

/* The mounts process @pid sees, read once for all the watches of an instance. */
static int mounts_read(struct dump_job *job, struct mount_table *mt)
{
	char root[PATH_MAX], point[PATH_MAX], file[64], *line = NULL;
	unsigned int major, minor;
	struct mount *m;
	size_t cap = 0;
	int ret = 0;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%d/mountinfo", (int)job->pid);
	f = fopen(file, "re");
	if (!f)
		return tool_fail(&job->err, errno, "cannot read %s", file);
	while (!ret && getline(&line, &cap, f) > 0) {
		/* ID PARENT MAJOR:MINOR ROOT POINT ... */
		if (sscanf(line, "%*u %*u %u:%u %4095s %4095s", &major, &minor, root, point) != 4)
			continue;
		unescape(root);
		unescape(point);
		m = array_push(&mt->items);
		if (m) {
			*m = (struct mount){ major, minor, strdup(root), strdup(point) };
			if (!m->root || !m->point)
				m = NULL;
		}
		if (!m)
			ret = tool_fail(&job->err, 0, "out of memory");
	}
	free(line);
	fclose(f);
	return ret;
}

/*
 * @fs_path (from the root of its filesystem) under mount @m, in @out;
 * false when the mount's root does not contain it.
 */
static bool under_mount(const char *fs_path, const struct mount *m, char *out, size_t size)
{
	size_t len = strlen(m->root);
	const char *rest;

	if (!strcmp(m->root, "/"))
		rest = fs_path;
	else if (!strncmp(fs_path, m->root, len) && (fs_path[len] == '/' || !fs_path[len]))
		rest = fs_path + len;
	else
		return false;
	if (!strcmp(m->point, "/"))
		return snprintf(out, size, "%s", *rest ? rest : "/") < (int)size;
	return snprintf(out, size, "%s%s", m->point, rest) < (int)size;
}

static bool is_inode(const char *path, dev_t dev, uint64_t ino)
{
	struct stat st;

	return !lstat(path, &st) && st.st_dev == dev && st.st_ino == ino;
}

/* A mounted path of the watched inode, or NULL. */
static char *mounted_path(const struct mount_table *mt, const struct dump_inotify_watch_rec *k)
{
	dev_t dev = makedev(k->dev_major, k->dev_minor);
	const struct mount *m;
	char path[PATH_MAX];

	for (size_t i = 0; i < mt->items.n; i++) {
		m = &mt->items.items[i];
		if (m->major == k->dev_major && m->minor == k->dev_minor &&
		    under_mount(k->path, m, path, sizeof(path)) && is_inode(path, dev, k->ino))
			return strdup(path);
	}
	return NULL;
}

static struct inotify_watches *watches_of(struct dump_job *job)
{
	if (!job->inotify)
		job->inotify = calloc(1, sizeof(*job->inotify));
	if (!job->inotify)
		tool_fail(&job->err, 0, "out of memory");
	return job->inotify;
}

/* The watch @k, with the path a restore adds it by. */
static int add_watch(struct dump_job *job, const struct mount_table *mt, int fd,
		     struct dump_inotify_watch_rec *k)
{
	struct inotify_watch *w;

	if (k->wd < 0)
		return tool_fail(&job->err, 0, "process %d, fd %d (inotify): a watch was being "
				 "removed while the process was frozen", (int)job->pid, fd);
	/* 9p without a cache, for one, keeps no dentry of a file nobody has open */
	if (k->path_len <= 0)
		return tool_fail(&job->err, 0, "process %d, fd %d (inotify): watch %d, on inode "
				 "%llu of device %u:%u: the kernel has no name for it (removed, or "
				 "on a filesystem that keeps no names of unused files)",
				 (int)job->pid, fd, k->wd, (unsigned long long)k->ino,
				 k->dev_major, k->dev_minor);
	k->path[sizeof(k->path) - 1] = '\0';
	w = array_push(&job->inotify->items);
	if (!w)
		return tool_fail(&job->err, 0, "out of memory");
	*w = (struct inotify_watch){
		.fd = fd, .wd = k->wd, .mask = k->mask,
		.dev = makedev(k->dev_major, k->dev_minor), .ino = k->ino,
		.path = mounted_path(mt, k),
	};
	if (!w->path)
		return tool_fail(&job->err, 0, "process %d, fd %d (inotify): watch %d, on %s (inode "
				 "%llu of device %u:%u): no mounted path reaches that inode",
				 (int)job->pid, fd, k->wd, k->path, (unsigned long long)k->ino,
				 k->dev_major, k->dev_minor);
	return 0;
}

static int note_queued(struct dump_job *job, const struct dump_file_rec *k)
{
	char **note;

	if (!k->queued)
		return 0;
	note = array_push(&job->inotify->notes);
	if (!note || asprintf(note, "process %d, fd %d: %llu queued events not carried",
			      (int)job->pid, k->fd, (unsigned long long)k->queued) < 0) {
		if (note)
			*note = NULL;
		return tool_fail(&job->err, 0, "out of memory");
	}
	return 0;
}

int inotify_read(struct dump_job *job, const struct dump_file_rec *k)
{
	struct record_list recs = { .kind = DUMP_REC_INOTIFY_WATCH,
				    .size = sizeof(struct dump_inotify_watch_rec) };
	struct mount_table mounts = { 0 };
	size_t i;
	int ret = -1;

	if (k->event != DUMP_EVENT_INOTIFY)
		return 0;
	if (!watches_of(job) ||
	    events_collect(job, &job->progs.inotify, job->progs.inotify_records, k, "inotify", after_watch,
			   &recs) ||
	    (recs.n && mounts_read(job, &mounts)))
		goto out;
	for (i = 0; i < recs.n; i++)
		if (add_watch(job, &mounts, k->fd,
			      (struct dump_inotify_watch_rec *)recs.items + i))
			goto out;
	ret = note_queued(job, k);
out:
	mounts_free(&mounts);
	record_list_free(&recs);
	return ret;
}

int inotify_write(struct dump_job *job)
{
	const struct inotify_watch *w;
	struct crib_inotify_watch iw;
	size_t i;

	for (i = 0; job->inotify && i < job->inotify->items.n; i++) {
		w = &job->inotify->items.items[i];
		iw = (struct crib_inotify_watch){
			.pid = job->pid, .fd = (uint64_t)w->fd, .wd = (uint64_t)w->wd,
			.mask = w->mask, .path = w->path, .dev = w->dev, .inode = w->ino,
		};
		if (crib_write_inotify_watch(job->writer, &iw))
			return tool_fail(&job->err, 0, "writing watch %d of inotify fd %d: %s",
					 w->wd, w->fd, crib_writer_error(job->writer)->msg);
	}
	for (i = 0; job->inotify && i < job->inotify->notes.n; i++)
		if (crib_write_note(job->writer, "crib-dump.inotify",
				    job->inotify->notes.items[i]))
			return tool_fail(&job->err, 0, "writing a note: %s",
					 crib_writer_error(job->writer)->msg);
	return 0;
}

void inotify_free(struct dump_job *job)
{
	size_t i;

	if (!job->inotify)
		return;
	for (i = 0; i < job->inotify->items.n; i++)
		free(job->inotify->items.items[i].path);
	for (i = 0; i < job->inotify->notes.n; i++)
		free(job->inotify->notes.items[i]);
	array_free(&job->inotify->items);
	array_free(&job->inotify->notes);
	free(job->inotify);
	job->inotify = NULL;
}
