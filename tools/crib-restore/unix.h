/* SPDX-License-Identifier: GPL-2.0 */
/*
 * UNIX sockets (unix.c).
 */
#ifndef CRIB_RESTORE_UNIX_H
#define CRIB_RESTORE_UNIX_H

#include "socket_ops.h"

int unix_check(const struct restore_tree *tree, const struct plan_socket *ps,
	       struct tool_error *err);
int unix_create(struct sock_job *j, const struct plan_socket *ps);
int unix_connect(struct sock_job *j, const struct plan_socket *ps);
int unix_fill(struct sock_job *j, const struct plan_socket *ps);

#endif /* CRIB_RESTORE_UNIX_H */
