/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memfds and unlinked files, carried whole (ghost.c).
 */
#ifndef CRIB_RESTORE_GHOST_H
#define CRIB_RESTORE_GHOST_H

#include "plan.h"

/*
 * Ghosts (ghost.c): memfds and unlinked files.  Their records go into
 * memfds as the snapshot is read; ghosts_make() makes the unlinked files
 * again (created, filled, opened, unlinked) before the first process;
 * ghost_open() opens one as a descriptor of its own; ghosts_finish() sets
 * their modification times and the memfds' seals once every process maps
 * them.
 */
int ghost_take(struct restore_tree *tree, const struct crib_ghost *g, struct tool_error *err);
int ghost_take_data(struct restore_tree *tree, const struct crib_ghost_data *d,
		    struct tool_error *err);
struct plan_ghost *ghost_find(const struct restore_tree *tree, uint64_t id);
/* An unlinked file's directory is there to make it in again. */
int ghost_check_dir(const struct plan_ghost *pg, struct tool_error *err);
int ghosts_make(const struct restore_tree *tree, struct tool_error *err);
/* A descriptor of ghost @id opened with @flags; -1 with errno. */
int ghost_open(const struct restore_tree *tree, uint64_t id, int flags);
int ghosts_finish(const struct restore_tree *tree, struct tool_error *err);
void ghosts_free(struct restore_tree *tree);
/* A descriptor or mapping (@what) of ghost @id: the snapshot holds it, and it can be made. */
int ghost_check(const struct restore_tree *tree, uint64_t id, const char *what,
		struct tool_error *err);

#endif /* CRIB_RESTORE_GHOST_H */
