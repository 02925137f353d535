/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The descriptions (files.c): files_link() names each descriptor's, after
 * the tree is read; files_make() makes them all in crib-restore, parked
 * from @base up, sockets too (TCP connections in repair mode);
 * files_install() gives a process its descriptors from them.
 */
#ifndef CRIB_RESTORE_FILES_H
#define CRIB_RESTORE_FILES_H

#include "plan.h"

struct restore_ctx;
struct restore_fault;
struct udp_refill;

int files_link(struct restore_tree *tree, struct tool_error *err);
/* The lowest descriptor number above every one the snapshot and crib-restore use. */
int files_park_base(const struct restore_tree *tree);
int files_make(const struct restore_tree *tree, struct udp_refill *refill,
	       const struct restore_fault *fault, int base,
	       struct tool_error *err);
int files_install(const struct restore_tree *tree, const struct restore_plan *plan, int base,
		  struct tool_error *err);
/*
 * Once every process exists: who gets each description's SIGIO and as
 * which signal (F_SETOWN_EX, F_SETSIG), set on crib-restore's parked copy.
 */
int files_set_owners(const struct restore_tree *tree, int base, struct tool_error *err);
/*
 * A description under /proc/PID/, PID a process of the tree, is made by
 * none of these: files_open_own_proc() opens it in process PID as soon
 * as that exists, before it forks, so that what it forks inherits it;
 * files_open_proc() opens it in any other process that holds it, once
 * PID exists (each its own description, then).
 */
int files_open_own_proc(const struct restore_ctx *ctx, const struct restore_plan *plan,
			struct tool_error *err);
int files_open_proc(const struct restore_ctx *ctx, const struct restore_plan *plan,
		    struct tool_error *err);
/* The parked descriptor of @tree->sockets.items[@i]. */
int files_socket_fd(const struct restore_tree *tree, int base, size_t i);

/* The file, pipe and pipe_data records, as the snapshot is read. */
int files_take(struct restore_plan *plan, const struct crib_file *f, struct tool_error *err);
int files_take_pipe(struct restore_tree *tree, const struct crib_pipe *p, struct tool_error *err);
int files_take_pipe_data(struct restore_tree *tree, const struct crib_pipe_data *d,
			 struct tool_error *err);
void files_free(struct restore_plan *plan);
/* The pipes and the descriptions. */
void files_free_tree(struct restore_tree *tree);
/* Descriptor @pf of @plan can be made again as it was: its file is still there as it was. */
int files_check(const struct restore_tree *tree, const struct restore_plan *plan,
		const struct plan_fd *pf, struct tool_error *err);

#endif /* CRIB_RESTORE_FILES_H */
