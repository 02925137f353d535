/* SPDX-License-Identifier: GPL-2.0 */
/*
 * File locks and leases (locks.c).
 */
#ifndef CRIB_RESTORE_LOCKS_H
#define CRIB_RESTORE_LOCKS_H

#include "plan.h"

/*
 * File locks and leases (locks.c): taken as the snapshot is read, checked
 * before anything is made (each on a descriptor of the snapshot, of a
 * kind and type a restore can take), and taken by each restored process
 * once its descriptors are in place (locks_take()).
 */
int locks_take_record(struct restore_tree *tree, const struct crib_file_lock *l,
		      struct tool_error *err);
int locks_check(const struct restore_tree *tree, struct tool_error *err);
/* Every lock of @plan's, through its own descriptors; run in the process. */
int locks_take(const struct restore_tree *tree, const struct restore_plan *plan,
	       struct tool_error *err);
void locks_free(struct restore_tree *tree);

#endif /* CRIB_RESTORE_LOCKS_H */
