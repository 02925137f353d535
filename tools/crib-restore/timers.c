// SPDX-License-Identifier: GPL-2.0
/*
 * The timers record: the interval timers and the POSIX timers, as time
 * left, which the restorer arms again.
 */
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "timers.h"

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

/* ---- checked before anything is made ---- */

int timers_check(const struct restore_plan *plan, struct tool_error *err)
{
	const struct crib_posix_timer *pt;
	size_t i;

	for (i = 0; i < plan->timers.n_posix; i++) {
		pt = &plan->timers.posix[i];
		if (pt->id > INT32_MAX)
			return tool_fail(err, 0, "POSIX timer id %llu is out of range",
					 (unsigned long long)pt->id);
	}
	return 0;
}

/* ---- for the restorer ---- */

static void ns_to_timeval(uint64_t ns, struct rst_timeval *tv)
{
	tv->sec = (int64_t)(ns / 1000000000ULL);
	tv->usec = (int64_t)(ns % 1000000000ULL / 1000);
	/* A timer due in under a microsecond is still armed. */
	if (ns && !tv->sec && !tv->usec)
		tv->usec = 1;
}

static void ns_to_timespec(uint64_t ns, struct rst_timespec *ts)
{
	ts->sec = (int64_t)(ns / 1000000000ULL);
	ts->nsec = (int64_t)(ns % 1000000000ULL);
}

/* The interval and POSIX timers, for the restorer; @off: the POSIX timers' place in the area. */
void timers_fill(struct rst_args *a, const struct restore_plan *plan, uint64_t off)
{
	struct rst_posix_timer *out = (struct rst_posix_timer *)((char *)a->area_start + off);
	const struct crib_itimer *it[3] = {
		&plan->timers.real, &plan->timers.virt, &plan->timers.prof,
	};
	const struct crib_posix_timer *pt;
	size_t i;

	for (i = 0; plan->have_timers && i < 3; i++) {
		if (!it[i]->value_ns)
			continue;
		ns_to_timeval(it[i]->interval_ns, &a->itimers[i].interval);
		ns_to_timeval(it[i]->value_ns, &a->itimers[i].value);
		a->itimers_set |= 1u << i;
	}
	a->timers_off = off;
	a->n_timers = plan->timers.n_posix;
	for (i = 0; i < plan->timers.n_posix; i++) {
		pt = &plan->timers.posix[i];
		out[i] = (struct rst_posix_timer) {
			.id = (int32_t)pt->id, .clockid = (int32_t)pt->clockid,
			.signo = (uint32_t)pt->signo, .notify = (uint32_t)pt->notify,
			.sigev_value = pt->sigev_value, .notify_tid = (int32_t)pt->notify_tid,
		};
		ns_to_timespec(pt->interval_ns, &out[i].interval);
		ns_to_timespec(pt->value_ns, &out[i].value);
	}
}

void timers_free(struct restore_plan *plan)
{
	free((void *)plan->timers.posix);
}
