/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inotify watches (inotify.c).
 */
#ifndef CRIB_RESTORE_INOTIFY_H
#define CRIB_RESTORE_INOTIFY_H

#include "plan.h"

/*
 * Inotify watches (inotify.c): taken as the snapshot is read, checked
 * (each of an inotify of the snapshot, its path there), and added when
 * events_make() makes their instance, which inotify_make() returns.
 */
int inotify_take_watch(struct restore_tree *tree, const struct crib_inotify_watch *w,
		       struct tool_error *err);
int inotify_check(const struct restore_tree *tree, struct tool_error *err);
int inotify_make(const struct restore_tree *tree, const struct plan_desc *d,
		 struct tool_error *err);
void inotify_free(struct restore_tree *tree);

#endif /* CRIB_RESTORE_INOTIFY_H */
