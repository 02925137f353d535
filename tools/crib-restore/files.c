// SPDX-License-Identifier: GPL-2.0
/*
 * Open every descriptor of the snapshot at its original number, in the
 * child, before the restorer runs.  Each open file, pipe and socket is
 * created once, parked at a number at or above @temp_base (above every
 * number the snapshot uses, so nothing lands on a slot still to be
 * filled), then duplicated into its slots, and the parked copies are
 * closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crib-restore.h"

/* Status flags open(2) takes back; the access mode is added separately. */
#define REOPEN_FLAGS	(O_APPEND | O_NONBLOCK | O_DSYNC | O_SYNC | O_DIRECT | \
			 O_NOATIME | O_LARGEFILE | O_DIRECTORY | O_NOFOLLOW | O_PATH)

struct parked {
	int fd;			/* at or above temp_base */
	uint64_t pipe_id;	/* pipes: which one; the fd is its read end */
	int write_fd;		/* pipes: the write end */
};

static int park(int fd, int temp_base)
{
	int parked;

	if (fd < 0)
		return -1;
	parked = fcntl(fd, F_DUPFD, temp_base);
	close(fd);
	return parked;
}

static int open_file(const struct crib_file *f, int temp_base, struct tool_error *err)
{
	int flags = (int)(f->flags & (O_ACCMODE | REOPEN_FLAGS));
	int fd;

	fd = park(open(f->path, flags), temp_base);
	if (fd < 0)
		return tool_fail(err, errno, "cannot reopen fd %llu, %s", (unsigned long long)f->fd,
				 f->path);
	if (f->type == CRIB_FILE_REGULAR && !(f->flags & O_PATH) &&
	    lseek(fd, f->pos, SEEK_SET) != f->pos) {
		tool_fail(err, errno, "cannot seek fd %llu, %s, to %lld", (unsigned long long)f->fd,
			  f->path, (long long)f->pos);
		close(fd);
		return -1;
	}
	return fd;
}

/* A new pipe with its buffered bytes back in it. */
static int make_pipe(const struct plan_pipe *pp, struct parked *out, int temp_base,
		     struct tool_error *err)
{
	int p[2];
	ssize_t n;
	size_t done = 0;

	if (pipe(p))
		return tool_fail(err, errno, "pipe");
	out->fd = park(p[0], temp_base);
	out->write_fd = park(p[1], temp_base);
	out->pipe_id = pp->pipe_id;
	if (out->fd < 0 || out->write_fd < 0)
		goto fail;
	if (pp->pipe_size && fcntl(out->fd, F_SETPIPE_SZ, (int)pp->pipe_size) < 0)
		goto fail;
	while (done < pp->len) {
		n = write(out->write_fd, pp->data + done, pp->len - done);
		if (n <= 0)
			goto fail;
		done += (size_t)n;
	}
	return 0;
fail:
	return tool_fail(err, errno, "cannot recreate pipe %llu with its %zu bytes",
			 (unsigned long long)pp->pipe_id, pp->len);
}

static int pipe_end_fd(const struct restore_plan *plan, const struct parked *pipes,
		       uint64_t fd)
{
	size_t i, j;

	for (i = 0; i < plan->pipe_fds.n; i++) {
		if (plan->pipe_fds.items[i].fd != fd)
			continue;
		for (j = 0; j < plan->pipes.n; j++)
			if (pipes[j].pipe_id == plan->pipe_fds.items[i].pipe_id)
				return plan->pipe_fds.items[i].end == CRIB_PIPE_READ ?
					pipes[j].fd : pipes[j].write_fd;
	}
	return -1;
}

/* Put @src at @target with the descriptor's own flags. */
static int install(const struct crib_file *f, int src, struct tool_error *err)
{
	int target = (int)f->fd;
	int fl;

	if (dup2(src, target) != target)
		goto fail;
	if (f->cloexec && fcntl(target, F_SETFD, FD_CLOEXEC))
		goto fail;
	if (f->type == CRIB_FILE_PIPE || f->type == CRIB_FILE_SOCKET) {
		/* Made blocking, as a new pipe or socket is: set this one's flags. */
		fl = fcntl(target, F_GETFL);
		if (fl < 0 || fcntl(target, F_SETFL,
				    (fl & ~O_NONBLOCK) | ((int)f->flags & O_NONBLOCK)))
			goto fail;
	}
	return 0;
fail:
	return tool_fail(err, errno, "cannot place fd %d", target);
}

/* The parked socket for descriptor @fd: that of the first with its sock_id. */
static int socket_fd(const struct restore_plan *plan, const int *sockets, uint64_t fd)
{
	const struct plan_socket *ps = plan_find_socket_fd(plan, fd);

	if (!ps)
		return -1;
	ps = plan_find_socket_id(plan, ps->s.sock_id);
	return sockets[ps - plan->sockets.items];
}

int files_restore(const struct restore_plan *plan, struct udp_refill *refill, int temp_base,
		  struct tool_error *err)
{
	struct parked *pipes = calloc(plan->pipes.n + 1, sizeof(*pipes));
	int *files = calloc(plan->files.n + 1, sizeof(*files));
	int *sockets = calloc(plan->sockets.n + 1, sizeof(*sockets));
	const struct crib_file *f;
	size_t i;
	int src, ret = -1;

	if (!pipes || !files || !sockets) {
		tool_fail(err, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < plan->pipes.n; i++)
		if (make_pipe(&plan->pipes.items[i], &pipes[i], temp_base, err))
			goto out;
	if (sockets_create(plan, refill, temp_base, sockets, err))
		goto out;
	for (i = 0; i < plan->files.n; i++) {
		f = &plan->files.items[i];
		files[i] = -1;
		if (f->type != CRIB_FILE_PIPE && f->type != CRIB_FILE_SOCKET) {
			files[i] = open_file(f, temp_base, err);
			if (files[i] < 0)
				goto out;
		}
	}
	for (i = 0; i < plan->files.n; i++) {
		f = &plan->files.items[i];
		if (f->type == CRIB_FILE_PIPE)
			src = pipe_end_fd(plan, pipes, f->fd);
		else if (f->type == CRIB_FILE_SOCKET)
			src = socket_fd(plan, sockets, f->fd);
		else
			src = files[i];
		if (src < 0) {
			tool_fail(err, 0, "fd %llu: no %s for it", (unsigned long long)f->fd,
				  f->type == CRIB_FILE_PIPE ? "pipe end" : "socket");
			goto out;
		}
		if (install(f, src, err))
			goto out;
	}
	ret = 0;
out:
	/* The parked copies: everything from temp_base up. */
	close_range((unsigned int)temp_base, ~0U, 0);
	free(pipes);
	free(files);
	free(sockets);
	return ret;
}
