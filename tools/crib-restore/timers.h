/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The timers record (timers.c).
 */
#ifndef CRIB_RESTORE_TIMERS_H
#define CRIB_RESTORE_TIMERS_H

#include "plan.h"

int timers_take(struct restore_plan *plan, const struct crib_timers *t, struct tool_error *err);
void timers_free(struct restore_plan *plan);
/* The interval and POSIX timers, for the restorer; @off: the POSIX timers' place in the area. */
void timers_fill(struct rst_args *a, const struct restore_plan *plan, uint64_t off);
/* The POSIX timer ids can be asked for again. */
int timers_check(const struct restore_plan *plan, struct tool_error *err);

#endif /* CRIB_RESTORE_TIMERS_H */
