/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What is checked before anything is created (check.c).
 */
#ifndef CRIB_RESTORE_CHECK_H
#define CRIB_RESTORE_CHECK_H

#include "plan.h"

/*
 * That this machine can take a snapshot with header @h (architecture,
 * page size, kernel): checked as soon as the header is read, before the
 * rest of the snapshot is.
 */
int check_header(const struct crib_header *h, struct tool_error *err);
/* Everything checked before anything is created: see check.c. */
int plan_check(const struct restore_tree *tree, struct tool_error *err);

#endif /* CRIB_RESTORE_CHECK_H */
