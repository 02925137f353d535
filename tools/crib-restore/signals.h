/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Signal handlers and pending signals (signals.c).
 */
#ifndef CRIB_RESTORE_SIGNALS_H
#define CRIB_RESTORE_SIGNALS_H

#include "plan.h"

/* @n siginfos into a new array at *@out; -1 when out of memory. */
int signals_copy_siginfos(const struct crib_siginfo *in, size_t n, struct plan_siginfo **out);
int signals_take_sighand(struct restore_plan *plan, const struct crib_sighand *s,
			 struct tool_error *err);
int signals_take_sigpending(struct restore_plan *plan, const struct crib_sigpending *s,
			    struct tool_error *err);
void signals_free(struct restore_plan *plan);
/* The handlers, at @off in the area, for the restorer. */
void signals_fill(struct rst_args *a, const struct restore_plan *plan, uint64_t off);
/* The signals pending for the whole process, at @off in the area. */
void signals_fill_shared(struct rst_args *a, const struct restore_plan *plan, uint64_t off);
/* @n siginfos, as the restorer queues them. */
void signals_fill_siginfo(struct rst_siginfo *out, const struct plan_siginfo *in, size_t n);

#endif /* CRIB_RESTORE_SIGNALS_H */
