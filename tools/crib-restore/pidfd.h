/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pidfds (pidfd.c).
 */
#ifndef CRIB_RESTORE_PIDFD_H
#define CRIB_RESTORE_PIDFD_H

#include "plan.h"

struct restore_fault;

/*
 * Process @p of the tree (its index in tree->procs) runs system call @nr,
 * its leader stopped in its restore area; the call's result, or -errno,
 * in @ret.  Returns -1, with @err set, only when the process cannot be
 * made to run it.
 */
typedef int (*pidfd_syscall_fn)(void *ctx, size_t p, long nr, uint64_t a0, uint64_t a1,
				uint64_t a2, uint64_t a3, long *ret);

/* The pidfd records, as the snapshot is read. */
int pidfd_take(struct restore_tree *tree, const struct crib_pidfd *p, struct tool_error *err);
void pidfd_free(struct restore_tree *tree);
/*
 * Descriptor @f of @plan, a pidfd, can be made again: the snapshot says
 * what it refers to, a process or thread of the tree or a dead one.
 */
int pidfd_check(const struct restore_tree *tree, const struct restore_plan *plan,
		const struct crib_file *f, struct tool_error *err);
/*
 * Once every process and thread of the tree exists and waits in its
 * restore area: each pidfd description made once, placed at each of its
 * descriptors, in every process that holds it.
 */
int pidfd_make(const struct restore_tree *tree, pidfd_syscall_fn run, void *ctx,
	       struct tool_error *err);

#endif /* CRIB_RESTORE_PIDFD_H */
