// SPDX-License-Identifier: GPL-2.0
/*
 * Open file descriptions: every one of the tree is made once, by
 * crib-restore, before the first process exists, and parked at a number
 * above every descriptor the snapshot or crib-restore uses.  The processes
 * inherit them all through fork(); each gives its descriptors theirs with
 * dup3() (with its own FD_CLOEXEC) and closes the parked ones.  So
 * descriptors that shared a description (dup(), fork()) share one again,
 * its offset and status flags, in one process or several.
 *
 * A regular file, directory or device is opened again by its path, with
 * its flags, at its offset; a memfd or unlinked file likewise, through
 * the ghost crib-restore holds (ghost.c).  A pipe is made with pipe(): its first read
 * and first write description are the pipe's own, any other is opened
 * through /proc/self/fd/N as the dead process may have done; a FIFO is
 * opened again by its path, every description on its own.  Each then has
 * its status flags set.  The bytes a pipe held are written back once, and
 * an end no descriptor of the tree holds (closed by all) is closed again.
 * Sockets are made by sockets.c, event files by events.c, pseudo-terminal
 * pairs by tty.c; pidfds, which can only be made once what they refer to
 * exists, by pidfd.c, in the processes that hold them.
 *
 * A file under /proc/PID/, where PID is a process of the tree (a program
 * reading its own /proc/self/stat, say), cannot be opened before that
 * process exists: that process opens it itself when it is born, before
 * it forks.
 *
 * The file, pipe and pipe_data records are taken here as the snapshot is
 * read: each descriptor into its process's plan, each pipe once, with
 * its bytes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "descriptors.h"
#include "events.h"
#include "files.h"
#include "filetime.h"
#include "ghost.h"
#include "pidfd.h"
#include "plan.h"
#include "sockets.h"
#include "tree.h"
#include "tty.h"
#include "udp_queue.h"

/* Status flags open(2) takes back; the access mode is added separately. */
#define REOPEN_FLAGS	(O_APPEND | O_NONBLOCK | O_DSYNC | O_SYNC | O_DIRECT | \
			 O_NOATIME | O_LARGEFILE | O_DIRECTORY | O_NOFOLLOW | O_PATH)

/* ---- the records, as the snapshot is read ---- */

int files_take(struct restore_plan *plan, const struct crib_file *f,
	       struct tool_error *err)
{
	struct crib_file *pf = array_push(&plan->files);

	if (!pf)
		return tool_fail(err, 0, "out of memory");
	*pf = *f;
	pf->path = plan_dup_str(f->path);
	return 0;
}

int files_take_pipe(struct restore_tree *tree, const struct crib_pipe *p,
		    struct tool_error *err)
{
	struct crib_pipe *end = array_push(&tree->pipe_fds);
	struct plan_pipe *pp;

	if (!end)
		return tool_fail(err, 0, "out of memory");
	*end = *p;
	pp = plan_find_pipe(tree, p->pipe_id);
	if (!pp) {
		pp = array_push(&tree->pipes);
		if (!pp)
			return tool_fail(err, 0, "out of memory");
		pp->pipe_id = p->pipe_id;
	}
	pp->pipe_size = p->pipe_size;
	pp->mtime_ns = p->mtime_ns;
	pp->ends_outside = p->ends_outside;
	if (p->end != CRIB_PIPE_WRITE)
		pp->has_read_end = true;
	if (p->end != CRIB_PIPE_READ)
		pp->has_write_end = true;
	return 0;
}

int files_take_pipe_data(struct restore_tree *tree, const struct crib_pipe_data *d,
			 struct tool_error *err)
{
	struct plan_pipe *pp = plan_find_pipe(tree, d->pipe_id);
	unsigned char *buf;

