/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mm and VMA records (mm.c), and the descriptors of what the VMAs
 * map, which the child opens for the restorer.
 */
#ifndef CRIB_RESTORE_MM_H
#define CRIB_RESTORE_MM_H

#include "plan.h"

/* Helper descriptors the child keeps for the restorer: see child.c. */
struct restore_fds {
	int pages;		/* the page store */
	int exe;
	int *vma;		/* per plan VMA: the file or shared object it maps, or -1 */
	int *opened;		/* distinct files and objects opened for mappings */
	size_t n_opened;
};

int mm_take(struct restore_plan *plan, const struct crib_mm *mm, struct tool_error *err);
int mm_take_vma(struct restore_plan *plan, const struct crib_vma *v, struct tool_error *err);
void mm_free(struct restore_plan *plan);
/* The VMAs (at @off in the area), the vDSO's place and the mm layout, for the restorer. */
void mm_fill(struct rst_args *a, const struct restore_plan *plan, const struct restore_fds *fds,
	     uint64_t off);
/* What @pv maps is still there, as the snapshot holds or recorded it. */
int mm_check_vma(const struct restore_tree *tree, const struct plan_vma *pv,
		 struct tool_error *err);

#endif /* CRIB_RESTORE_MM_H */
