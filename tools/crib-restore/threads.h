/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thread records (threads.c).
 */
#ifndef CRIB_RESTORE_THREADS_H
#define CRIB_RESTORE_THREADS_H

#include "plan.h"

int threads_take(struct restore_plan *plan, const struct crib_thread *t, struct tool_error *err);
void threads_free(struct restore_plan *plan);
/*
 * The threads, for the restorer: their array at @off in the area, their
 * pending signals from @siginfo_off on, their stacks below @stacks_off +
 * (i + 1) stacks.  Returns where the siginfos that follow them go.
 */
uint64_t threads_fill(struct rst_args *a, const struct restore_plan *plan, uint64_t off,
		      uint64_t siginfo_off, uint64_t stacks_off);

#endif /* CRIB_RESTORE_THREADS_H */
