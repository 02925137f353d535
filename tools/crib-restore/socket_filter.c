// SPDX-License-Identifier: GPL-2.0
/*
 * A socket's classic BPF filter (SO_ATTACH_FILTER) and its lock
 * (SO_LOCK_FILTER), given back once everything else of the socket is:
 * the filter judges only what arrives from then on, and once locked no
 * option could be changed.
 */
#include <errno.h>
#include <linux/filter.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "plan.h"
#include "socket_filter.h"

int socket_filter_take(struct restore_tree *tree, const struct crib_socket_filter *f,
		       struct tool_error *err)
{
	struct plan_socket *ps = plan_find_socket_id(tree, f->sock_id);
	size_t n = f->insns.len / sizeof(struct sock_filter);

	if (!ps || ps->have_filter)
		return tool_fail(err, 0, "a filter for socket %llu, which %s",
				 (unsigned long long)f->sock_id,
				 ps ? "has one already" : "no descriptor holds");
	if (n > BPF_MAXINSNS || f->insns.len % sizeof(struct sock_filter))
		return tool_fail(err, 0, "fd %llu: a socket filter of %zu bytes, not 1 to %d "
				 "instructions", (unsigned long long)ps->s.fd, f->insns.len,
				 BPF_MAXINSNS);
	ps->filter = malloc(f->insns.len ? f->insns.len : 1);
	if (!ps->filter)
		return tool_fail(err, 0, "out of memory");
	memcpy(ps->filter, f->insns.data, f->insns.len);
	ps->n_filter = n;
	ps->filter_locked = f->locked;
	ps->have_filter = true;
	return 0;
}

int socket_filter_attach(struct sock_job *j, const struct plan_socket *ps, int fd)
{
	struct sock_fprog prog = { .len = (unsigned short)ps->n_filter, .filter = ps->filter };
	int one = 1;

	if (!ps->have_filter)
		return 0;
	if (ps->n_filter && setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)))
		return sock_fail(j, ps, "attaching its filter (SO_ATTACH_FILTER)", errno);
	if (ps->filter_locked &&
	    setsockopt(fd, SOL_SOCKET, SO_LOCK_FILTER, &one, sizeof(one)))
		return sock_fail(j, ps, "locking its filter (SO_LOCK_FILTER)", errno);
	return 0;
}