	if (!pp)
		return tool_fail(err, 0, "pipe data for pipe %llu, which no descriptor holds",
				 (unsigned long long)d->pipe_id);
	if (d->offset != pp->len)
		return tool_fail(err, 0, "pipe %llu: data at offset %llu, expected %zu",
				 (unsigned long long)d->pipe_id,
				 (unsigned long long)d->offset, pp->len);
	buf = realloc(pp->data, pp->len + d->data.len + 1);
	if (!buf)
		return tool_fail(err, 0, "out of memory");
	memcpy(buf + pp->len, d->data.data, d->data.len);
	pp->data = buf;
	pp->len += d->data.len;
	return 0;
}

void files_free(struct restore_plan *plan)
{
	for (size_t i = 0; i < plan->files.n; i++)
		free((char *)plan->files.items[i].path);
	array_free(&plan->files);
	array_free(&plan->fds);
}

void files_free_tree(struct restore_tree *tree)
{
	array_free(&tree->pipe_fds);
	for (size_t i = 0; i < tree->pipes.n; i++)
		free(tree->pipes.items[i].data);
	array_free(&tree->pipes);
	array_free(&tree->descs);
}

/* ---- checked before anything is made ---- */

/* Character devices that are the same everywhere, so reopening one is exact. */
static const char *const portable_chardevs[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
};

static int check_regular(const struct crib_file *f, const struct stat *st,
			 struct tool_error *err)
{
	if (!S_ISREG(st->st_mode))
		return tool_fail(err, 0, "fd %llu: %s is no longer a regular file",
				 (unsigned long long)f->fd, f->path);
	if ((uint64_t)st->st_size != f->size)
		return tool_fail(err, 0, "fd %llu: %s changed size since the dump "
				 "(%llu bytes then, %lld now)", (unsigned long long)f->fd,
				 f->path, (unsigned long long)f->size, (long long)st->st_size);
	return 0;
}

static int check_chardev(const struct crib_file *f, struct tool_error *err)
{
	size_t i;

	for (i = 0; i < sizeof(portable_chardevs) / sizeof(portable_chardevs[0]); i++)
		if (!strcmp(f->path, portable_chardevs[i]))
			return 0;
	return tool_fail(err, 0, "fd %llu: the character device %s cannot be restored "
			 "(only /dev/null, zero, full, random, urandom)",
			 (unsigned long long)f->fd, f->path);
}

/*
 * A pipe or FIFO whose ends are all in the tree.  Those no descriptor of
 * the tree holds were closed by all when ends_outside is 0; a 1.0
 * snapshot, which does not say, is refused as 1.0 restorers refused it.
 */
static int check_pipe(const struct restore_tree *tree, const struct plan_desc *d,
		      const struct crib_file *f, struct tool_error *err)
{
	const struct plan_pipe *pp = d->pipe;
	struct stat st;

	if (!pp)
		return tool_fail(err, 0, "fd %llu is a pipe the snapshot does not describe",
				 (unsigned long long)f->fd);
	if (pp->ends_outside)
		return tool_fail(err, 0, "fd %llu is a pipe with %llu end%s outside the snapshot; "
				 "that cannot be restored", (unsigned long long)f->fd,
				 (unsigned long long)pp->ends_outside,
				 pp->ends_outside == 1 ? "" : "s");
	if (!tree->header.version_minor && (!pp->has_read_end || !pp->has_write_end))
		return tool_fail(err, 0, "fd %llu is one end of a pipe whose other end is "
				 "outside the snapshot; that cannot be restored",
				 (unsigned long long)f->fd);
	if (f->type != CRIB_FILE_FIFO)
		return 0;
	if (!f->path || f->path[0] != '/')
		return tool_fail(err, 0, "fd %llu: a FIFO without a usable path",
				 (unsigned long long)f->fd);
	if (stat(f->path, &st))
		return tool_fail(err, errno, "fd %llu: %s", (unsigned long long)f->fd, f->path);
	if (!S_ISFIFO(st.st_mode))
		return tool_fail(err, 0, "fd %llu: %s is no longer a FIFO",
				 (unsigned long long)f->fd, f->path);
	return 0;
}

