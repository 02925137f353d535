/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What is checked before anything is created (check.c).
 */
#ifndef CRIB_RESTORE_CHECK_H
#define CRIB_RESTORE_CHECK_H

#include "plan.h"

/* Everything checked before anything is created: see check.c. */
int plan_check(const struct restore_tree *tree, struct tool_error *err);

#endif /* CRIB_RESTORE_CHECK_H */
