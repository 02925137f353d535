/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The process record (task.c).
 */
#ifndef CRIB_RESTORE_TASK_H
#define CRIB_RESTORE_TASK_H

#include "plan.h"

int task_take(struct restore_tree *tree, const struct crib_process *p, struct tool_error *err);
void task_free(struct restore_plan *plan);
/* The process-wide attributes the restorer sets: its limits, dumpable. */
void task_fill(struct rst_args *a, const struct restore_plan *plan);
/* The working and root directories are there (a removed one: its parent). */
int task_check_dirs(const struct restore_plan *plan, struct tool_error *err);

#endif /* CRIB_RESTORE_TASK_H */
