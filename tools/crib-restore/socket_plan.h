/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Socket and socket queue records, taken into the tree as the snapshot is
 * read (socket_plan.c).
 */
#ifndef CRIB_RESTORE_SOCKET_PLAN_H
#define CRIB_RESTORE_SOCKET_PLAN_H

#include "plan.h"

/* Socket records into the tree: see socket_plan.c. */
int plan_take_socket(struct restore_tree *tree, struct restore_plan *owner,
		     const struct crib_socket *s, struct tool_error *err);
int plan_take_socket_queue(struct restore_tree *tree, const struct crib_socket_queue *q,
			   struct tool_error *err);
void plan_free_sockets(struct restore_tree *tree);
/* The recorded value of @ps's int option @level/@name; false when not recorded. */
bool plan_sockopt_int(const struct plan_socket *ps, int level, int name, int *val);

#endif /* CRIB_RESTORE_SOCKET_PLAN_H */
