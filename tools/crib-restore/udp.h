/* SPDX-License-Identifier: GPL-2.0 */
/*
 * UDP sockets (udp.c).
 */
#ifndef CRIB_RESTORE_UDP_H
#define CRIB_RESTORE_UDP_H

#include "socket_ops.h"

int udp_check(const struct restore_tree *tree, const struct plan_socket *ps,
	      struct tool_error *err);
int udp_create(struct sock_job *j, const struct plan_socket *ps);
int udp_fill(struct sock_job *j, const struct plan_socket *ps);

#endif /* CRIB_RESTORE_UDP_H */
