/* SPDX-License-Identifier: GPL-2.0 */
/*
 * IP sockets other than TCP and UDP: ICMP echo, UDP-Lite, raw (inet_dgram.c).
 */
#ifndef CRIB_RESTORE_INET_DGRAM_H
#define CRIB_RESTORE_INET_DGRAM_H

#include <stdbool.h>

#include "socket_ops.h"

bool inet_dgram_is(const struct crib_socket *s);
int inet_dgram_check(const struct restore_tree *tree, const struct plan_socket *ps,
		     struct tool_error *err);
int inet_dgram_create(struct sock_job *j, const struct plan_socket *ps);

#endif /* CRIB_RESTORE_INET_DGRAM_H */