int files_check(const struct restore_tree *tree, const struct restore_plan *plan,
		const struct plan_fd *pf, struct tool_error *err)
{
	const struct plan_desc *d = &tree->descs.items[pf->desc];
	const struct crib_file *f = d->file;
	char what[96];
	struct stat st;

	if (f->owner_pid && (f->owner_type > F_OWNER_PGRP || d->proc_owner || tty_is_dev_tty(d)))
		return tool_fail(err, 0, "fd %llu has a SIGIO owner of kind %llu, which cannot be "
				 "restored", (unsigned long long)f->fd,
				 (unsigned long long)f->owner_type);
	if (f->ghost_id) {
		snprintf(what, sizeof(what), "fd %llu (%s)", (unsigned long long)f->fd,
			 f->path ? f->path : "");
		if (f->type != CRIB_FILE_REGULAR && f->type != CRIB_FILE_MEMFD)
			return tool_fail(err, 0, "%s is a %s, not a file", what,
					 crib_file_type_name(f->type));
		return ghost_check(tree, f->ghost_id, what, err);
	}
	if (crib_file_is_pipe(f->type))
		return check_pipe(tree, d, f, err);
	if (crib_file_is_event(f->type))
		return events_check(tree, plan, f, err);
	if (f->type == CRIB_FILE_PIDFD)
		return pidfd_check(tree, plan, f, err);
	if (d->tty)
		return 0;	/* made anew, never by its path: tty_check() */
	if (f->type == CRIB_FILE_SOCKET)
		return plan_find_socket_fd(tree, plan, pf->fd) ? 0 :
			tool_fail(err, 0, "fd %llu is a socket the snapshot does not describe",
				  (unsigned long long)pf->fd);
	if (f->type != CRIB_FILE_REGULAR && f->type != CRIB_FILE_DIR &&
	    f->type != CRIB_FILE_CHARDEV)
		return tool_fail(err, 0, "fd %llu is a %s, which cannot be restored",
				 (unsigned long long)f->fd, crib_file_type_name(f->type));
	if (!f->path || f->path[0] != '/')
		return tool_fail(err, 0, "fd %llu has no usable path", (unsigned long long)f->fd);
	/* under /proc/PID/ of a process not made yet: there once it is (files.c) */
	if (d->proc_owner)
		return 0;
	if (stat(f->path, &st))
		return tool_fail(err, errno, "fd %llu: %s", (unsigned long long)f->fd, f->path);
	switch (f->type) {
	case CRIB_FILE_REGULAR:
		return check_regular(f, &st, err);
	case CRIB_FILE_DIR:
		return S_ISDIR(st.st_mode) ? 0 :
			tool_fail(err, 0, "fd %llu: %s is no longer a directory",
				  (unsigned long long)f->fd, f->path);
	default:
		return check_chardev(f, err);
	}
}

/* ---- the descriptions ---- */

static const struct crib_pipe *pipe_record(const struct restore_tree *tree, uint64_t pid,
					   uint64_t fd)
{
	size_t i;

	for (i = 0; i < tree->pipe_fds.n; i++)
		if (tree->pipe_fds.items[i].pid == pid && tree->pipe_fds.items[i].fd == fd)
			return &tree->pipe_fds.items[i];
	return NULL;
}

/* The process of the tree that a path under /proc/PID/ names, if any. */
static const struct restore_plan *proc_owner(const struct restore_tree *tree,
					     const struct crib_file *f)
{
	unsigned long long pid;
	int end = 0;

	if (f->ghost_id || !f->path || (f->type != CRIB_FILE_REGULAR &&
					 f->type != CRIB_FILE_DIR &&
					 f->type != CRIB_FILE_SYMLINK))
		return NULL;
	if (sscanf(f->path, "/proc/%llu%n", &pid, &end) != 1 || !end ||
	    (f->path[end] != '/' && f->path[end] != '\0'))
		return NULL;
	return plan_find(tree, pid);
}

/*
 * The description of @f, made or found.  A 1.1 snapshot numbers them
 * (file.desc); in a 1.0 snapshot each descriptor has its own, but the
 * descriptors of one end of one pipe share it, as 1.0 restored them.
 */
