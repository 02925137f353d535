/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pages copied straight from the mapped snapshot into the new process
 * (direct.c).
 */
#ifndef CRIB_RESTORE_DIRECT_H
#define CRIB_RESTORE_DIRECT_H

#include "plan.h"

/*
 * Pages straight into the new process (direct.c).  While the snapshot is
 * read: 1 when the run at @addr of @pv (@data in the mapped snapshot;
 * NULL: zeros) is left there, to be copied in by direct_fill(); 0 when it
 * goes elsewhere; -1 on failure.
 */
int direct_take(struct restore_plan *plan, struct plan_vma *pv, uint64_t addr,
		 const void *data, uint64_t len, struct tool_error *err);
/*
 * Once every VMA of @plan is known: whether @pv's runs may stay direct.
 * Not when a neighbour would merge with it if both were mapped afresh
 * (the kernel keeps them apart only by where their pages came from): then
 * each keeps a shadow, moved into place pages and all, and they stay apart.
 */
bool direct_keeps(const struct restore_plan *plan, const struct plan_vma *pv);
/* Some process of @tree has runs left to copy in. */
bool direct_any(const struct restore_tree *tree);
/*
 * Threads that copy with the tracer, made before the tree's first process
 * so that none takes a PID the tree needs; NULL: the tracer copies alone.
 */
struct direct_copiers;
struct direct_copiers *direct_copiers_start(const struct restore_tree *tree);
void direct_copiers_stop(struct direct_copiers *c);
/*
 * Process @pid, restored by @plan, trapped in its restorer with @args:
 * copy its direct runs in through its userfaultfd, or write them through
 * /proc/PID/mem when it has none or the copy fails (@copy_fails: a
 * testing aid, it fails after the first piece).
 */
int direct_fill(struct direct_copiers *c, const struct restore_plan *plan, pid_t pid,
		const struct rst_args *args, bool copy_fails, struct tool_error *err);

#endif /* CRIB_RESTORE_DIRECT_H */
