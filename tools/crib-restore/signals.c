// SPDX-License-Identifier: GPL-2.0
/*
 * Signal handlers and pending signals: the sighand and sigpending records,
 * and the siginfo copies of each thread's pending list, which the
 * restorer queues again.
 */
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "signals.h"

int signals_copy_siginfos(const struct crib_siginfo *in, size_t n, struct plan_siginfo **out)
{
	size_t i;

	*out = calloc(n ? n : 1, sizeof(**out));
	if (!*out)
		return -1;
	for (i = 0; i < n; i++) {
		(*out)[i].signo = (uint32_t)in[i].signo;
		memcpy((*out)[i].info, in[i].info.data,
		       in[i].info.len < RST_SIGINFO_SIZE ? in[i].info.len : RST_SIGINFO_SIZE);
	}
	return 0;
}

int signals_take_sighand(struct restore_plan *plan, const struct crib_sighand *s,
			 struct tool_error *err)
{
	plan->actions = calloc(s->n_actions ? s->n_actions : 1, sizeof(*plan->actions));
	if (!plan->actions)
		return tool_fail(err, 0, "out of memory");
	memcpy(plan->actions, s->actions, s->n_actions * sizeof(*plan->actions));
	plan->n_actions = s->n_actions;
	return 0;
}

int signals_take_sigpending(struct restore_plan *plan, const struct crib_sigpending *s,
			    struct tool_error *err)
{
	if (signals_copy_siginfos(s->signals, s->n_signals, &plan->shared_pending))
		return tool_fail(err, 0, "out of memory");
	plan->n_shared_pending = s->n_signals;
	return 0;
}

/* ---- for the restorer ---- */

/* The handlers, for the restorer; @off: their place in the area. */
void signals_fill(struct rst_args *a, const struct restore_plan *plan, uint64_t off)
{
	struct rst_sigaction *sa = (struct rst_sigaction *)((char *)a->area_start + off);
	size_t i;

	for (i = 0; i < plan->n_actions; i++) {
		sa[i] = (struct rst_sigaction) {
			.handler = plan->actions[i].handler,
			.flags = plan->actions[i].flags,
			.restorer = plan->actions[i].restorer,
			.mask = plan->actions[i].mask,
			.signo = (uint32_t)plan->actions[i].signo,
		};
	}
	a->actions_off = off;
	a->n_actions = plan->n_actions;
}

void signals_fill_siginfo(struct rst_siginfo *out, const struct plan_siginfo *in, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		out[i].signo = in[i].signo;
		memcpy(out[i].info, in[i].info, RST_SIGINFO_SIZE);
	}
}

/* The signals pending for the whole process, at @off in the area. */
void signals_fill_shared(struct rst_args *a, const struct restore_plan *plan, uint64_t off)
{
	a->shared_off = off;
	a->n_shared = plan->n_shared_pending;
	signals_fill_siginfo((struct rst_siginfo *)((char *)a->area_start + off),
			     plan->shared_pending, plan->n_shared_pending);
}

void signals_free(struct restore_plan *plan)
{
	free(plan->actions);
	free(plan->shared_pending);
}