static int find_desc(struct restore_tree *tree, const struct restore_plan *plan,
		     const struct crib_file *f, size_t *index, struct tool_error *err)
{
	const struct crib_pipe *pr = crib_file_is_pipe(f->type) ? pipe_record(tree, plan->proc.pid, f->fd) : NULL;
	struct plan_desc *d;
	size_t i;

	if (crib_file_is_pipe(f->type) && !pr)
		return tool_fail(err, 0, "process %llu, fd %llu: a pipe the snapshot does not "
				 "describe", (unsigned long long)plan->proc.pid,
				 (unsigned long long)f->fd);
	for (i = 0; i < tree->descs.n; i++) {
		d = &tree->descs.items[i];
		if (f->desc ? d->file->desc == f->desc :
		    pr && !d->file->desc && d->pipe && d->pipe->pipe_id == pr->pipe_id &&
		    d->end == pr->end) {
			if (d->file->type != f->type)
				return tool_fail(err, 0, "process %llu, fd %llu: description %llu "
						 "recorded as two kinds of file",
						 (unsigned long long)plan->proc.pid,
						 (unsigned long long)f->fd,
						 (unsigned long long)f->desc);
			*index = i;
			return 0;
		}
	}
	d = array_push(&tree->descs);
	if (!d)
		return tool_fail(err, 0, "out of memory");
	d->file = f;
	d->owner = plan;
	d->proc_owner = proc_owner(tree, f);
	d->tty = f->type == CRIB_FILE_CHARDEV ? tty_find(tree, plan->proc.pid, f->fd) : NULL;
	if (pr) {
		d->pipe = plan_find_pipe(tree, pr->pipe_id);
		d->end = pr->end;
	}
	if (f->type == CRIB_FILE_SOCKET) {
		const struct plan_socket *ps = plan_find_socket_fd(tree, plan, f->fd);

		if (!ps)
			return tool_fail(err, 0, "process %llu, fd %llu: a socket the snapshot does "
					 "not describe", (unsigned long long)plan->proc.pid,
					 (unsigned long long)f->fd);
		d->socket = (size_t)(plan_find_socket_id(tree, ps->s.sock_id) - tree->sockets.items);
	}
	*index = tree->descs.n - 1;
	return 0;
}

int files_link(struct restore_tree *tree, struct tool_error *err)
{
	struct restore_plan *plan;
	struct plan_fd *pf;
	size_t i, j;

	for (i = 0; i < tree->procs.n; i++) {
		plan = tree->procs.items[i];
		for (j = 0; j < plan->files.n; j++) {
			pf = array_push(&plan->fds);
			if (!pf)
				return tool_fail(err, 0, "out of memory");
			pf->fd = plan->files.items[j].fd;
			pf->cloexec = plan->files.items[j].cloexec;
			if (find_desc(tree, plan, &plan->files.items[j], &pf->desc, err))
				return -1;
		}
	}
	return 0;
}

/* What crib-restore has open itself: /proc/self/fd lists it in one go. */
static int highest_open_fd(void)
{
	struct rlimit rl;
	struct dirent *e;
	int fd, max = 2;
	DIR *dir = opendir("/proc/self/fd");

	if (dir) {
		while ((e = readdir(dir))) {
			fd = e->d_name[0] == '.' ? -1 : atoi(e->d_name);
			if (fd > max)
				max = fd;
		}
		closedir(dir);
		return max;
	}
	/* no procfs: a fcntl() a descriptor at a time, up to the limit */
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur > 65536)
		rl.rlim_cur = 65536;
	for (fd = 0; fd < (int)rl.rlim_cur; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			max = fd;
	return max;
}

int files_park_base(const struct restore_tree *tree)
{
	int max = highest_open_fd();
	size_t i, j;

	for (i = 0; i < tree->procs.n; i++)
		for (j = 0; j < tree->procs.items[i]->files.n; j++)
			if ((int)tree->procs.items[i]->files.items[j].fd > max)
				max = (int)tree->procs.items[i]->files.items[j].fd;
	if (events_highest_tfd(tree) > max)
		max = events_highest_tfd(tree);
	return (max + 64) & ~63;
}

