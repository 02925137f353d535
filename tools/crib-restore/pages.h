/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory contents (pages.c): each run taken as the snapshot is read, and
 * placed where it waits for the restorer.
 */
#ifndef CRIB_RESTORE_PAGES_H
#define CRIB_RESTORE_PAGES_H

#include "plan.h"

/* @stored: the data lies in the snapshot itself (a stored_pages record). */
int pages_take(struct restore_tree *tree, struct restore_plan *plan, const struct crib_pages *p,
	       bool stored, struct tool_error *err);
/*
 * Once every VMA is known: the runs left in the snapshot for a VMA that
 * must keep a shadow (direct_keeps()) go to its shadow after all.
 */
int pages_settle_direct(struct restore_tree *tree, struct restore_plan *plan,
			struct tool_error *err);
/* Once the stream is read: mark the VMAs that get contents; every run lies inside VMAs. */
int pages_index(struct restore_plan *plan, struct tool_error *err);
void pages_free(struct restore_plan *plan);
/* The runs the restorer fills, at @off in the area. */
void pages_fill(struct rst_args *a, const struct restore_plan *plan, uint64_t off);

#endif /* CRIB_RESTORE_PAGES_H */
