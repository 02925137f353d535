/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sockets' classic BPF filters and their locks (socket_filter.c).
 */
#ifndef CRIB_RESTORE_SOCKET_FILTER_H
#define CRIB_RESTORE_SOCKET_FILTER_H

#include "socket_ops.h"

/* A socket_filter record, to the socket it names, whose record came before. */
int socket_filter_take(struct restore_tree *tree, const struct crib_socket_filter *f,
		       struct tool_error *err);
/*
 * Attach @ps's filter to @fd, then lock it, once the socket is made and
 * its queues are filled (a filter would judge the packets that refill
 * them).
 */
int socket_filter_attach(struct sock_job *j, const struct plan_socket *ps, int fd);

#endif /* CRIB_RESTORE_SOCKET_FILTER_H */
