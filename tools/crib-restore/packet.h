/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Packet sockets (packet.c).
 */
#ifndef CRIB_RESTORE_PACKET_H
#define CRIB_RESTORE_PACKET_H

#include <stdbool.h>

#include "socket_ops.h"

bool packet_is(const struct crib_socket *s);
int packet_check(const struct restore_tree *tree, const struct plan_socket *ps,
		 struct tool_error *err);
int packet_create(struct sock_job *j, const struct plan_socket *ps);

#endif /* CRIB_RESTORE_PACKET_H */
