/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TCP sockets (tcp.c): listeners, and connections rebuilt in repair mode.
 */
#ifndef CRIB_RESTORE_TCP_H
#define CRIB_RESTORE_TCP_H

#include <stdbool.h>

#include "socket_ops.h"

int tcp_check(const struct restore_tree *tree, const struct plan_socket *ps,
	      struct tool_error *err);
/* Listening and unconnected sockets. */
int tcp_create(struct sock_job *j, const struct plan_socket *ps);
/* A connection, up to its window, in repair mode. */
int tcp_repair(struct sock_job *j, const struct plan_socket *ps);
/* Out of repair mode. */
int tcp_finish(struct sock_job *j, const struct plan_socket *ps);
/* Once all are out of it: the unsent data, and a FIN sent again. */
int tcp_resume(struct sock_job *j, const struct plan_socket *ps);

/*
 * Whether connection @fd, back in repair mode, has received data or a FIN
 * since it was restored from @ps (or it cannot tell).
 */
bool tcp_took_more(const struct plan_socket *ps, int fd);

#endif /* CRIB_RESTORE_TCP_H */
