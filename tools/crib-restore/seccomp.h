/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Seccomp filters and modes (seccomp.c).
 */
#ifndef CRIB_RESTORE_SECCOMP_H
#define CRIB_RESTORE_SECCOMP_H

#include "plan.h"

int seccomp_take_filter(struct restore_tree *tree, const struct crib_seccomp_filter *f,
			struct tool_error *err);
/* A thread's mode and filters: its thread record and the filters' came before. */
int seccomp_take(struct restore_tree *tree, struct restore_plan *plan,
		 const struct crib_seccomp *s, struct tool_error *err);
/* Once the process is read: what its threads share can be made again. */
int seccomp_check(const struct restore_plan *plan, struct tool_error *err);
/* Whether some process of @tree runs under seccomp: the tracer then suspends it. */
bool seccomp_in_tree(const struct restore_tree *tree);
/* The room the restorer's filters take in the area, and their filling at @off. */
size_t seccomp_area_size(const struct restore_plan *plan);
void seccomp_fill(struct rst_args *a, const struct restore_plan *plan, uint64_t off);
void seccomp_free_thread(struct plan_thread *pt);
void seccomp_free(struct restore_tree *tree);

#endif /* CRIB_RESTORE_SECCOMP_H */