static int open_file(const struct restore_tree *tree, const struct crib_file *f, int at,
		     struct tool_error *err)
{
	int flags = (int)(f->flags & (O_ACCMODE | REOPEN_FLAGS));
	int fd = f->ghost_id ? ghost_open(tree, f->ghost_id, flags) : open(f->path, flags);

	if (desc_park(fd, at) < 0)
		return tool_fail(err, errno, "cannot reopen fd %llu, %s", (unsigned long long)f->fd,
				 f->path);
	if ((f->type == CRIB_FILE_REGULAR || f->type == CRIB_FILE_MEMFD) &&
	    !(f->flags & O_PATH) &&
	    lseek(at, f->pos, SEEK_SET) != f->pos)
		return tool_fail(err, errno, "cannot seek fd %llu, %s, to %lld",
				 (unsigned long long)f->fd, f->path, (long long)f->pos);
	return 0;
}

static int open_mode(uint64_t end)
{
	return end == CRIB_PIPE_BOTH ? O_RDWR : end == CRIB_PIPE_WRITE ? O_WRONLY : O_RDONLY;
}

/* The bytes @pp held, written back through @fd, which writes to it. */
static int fill_pipe(const struct plan_pipe *pp, int fd)
{
	size_t done = 0;
	ssize_t n;

	if (pp->pipe_size && fcntl(fd, F_SETPIPE_SZ, (int)pp->pipe_size) < 0)
		return -1;
	while (done < pp->len) {
		n = write(fd, pp->data + done, pp->len - done);
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

/*
 * A pipe and its descriptions, from the descriptions @first on: the new
 * pipe's two ends go to the first description of each kind, others open
 * it again through /proc/self/fd.  What the dead process had closed is
 * closed.
 */
static int make_pipe(const struct restore_tree *tree, size_t first, int base,
		     struct tool_error *err)
{
	const struct plan_pipe *pp = tree->descs.items[first].pipe;
	int p[2] = { -1, -1 }, fd, from;
	bool got_read = false, got_write = false;
	char path[64];
	size_t i;

	if (pipe2(p, O_CLOEXEC) || fill_pipe(pp, p[1]))
		goto fail;
	for (i = first; i < tree->descs.n; i++) {
		const struct plan_desc *d = &tree->descs.items[i];

		if (d->pipe != pp)
			continue;
		if (d->end == CRIB_PIPE_READ && !got_read) {
			fd = desc_park(p[0], base + (int)i);
			got_read = fd >= 0;
			p[0] = fd;
		} else if (d->end == CRIB_PIPE_WRITE && !got_write) {
			fd = desc_park(p[1], base + (int)i);
			got_write = fd >= 0;
			p[1] = fd;
		} else {
			from = d->end == CRIB_PIPE_WRITE ? p[1] : p[0];
			snprintf(path, sizeof(path), "/proc/self/fd/%d", from);
			fd = desc_park(open(path, open_mode(d->end)), base + (int)i);
		}
		if (fd < 0 || desc_set_status_flags(fd, d->file))
			goto fail;
	}
	/* An end no one of the tree holds was closed by all: close it again. */
	if (!got_read)
		close(p[0]);
	if (!got_write)
		close(p[1]);
	return 0;
fail:
	return tool_fail(err, errno, "cannot make pipe %llu again with its %zu bytes",
			 (unsigned long long)pp->pipe_id, pp->len);
}

/*
 * A FIFO: a description of crib-restore's own, for reading and writing,
 * holds it open without blocking while its descriptions open it by its
 * path (non-blocking first, their flags after) and its bytes go back in.
 */
static int make_fifo(const struct restore_tree *tree, size_t first, int base,
		     struct tool_error *err)
{
	const struct plan_desc *fd0 = &tree->descs.items[first];
	const struct plan_pipe *pp = fd0->pipe;
	const char *path = fd0->file->path;
	int hold, fd;
	size_t i;

	hold = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (hold < 0 || fill_pipe(pp, hold) || file_set_mtime(hold, pp->mtime_ns))
		goto fail;
	for (i = first; i < tree->descs.n; i++) {
		const struct plan_desc *d = &tree->descs.items[i];

		if (d->pipe != pp)
			continue;
		fd = desc_park(open(path, open_mode(d->end) | O_NONBLOCK), base + (int)i);
		if (fd < 0 || desc_set_status_flags(fd, d->file))
			goto fail;
	}
	close(hold);
	return 0;
fail:
	if (hold >= 0)
		close(hold);
	return tool_fail(err, errno, "cannot open the FIFO %s again with its %zu bytes", path,
			 pp->len);
}

/* The first description of each pipe makes the pipe and all its descriptions. */
static bool first_of_pipe(const struct restore_tree *tree, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (tree->descs.items[j].pipe == tree->descs.items[i].pipe)
			return false;
	return true;
}

int files_socket_fd(const struct restore_tree *tree, int base, size_t i)
{
	const struct plan_socket *first = plan_find_socket_id(tree, tree->sockets.items[i].s.sock_id);
	size_t d;

	for (d = 0; d < tree->descs.n; d++)
		if (tree->descs.items[d].file->type == CRIB_FILE_SOCKET &&
		    tree->descs.items[d].socket == (size_t)(first - tree->sockets.items))
			return base + (int)d;
	return -1;
}

static int raise_nofile(rlim_t need, struct tool_error *err)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return tool_fail(err, errno, "getrlimit");
	if (rl.rlim_cur >= need)
		return 0;
	rl.rlim_cur = need;
	if (rl.rlim_max < need)
		rl.rlim_max = need;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return tool_fail(err, errno, "cannot allow %llu descriptors",
				 (unsigned long long)need);
	return 0;
}

int files_make(const struct restore_tree *tree, struct udp_refill *refill,
	       const struct restore_fault *fault, int base,
	       struct tool_error *err)
{
	int temp = base + (int)tree->descs.n + 64;
	int *sockets = calloc(tree->sockets.n + 1, sizeof(*sockets));
	const struct plan_desc *d;
	size_t i;
	int ret = -1;

	if (!sockets)
		return tool_fail(err, 0, "out of memory");
	if (raise_nofile((rlim_t)temp + 2 * tree->sockets.n + 1024, err))
		goto out;
	if (sockets_create(tree, refill, fault, temp, sockets, err))
		goto out;
	for (i = 0; i < tree->descs.n; i++) {
		d = &tree->descs.items[i];
		if (d->file->type == CRIB_FILE_SOCKET) {
			/* made blocking, as a new socket is: the description's own flags */
			if (dup3(sockets[d->socket], base + (int)i, O_CLOEXEC) < 0 ||
			    desc_set_status_flags(base + (int)i, d->file)) {
				tool_fail(err, errno, "cannot park a socket");
				goto out;
			}
		} else if (d->file->type == CRIB_FILE_PIPE) {
			if (first_of_pipe(tree, i) && make_pipe(tree, i, base, err))
				goto out;
		} else if (d->file->type == CRIB_FILE_FIFO) {
			if (first_of_pipe(tree, i) && make_fifo(tree, i, base, err))
				goto out;
		} else if (d->tty) {
			if (tty_first_of_pair(tree, i) && tty_make(tree, i, base, err))
				goto out;
		} else if (crib_file_is_event(d->file->type)) {
			if (events_make(tree, d, base + (int)i, err))
				goto out;
		} else if (d->file->type == CRIB_FILE_PIDFD) {
			continue;	/* made by its holders, once the tree exists (pidfd.c) */
		} else if (!d->proc_owner && open_file(tree, d->file, base + (int)i, err)) {
			goto out;
		}
	}
	ret = events_fill_epolls(tree, base, err);
out:
	/* the sockets as sockets_create() made them, now parked */
	close_range((unsigned int)temp, ~0U, 0);
	free(sockets);
	return ret;
}

/*
 * O_ASYNC at the descriptor's own number: the kernel notes it with the
 * description (fasync), and a SIGIO's si_fd is that number.
 */
static int set_async(int fd, const struct crib_file *f)
{
	int fl;

	if (!(f->flags & O_ASYNC))
		return 0;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || (fl & O_ASYNC))
		return fl < 0 ? -1 : 0;
	return fcntl(fd, F_SETFL, fl | O_ASYNC);
}

