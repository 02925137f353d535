/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared memory objects mapped by several VMAs (shmem.c).
 */
#ifndef CRIB_RESTORE_SHMEM_H
#define CRIB_RESTORE_SHMEM_H

#include "plan.h"

/*
 * Shared memory objects (shmem.c): each mapped once in crib-restore, the
 * pages of any of its VMAs written into it as they are read; each process
 * opens the objects it maps (through /proc/self/map_files), and its
 * restorer maps them.
 */
int shmem_take(struct restore_tree *tree, const struct crib_shmem *s, struct tool_error *err);
struct plan_shmem *shmem_find(const struct restore_tree *tree, uint64_t id);
/* True when the pages at @addr of @pv went into its object. */
bool shmem_take_pages(struct restore_tree *tree, const struct plan_vma *pv, uint64_t addr,
		      const void *data, uint64_t len, uint64_t page_size);
/* A descriptor of @sh's object, opened in this process; -1 with errno. */
int shmem_open(const struct plan_shmem *sh);
void shmem_free(struct restore_tree *tree);

#endif /* CRIB_RESTORE_SHMEM_H */
