// SPDX-License-Identifier: GPL-2.0
/*
 * A socket's classic BPF filter (SO_ATTACH_FILTER) and its lock
 * (SO_LOCK_FILTER): spec, the socket_filter record.
 *
 * dump_sockets says whether a socket has a filter; its program is read
 * with getsockopt(SO_GET_FILTER) on a copy of the descriptor taken with
 * pidfd_getfd(), which gives the program as the process attached it.  An
 * extended BPF program (SO_ATTACH_BPF) has none to give, and is refused.
 */
#include <errno.h>
#include <linux/filter.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pidfd_getfd.h"
#include "sockets.h"

#ifndef SO_GET_FILTER
#define SO_GET_FILTER	SO_ATTACH_FILTER
#endif

/* The program of @sock's filter into @e; errno EACCES for an extended one. */
static int get_program(int sock, struct socket_entry *e)
{
	socklen_t n = 0;

	if (getsockopt(sock, SOL_SOCKET, SO_GET_FILTER, NULL, &n))
		return -1;
	if (!n || n > BPF_MAXINSNS) {
		errno = n ? E2BIG : ENOENT;
		return -1;
	}
	e->filter = calloc(n, sizeof(*e->filter));
	if (!e->filter)
		return -1;
	e->n_filter = n;
	if (getsockopt(sock, SOL_SOCKET, SO_GET_FILTER, e->filter, &n) || n != e->n_filter) {
		errno = errno ? errno : EAGAIN;
		return -1;
	}
	return 0;
}

int socket_filter_read(struct dump_job *job, struct socket_entry *e)
{
	int fd = e->k.fd, sock, ret;

	e->filter_locked = e->k.bits & (1ull << DUMP_SO_LOCK_FILTER);
	if (!(e->k.bits & (1ull << DUMP_SO_FILTER)))
		return 0;
	sock = pidfd_take_fd(job->pid, fd);
	if (sock < 0)
		return tool_fail(&job->err, errno, "process %d, fd %d: cannot take the socket to "
				 "read its filter", (int)job->pid, fd);
	ret = get_program(sock, e);
	if (ret && errno == EACCES)
		tool_fail(&job->err, 0, "process %d, fd %d: the socket has an extended BPF "
			  "program (SO_ATTACH_BPF), which a snapshot does not carry: that cannot "
			  "be restored", (int)job->pid, fd);
	else if (ret)
		tool_fail(&job->err, errno, "process %d, fd %d: cannot read the socket's filter "
			  "(SO_GET_FILTER)", (int)job->pid, fd);
	close(sock);
	return ret ? -1 : 0;
}

int socket_filter_write(struct dump_job *job, const struct socket_entry *e)
{
	if (!e->n_filter && !e->filter_locked)
		return 0;
	if (crib_write_socket_filter(job->writer, &(struct crib_socket_filter) {
		.sock_id = e->k.ino,
		.insns = { .data = e->filter, .len = e->n_filter * sizeof(*e->filter) },
		.locked = e->filter_locked,
	}))
		return tool_fail(&job->err, 0, "writing the filter of fd %d: %s", e->k.fd,
				 crib_writer_error(job->writer)->msg);
	return 0;
}
