/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tree a restore makes: its links, and what its processes tell each
 * other while they are made (tree.c).
 */
#ifndef CRIB_RESTORE_TREE_H
#define CRIB_RESTORE_TREE_H

#include "plan.h"

struct restore_area;
struct restore_fault;

/*
 * The tree (tree.c): each process's parent and children, the order
 * sessions and groups are made in, helpers for groups whose leader is
 * gone; refused when it cannot be made.  After plan_read().
 */
int tree_link(struct restore_tree *tree, struct tool_error *err);
/* Every PID the restore takes (processes, threads, helpers) is free. */
int tree_check_pids(const struct restore_tree *tree, struct tool_error *err);

/*
 * What the processes of a tree being made tell each other: a word per
 * process and per helper, in memory they all inherit from crib-restore.
 */
struct tree_ctl;

struct tree_ctl *tree_ctl_new(const struct restore_tree *tree, struct tool_error *err);
void tree_ctl_free(struct tree_ctl *ctl, const struct restore_tree *tree);
/*
 * Where a process without a restore area (a zombie) or a helper writes
 * its failure; slot: the process's index, or tree->procs.n + the helper's.
 */
const char *tree_ctl_message(const struct tree_ctl *ctl, size_t slot);
char *tree_ctl_message_slot(struct tree_ctl *ctl, size_t slot, size_t *len);

/* What every process of the tree needs while it still runs crib-restore's code. */
struct restore_ctx {
	const struct restore_tree *tree;
	struct restore_area *areas;	/* by process index; zombies have none */
	struct tree_ctl *ctl;
	int park_base;			/* the descriptions, from here up */
	const struct restore_fault *fault;
	pid_t fault_pid;		/* the process a child or restorer fault fails */
	int go_fd;			/* the root reads it: crib-restore traces it */
};

/* fork() into process ID @pid (clone3 with set_tid): the child's 0, the pid, or -1. */
pid_t fork_with_pid(pid_t pid);

/*
 * The tree's part of the child (tree.c), once it forked its children in
 * the order tree_link() settled: make or join its group; end a zombie; a
 * group helper's whole life.  Each returns in the process that was there,
 * or fails with @err.
 */
int tree_join_group(const struct restore_ctx *ctx, const struct restore_plan *plan,
		    struct tool_error *err);
void tree_end_zombie(const struct restore_ctx *ctx, const struct restore_plan *plan)
	__attribute__((noreturn));
/* @plan's process exists: what is under /proc/PID/ for it may be opened. */
void tree_mark_born(const struct restore_ctx *ctx, const struct restore_plan *plan);
void tree_wait_born(const struct restore_ctx *ctx, const struct restore_plan *plan);

#endif /* CRIB_RESTORE_TREE_H */
