// SPDX-License-Identifier: GPL-2.0
/*
 * The timers record: the interval timers and the POSIX timers, as time
 * left, which the restorer arms again.
 */
#include <stdlib.h>
#include <string.h>

#include "crib-restore.h"

int timers_take(struct restore_plan *plan, const struct crib_timers *t,
		struct tool_error *err)
{
	struct crib_posix_timer *posix;
	size_t i;

	posix = calloc(t->n_posix ? t->n_posix : 1, sizeof(*posix));
	if (!posix)
		return tool_fail(err, 0, "out of memory");
	memcpy(posix, t->posix, t->n_posix * sizeof(*posix));
	for (i = 1; i < t->n_posix; i++)
		if (posix[i].id <= posix[i - 1].id) {
			free(posix);
			return tool_fail(err, 0, "POSIX timers out of order (id %llu after %llu)",
					 (unsigned long long)posix[i].id,
					 (unsigned long long)posix[i - 1].id);
		}
	plan->timers = *t;
	plan->timers.posix = posix;
	plan->have_timers = true;
	return 0;
}


void timers_free(struct restore_plan *plan)
{
	free((void *)plan->timers.posix);
}
