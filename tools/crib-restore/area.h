/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The restore area each process jumps into the restorer in (area.c).
 */
#ifndef CRIB_RESTORE_AREA_H
#define CRIB_RESTORE_AREA_H

#include "plan.h"

struct restore_fds;

/*
 * The restore area: the restorer code, its arguments, and one stack per
 * thread, in a shared mapping at an address the snapshot leaves free.
 */
struct restore_area {
	void *base;
	size_t len;
	struct rst_args *args;
};

int area_create(struct restore_area *area, const struct restore_plan *plan,
		struct tool_error *err);
/* Fill in the arguments, with the descriptor numbers the child settled on. */
void area_fill(struct restore_area *area, const struct restore_plan *plan,
	       const struct restore_fds *fds);
void area_destroy(struct restore_area *area);
/* The restorer's step as words, for an error message. */
const char *area_step_name(uint32_t step);

#endif /* CRIB_RESTORE_AREA_H */