int files_install(const struct restore_tree *tree, const struct restore_plan *plan, int base,
		  struct tool_error *err)
{
	const struct plan_fd *pf;
	size_t i;

	for (i = 0; i < plan->fds.n; i++) {
		pf = &plan->fds.items[i];
		if (tree->descs.items[pf->desc].file->type == CRIB_FILE_PIDFD)
			continue;	/* not made yet (pidfd.c) */
		if (dup3(base + (int)pf->desc, (int)pf->fd, pf->cloexec ? O_CLOEXEC : 0) < 0)
			return tool_fail(err, errno, "cannot place fd %llu",
					 (unsigned long long)pf->fd);
		if (set_async((int)pf->fd, tree->descs.items[pf->desc].file))
			return tool_fail(err, errno, "cannot set O_ASYNC on fd %llu",
					 (unsigned long long)pf->fd);
	}
	close_range((unsigned int)base, (unsigned int)(base + (int)tree->descs.n - 1), 0);
	return 0;
}

int files_set_owners(const struct restore_tree *tree, int base, struct tool_error *err)
{
	static const char *const kind[] = { "thread", "process", "process group" };
	const struct plan_desc *d;
	struct f_owner_ex owner;
	size_t i;

	for (i = 0; i < tree->descs.n; i++) {
		d = &tree->descs.items[i];
		if (d->proc_owner || d->file->type == CRIB_FILE_PIDFD || tty_is_dev_tty(d))
			continue;	/* not made here; files_check() refuses an owner */
		if (d->file->signal && fcntl(base + (int)i, F_SETSIG, (int)d->file->signal))
			return tool_fail(err, errno, "fd %llu of process %llu: cannot set its "
					 "signal for I/O to %llu", (unsigned long long)d->file->fd,
					 (unsigned long long)d->owner->proc.pid,
					 (unsigned long long)d->file->signal);
		if (!d->file->owner_pid)
			continue;
		owner = (struct f_owner_ex){ .type = (int)d->file->owner_type,
					     .pid = (pid_t)d->file->owner_pid };
		if (fcntl(base + (int)i, F_SETOWN_EX, &owner))
			return tool_fail(err, errno, "fd %llu of process %llu: cannot give its "
					 "SIGIO to %s %llu", (unsigned long long)d->file->fd,
					 (unsigned long long)d->owner->proc.pid,
					 kind[d->file->owner_type],
					 (unsigned long long)d->file->owner_pid);
	}
	return 0;
}

int files_open_own_proc(const struct restore_ctx *ctx, const struct restore_plan *plan,
			struct tool_error *err)
{
	const struct restore_tree *tree = ctx->tree;
	size_t i;

	for (i = 0; i < tree->descs.n; i++)
		if (tree->descs.items[i].proc_owner == plan &&
		    open_file(tree, tree->descs.items[i].file, ctx->park_base + (int)i, err))
			return -1;
	return 0;
}

int files_open_proc(const struct restore_ctx *ctx, const struct restore_plan *plan,
		    struct tool_error *err)
{
	const struct restore_tree *tree = ctx->tree;
	const struct plan_desc *d;
	size_t i;
	int at;

	for (i = 0; i < plan->fds.n; i++) {
		d = &tree->descs.items[plan->fds.items[i].desc];
		at = ctx->park_base + (int)plan->fds.items[i].desc;
		/* not inherited from the process it names, nor opened for an earlier fd */
		if (!d->proc_owner || fcntl(at, F_GETFD) >= 0)
			continue;
		tree_wait_born(ctx, d->proc_owner);
		if (open_file(tree, d->file, at, err))
			return -1;
	}
	return 0;
}
