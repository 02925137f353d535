/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Netlink sockets (netlink.c).
 */
#ifndef CRIB_RESTORE_NETLINK_H
#define CRIB_RESTORE_NETLINK_H

#include <stdbool.h>

#include "socket_ops.h"

bool netlink_is(const struct crib_socket *s);
int netlink_check(const struct restore_tree *tree, const struct plan_socket *ps,
		  struct tool_error *err);
int netlink_create(struct sock_job *j, const struct plan_socket *ps);

#endif /* CRIB_RESTORE_NETLINK_H */
